"""The app through AppTest: every page with and without a run, and the Run page's flows."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store
from nemori_ui.core.store.runs import list_runs, rename_run
from nemori_ui.core.transcripts import parse_transcript
from nemori_ui.ui.layout import PAGES, method_label
from tests.app_jobs import jobs_done

APP = str(Path(__file__).resolve().parents[1] / "app.py")
# The sample run takes a few seconds; AppTest's default of 3 s would fail it on a slow machine.
TIMEOUT = 120
PAGE_IDS = [Path(page[0]).stem for page in PAGES]
SMALL = (b"[2024-03-04 18:02] Maya: I started a new job at Finch Labs today.\n"
         b"[2024-03-04 18:03] Jonas: Congratulations! Do you cycle there?\n"
         b"[2024-03-04 18:04] Maya: Yes, twenty minutes along the river.\n"
         b"[2024-03-04 18:05] Jonas: I'll book the Lisbon flights tonight.\n")
BROKEN = b'{"speaker": "Maya", "text": "hi"}\n{"speaker": "Jonas", text}\n'


def title_pattern(path: str, nav_title: str) -> re.Pattern:
    """What a page's heading must say: its file name or navigation title, however capitalised.

    Overview is the one page whose heading is the product's name.
    """
    if path.endswith("overview.py"):
        return re.compile("Nemori Inspector")
    stem = re.escape(Path(path).stem).replace("_", "[ _]")
    return re.compile(f"{stem}|{re.escape(nav_title)}", re.IGNORECASE)


def start_app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_page(at: AppTest, path: str) -> AppTest:
    at.switch_page(path)
    at.run()
    assert not at.exception, f"{path}: {[e.value for e in at.exception]}"
    return at


def assert_title(at: AppTest, path: str, nav_title: str) -> None:
    titles = [t.value for t in at.title]
    assert titles, f"{path} shows no title"
    assert title_pattern(path, nav_title).search(titles[0]), f"{path} is titled {titles[0]!r}"


def sidebar_run(at: AppTest) -> str | None:
    """The run the sidebar's run picker shows (its widget key is the sidebar's business)."""
    pickers = [s for s in at.sidebar.selectbox if s.label == "Run"]
    return pickers[0].value if pickers else None


def has_button(at: AppTest, key: str) -> bool:
    return any(b.key == key for b in at.button)


def make_run(home: Path, name: str | None = None) -> str:
    """A small finished run written straight to the store, for the saved-runs controls."""
    store = open_store(home)
    transcript = parse_transcript(SMALL, source="small.txt")
    config = PipelineConfig()
    clients = build_clients(config, store)
    run_id = start_run(store, transcript.conversations[0], config, clients, source="small.txt",
                       fmt=transcript.format, resume=False)
    run_windows(store, run_id, clients)
    if name:
        rename_run(store, run_id, name)
    return run_id


def test_overview_without_run():
    at = start_app()
    assert [t.value for t in at.title] == ["Nemori Inspector"]
    text = " ".join(m.value for m in at.markdown)
    assert "could not predict" in text and "Run" in text
    links = [(link.label, link.page) for link in at.get("page_link")]
    assert ("Run the pipeline", "run") in links, links
    assert any("No run yet" in c.value for c in at.sidebar.caption)
    assert not at.metric, "the current-run summary needs a run"


@pytest.mark.parametrize("path, nav_title", [page[:2] for page in PAGES], ids=PAGE_IDS)
def test_every_page_without_run(path, nav_title):
    at = open_page(start_app(), path)
    assert_title(at, path, nav_title)


def test_sample_run_then_every_page(isolated_home):
    at = open_page(start_app(), "pages/run.py")
    assert at.radio(key="source_kind").value == "Bundled sample"
    jobs_done(at.button(key="run_button").click().run())
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]

    listed = list_runs(open_store(isolated_home))
    assert len(listed) == 1 and listed[0].status == "done"
    assert listed[0].windows_done == listed[0].windows_total > 0
    messages = [s.value for s in at.success]
    assert messages == [f"Run {listed[0].id} finished. Open the other pages to inspect it."]
    assert at.session_state.run_id == listed[0].id

    for path, nav_title, *_ in PAGES:
        open_page(at, path)
        assert_title(at, path, nav_title)
        unfinished = [w.value for w in at.warning if w.value.startswith("This run is")]
        assert not unfinished, f"{path}: {unfinished}"
        if path.endswith(("overview.py", "run.py")):
            continue
        captions = " ".join(c.value for c in at.caption)
        assert "offline engine, no LLM" in captions, f"{path} hides that no LLM decided"


def test_overview_summarises_the_run(sample_run, monkeypatch):
    store, run_id = sample_run
    monkeypatch.setenv("NEMORI_HOME", str(store.path.parent))
    at = start_app()
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Messages"]) == 95
    assert int(metrics["Episodes"]) > 0 and int(metrics["Memories"]) > 0
    assert metrics["LLM calls"] == "none", "no counter of zeros for the offline engine"


@pytest.mark.parametrize("path, nav_title", [page[:2] for page in PAGES], ids=PAGE_IDS)
def test_every_page_with_run(path, nav_title, sample_run, monkeypatch):
    store, run_id = sample_run
    monkeypatch.setenv("NEMORI_HOME", str(store.path.parent))
    at = open_page(start_app(), path)
    assert_title(at, path, nav_title)
    assert at.session_state.run_id == run_id


def test_bad_upload_names_the_file_and_line():
    at = open_page(start_app(), "pages/run.py")
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").upload("broken.jsonl", BROKEN, "application/json").run()
    assert not at.exception, [e.value for e in at.exception]
    # the message is Markdown-escaped (broken\\.jsonl); read it as the person sees it
    errors = [e.value.replace("\\", "") for e in at.error]
    assert len(errors) == 1, errors
    assert "broken.jsonl" in errors[0] and "line 2" in errors[0] and "not valid JSON" in errors[0]
    assert not has_button(at, "run_button"), "Run is offered for a file that cannot be read"


def test_a_file_of_another_type_is_named_not_the_file_before_it():
    at = open_page(start_app(), "pages/run.py")
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").upload("broken.jsonl", BROKEN, "application/json").run()
    at.file_uploader(key="upload").upload("weights.bin", b"\x00\x01", "application/octet-stream")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value.replace("\\", "") for e in at.error]
    assert len(errors) == 1 and "weights.bin" in errors[0] and ".bin" in errors[0], errors
    assert "broken.jsonl" not in errors[0]
    assert not has_button(at, "run_button")


def test_upload_and_run(isolated_home):
    at = open_page(start_app(), "pages/run.py")
    at.radio(key="source_kind").set_value("Upload a file").run()
    assert not has_button(at, "run_button"), "Run is offered before a transcript is chosen"
    at.file_uploader(key="upload").upload("small.txt", SMALL, "text/plain").run()
    assert not at.error, [e.value for e in at.error]
    assert any("Format: **text**" in c.value for c in at.caption)
    jobs_done(at.button(key="run_button").click().run())
    assert not at.exception, [e.value for e in at.exception]
    listed = list_runs(open_store(isolated_home))
    assert [(r.source, r.status) for r in listed] == [("small.txt", "done")]
    assert at.success[0].value.startswith(f"Run {listed[0].id} finished")


def test_rename_and_delete(isolated_home):
    make_run(isolated_home, "first")
    make_run(isolated_home, "second")
    shown, other = [r.id for r in list_runs(open_store(isolated_home))]
    at = open_page(start_app(), "pages/run.py")
    assert at.session_state.run_id == shown, "the newest run is shown by default"

    at.selectbox(key="manage_run").set_value(other).run()
    assert at.text_input(key="rename_text").value == "first", "the box follows the select"
    at.text_input(key="rename_text").input("Lisbon planning").run()
    at.button(key="rename_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    names = {r.id: r.name for r in list_runs(open_store(isolated_home))}
    assert names[other] == "Lisbon planning" and names[shown] in ("first", "second")
    assert f"Lisbon planning · {other}" in at.selectbox(key="manage_run").options
    assert at.selectbox(key="manage_run").value == other, "the renamed run stays selected"
    assert at.button(key="delete_run").label.startswith("Delete “Lisbon planning”")

    at.text_input(key="rename_text").input("   ").run()
    at.button(key="rename_run").click().run()
    assert any("cannot be empty" in e.value for e in at.error)
    assert {r.id: r.name for r in list_runs(open_store(isolated_home))}[other] == "Lisbon planning"

    at.button(key="delete_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert len(list_runs(open_store(isolated_home))) == 2, "Delete asks before it deletes"
    assert any("cannot be undone" in w.value for w in at.warning)
    at.button(key="delete_cancelled").click().run()
    assert len(list_runs(open_store(isolated_home))) == 2
    assert not any("cannot be undone" in w.value for w in at.warning)
    at.button(key="delete_run").click().run()
    at.button(key="delete_confirmed").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert [r.id for r in list_runs(open_store(isolated_home))] == [shown]
    assert at.session_state.run_id == shown

    at.selectbox(key="manage_run").set_value(shown).run()
    at.button(key="delete_run").click().run()
    at.button(key="delete_confirmed").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert list_runs(open_store(isolated_home)) == []
    assert any("No saved runs yet" in c.value for c in at.caption)
    assert any("No run yet" in c.value for c in at.sidebar.caption)


def test_deleting_the_shown_run_shows_another(isolated_home):
    make_run(isolated_home)
    make_run(isolated_home)
    shown, other = [r.id for r in list_runs(open_store(isolated_home))]
    at = open_page(start_app(), "pages/run.py")
    at.selectbox(key="manage_run").set_value(shown).run()
    at.button(key="delete_run").click().run()
    at.button(key="delete_confirmed").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state.run_id == other
    assert sidebar_run(at) == other


def test_open_a_saved_run(isolated_home):
    make_run(isolated_home)
    make_run(isolated_home)
    shown, other = [r.id for r in list_runs(open_store(isolated_home))]
    at = open_page(start_app(), "pages/run.py")
    at.selectbox(key="manage_run").set_value(other).run()
    at.button(key="open_run").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state.run_id == other
    assert sidebar_run(at) == other


def test_a_second_run_from_the_run_page(isolated_home):
    earlier = make_run(isolated_home)
    at = open_page(start_app(), "pages/run.py")
    jobs_done(at.button(key="run_button").click().run())
    assert not at.exception, [e.value for e in at.exception]
    listed = list_runs(open_store(isolated_home))
    assert [r.status for r in listed] == ["done", "done"]
    assert at.session_state.run_id in {r.id for r in listed} - {earlier}


def test_the_v1_choices_are_set_on_the_run_page_stored_and_named(isolated_home):
    at = open_page(start_app(), "pages/run.py")
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").upload("small.txt", SMALL, "text/plain").run()
    select = {s.label: s for s in at.selectbox}
    # the offline engine makes no call: what only sets the calls is shown, not offered
    assert select["Cold start"].disabled and select["Consolidation calls"].disabled
    assert not select["Semantic order"].disabled and not select["Consolidation"].disabled
    select["Semantic order"].set_value("window").run()
    jobs_done(at.button(key="run_button").click().run())
    assert not at.exception, [e.value for e in at.exception]
    config = list_runs(open_store(isolated_home))[0].config
    assert config.semantic_order == "window"
    shown = " ".join(c.value for c in at.sidebar.caption)
    assert "window order (v1)" in shown and "offline rules" in shown
    assert "one call per" not in shown and "cold start" not in shown


def test_the_method_label_names_the_v1_choices_a_model_run_made():
    config = PipelineConfig(backend="openai", semantic_order="window", cold_start="narrative")
    label = method_label(config)
    assert "gated at" in label and "window order (v1)" in label
    assert "narrative cold start (v1)" in label
    assert method_label(config.model_copy(update={"consolidation": "off"})).startswith(
        "consolidation off")
    # an offline run set from the command line makes no call: no call-only choice is named
    offline = method_label(config.model_copy(update={"backend": "offline"}))
    assert "cold start" not in offline and "gated" not in offline and "offline rules" in offline
