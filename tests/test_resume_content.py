"""Resuming matches a run's content, not only its file name: an edited file starts a new run."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from nemori_ui.cli import main
from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store
from nemori_ui.core.store.records import load_messages
from nemori_ui.core.store.runs import get_run, list_runs
from nemori_ui.core.transcripts import load_transcript, parse_transcript

APP = str(Path(__file__).resolve().parents[1] / "app.py")
BEFORE = ("[2024-03-04 18:02] Maya: I started a new job at Finch Labs today.\n"
          "[2024-03-04 18:03] Jonas: Congratulations! Do you cycle there?\n"
          "[2024-03-04 18:04] Maya: Yes, twenty minutes along the river.\n"
          "[2024-03-04 18:05] Jonas: I'll book the Lisbon flights tonight.\n")
AFTER = BEFORE.replace("Finch Labs", "Heron Systems")


def interrupted_run(store, transcript, source: str, config: PipelineConfig) -> str:
    """A run of `transcript` stopped after its first window, as a killed run would be."""
    clients = build_clients(config, store)
    run_id = start_run(store, transcript.conversations[0], config, clients, source=source,
                       fmt=transcript.format)
    run_windows(store, run_id, clients, stop_after=1)
    assert get_run(store, run_id).status == "interrupted"
    return run_id


def test_cli_starts_a_new_run_when_the_file_changed_and_says_so(tmp_path, capsys):
    path, home = tmp_path / "chat.txt", tmp_path / "home"
    path.write_text(BEFORE)
    store = open_store(home)
    old = interrupted_run(store, load_transcript(path), str(path), PipelineConfig(window=2))

    path.write_text(AFTER)
    assert main(["run", str(path), "--window", "2", "--home", str(home)]) == 0
    err = capsys.readouterr().err
    assert old in err and "changed" in err and "new run" in err

    runs = {r.id: r for r in list_runs(store)}
    assert len(runs) == 2 and runs[old].status == "interrupted", "the old run must be kept"
    new = next(r for r in runs.values() if r.id != old)
    assert new.status == "done"
    assert "Heron Systems" in load_messages(store, new.id)[0].text
    assert "Finch Labs" in load_messages(store, old).pop(0).text


def test_cli_resumes_the_same_content_without_a_note(tmp_path, capsys):
    path, home = tmp_path / "chat.txt", tmp_path / "home"
    path.write_text(BEFORE)
    store = open_store(home)
    old = interrupted_run(store, load_transcript(path), str(path), PipelineConfig(window=2))
    assert main(["run", str(path), "--window", "2", "--home", str(home)]) == 0
    assert "note:" not in capsys.readouterr().err
    assert [(r.id, r.status) for r in list_runs(store)] == [(old, "done")]


def test_runs_stored_without_a_hash_are_matched_on_their_messages(tmp_path):
    store = open_store(tmp_path / "home")
    config = PipelineConfig(window=2)
    first = parse_transcript(BEFORE, source="chat.txt")
    old = interrupted_run(store, first, "chat.txt", config)
    with store.tx() as conn:        # as a run written before content hashes were kept
        conn.execute("UPDATE runs SET content_hash = NULL WHERE id = ?", (old,))
    clients = build_clients(config, store)
    same = start_run(store, first.conversations[0], config, clients, source="chat.txt",
                     fmt="text")
    edited = parse_transcript(AFTER, source="chat.txt").conversations[0]
    notes = []
    other = start_run(store, edited, config, clients, source="chat.txt", fmt="text",
                      notice=notes.append)
    assert same == old and other != old and len(notes) == 1


def test_app_upload_of_a_changed_file_with_a_known_name_starts_a_new_run(isolated_home):
    store = open_store(isolated_home)
    old = interrupted_run(store, parse_transcript(BEFORE, source="chat.txt"), "chat.txt",
                          PipelineConfig(window=2))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/run.py")
    at.run()
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").upload("chat.txt", AFTER.encode(), "text/plain").run()
    next(n for n in at.number_input if n.label == "Window w").set_value(2).run()
    at.button(key="run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    notes = [i.value.replace("\\", "") for i in at.info]
    assert any(old in n and "changed" in n for n in notes), notes
    new = at.session_state.run_id
    assert new != old
    assert "Heron Systems" in load_messages(store, new)[0].text
    assert get_run(store, old).status == "interrupted"
