"""A run's listing tells the truth: failed calls and fallback decisions are counted wherever the
run is shown, a run whose process was killed shows as interrupted and can be resumed, and the
sidebar picker tells apart two runs with the same name started in the same minute."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from nemori_ui.cli import main
from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.llm import OpenAIChatBackend
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.stage_events import fallback_reasons
from nemori_ui.core.store import open_store, records
from nemori_ui.core.store.db import DB_NAME
from nemori_ui.core.store.health import run_health
from nemori_ui.core.store.runs import get_run, list_runs, rename_run
from nemori_ui.core.run_figures import run_figures
from nemori_ui.core.transcripts import parse_transcript
from tests.app_jobs import jobs_done
from tests.conftest import ROOT, SAMPLE
from tests.fakes import HashEmbedder
from tests.llm_responder import prompt_of, respond
from tests.openai_server import OpenAIServer, ServerReply

APP = str(Path(__file__).resolve().parents[1] / "app.py")
SMALL = (b"[2024-03-04 18:02] Maya: I started a new job at Finch Labs today.\n"
         b"[2024-03-04 18:03] Jonas: Congratulations! Do you cycle there?\n"
         b"[2024-03-04 18:04] Maya: Yes, twenty minutes along the river.\n"
         b"[2024-03-04 18:05] Jonas: I'll book the Lisbon flights tonight.\n")


def prose_for_narration(body: dict):
    """A model that never writes a narration as JSON: every narration falls back."""
    if prompt_of(body) == "narrate":
        return ServerReply(content="I would rather write prose than JSON.")
    return respond(body)


@pytest.fixture(scope="module")
def degraded(tmp_path_factory):
    """A finished run in which every narration was decided by the offline fallback."""
    server = OpenAIServer().start()
    server.responder = prose_for_narration
    home = tmp_path_factory.mktemp("degraded")
    store = open_store(home)
    conv = parse_transcript(SMALL, source="small.txt").conversations[0]
    config = PipelineConfig(backend="openai", model="test-model")
    backend = OpenAIChatBackend(config.model, api_key="test-key", base_url=server.url)
    clients = build_clients(config, store, RunEnvironment(backend=backend, embedder=HashEmbedder()))
    run_id = start_run(store, conv, config, clients, source="small.txt", fmt="text")
    run_windows(store, run_id, clients)
    yield home, store, run_id
    server.stop()


def test_failed_calls_and_fallbacks_are_counted(degraded):
    _, store, run_id = degraded
    calls = records.load_calls(store, run_id)
    events = records.load_events(store, run_id)
    failed = sum(c.status == "failed" for c in calls)
    fell_back = sum(len(fallback_reasons(e.payload)) for e in events)
    assert failed >= 1 and fell_back >= 1, "the fixture must degrade the run"
    health = run_health(store)[run_id]
    assert (health.calls, health.failed_calls, health.fallbacks) == (len(calls), failed, fell_back)
    assert run_figures(store, run_id).fallbacks == fell_back
    assert get_run(store, run_id).status == "done"


def test_runs_lists_failed_calls_and_fallbacks(degraded, capsys):
    home, store, run_id = degraded
    health = run_health(store)[run_id]
    assert main(["runs", "--home", str(home)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith(run_id))
    assert f"{health.failed_calls} of {health.calls} LLM calls failed" in line
    assert f"{health.fallbacks} decision" in line and "made by the offline fallback" in line

    assert main(["runs", "--json", "--home", str(home)]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert (row["llm_calls"], row["failed_calls"], row["fallbacks"]) == \
        (health.calls, health.failed_calls, health.fallbacks)


def test_sidebar_and_overview_show_the_fallbacks(degraded, monkeypatch):
    home, store, run_id = degraded
    health = run_health(store)[run_id]
    monkeypatch.setenv("NEMORI_HOME", str(home))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    side = [w.value for w in at.sidebar.warning]
    assert any(f"{health.failed_calls} of {health.calls} LLM calls failed" in w for w in side), side
    main_area = [w.value for w in at.main.warning]
    assert any(health.describe() in w and "Calls and cost" in w for w in main_area), main_area


def test_a_clean_run_shows_no_fallback_warning(sample_run, monkeypatch):
    store, run_id = sample_run
    assert not run_health(store)[run_id].degraded
    monkeypatch.setenv("NEMORI_HOME", str(store.path.parent))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert not at.exception
    assert not [w.value for w in at.sidebar.warning]


def windows_done(home: Path) -> int | None:
    try:
        with sqlite3.connect(f"file:{home / DB_NAME}?mode=ro", uri=True, timeout=0.05) as db:
            row = db.execute("SELECT windows_done FROM runs").fetchone()
    except sqlite3.Error:
        return None
    return None if row is None else row[0]


@pytest.fixture
def killed(tmp_path):
    """A CLI run SIGKILLed after its first window: its row still says 'running'."""
    home = tmp_path / "home"
    proc = subprocess.Popen([sys.executable, "-m", "nemori_ui", "run", str(SAMPLE), "--window",
                             "8", "--home", str(home)], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    try:
        while not windows_done(home):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.005)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    with sqlite3.connect(home / DB_NAME) as db:
        [(run_id, raw_status)] = db.execute("SELECT id, status FROM runs").fetchall()
    assert raw_status == "running", "the killed process cannot have marked its run"
    return home, run_id


def test_a_killed_run_shows_interrupted_and_resumes_from_the_cli(killed, capsys):
    home, run_id = killed
    assert main(["runs", "--json", "--home", str(home)]) == 0
    [row] = json.loads(capsys.readouterr().out)
    assert row["status"] == "interrupted"
    assert main(["runs", "--home", str(home)]) == 0
    assert "resume RUN_ID" in capsys.readouterr().out
    assert main(["resume", run_id, "--home", str(home)]) == 0
    info = get_run(open_store(home), run_id)
    assert info.status == "done" and info.windows_done == info.windows_total
    assert main(["resume", run_id, "--home", str(home)]) == 2, "a done run is not resumed"


def test_a_killed_run_is_offered_for_resume_in_the_app(killed, monkeypatch):
    home, run_id = killed
    monkeypatch.setenv("NEMORI_HOME", str(home))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert any("(interrupted)" in o for o in at.sidebar.selectbox[0].options)
    jobs_done(at.sidebar.button(key="resume_run").click().run())
    assert not at.exception, [e.value for e in at.exception]
    info = get_run(open_store(home), run_id)
    assert info.status == "done" and info.windows_done == info.windows_total
    assert not [b for b in at.sidebar.button if b.key == "resume_run"]


def test_a_live_run_stays_running(tmp_path):
    store = open_store(tmp_path / "home")
    conv = parse_transcript(SMALL, source="small.txt").conversations[0]
    config = PipelineConfig()
    run_id = start_run(store, conv, config, build_clients(config, store), source="small.txt",
                       fmt="text")
    assert get_run(store, run_id).status == "running", "this process, its owner, is alive"


def test_sidebar_picker_tells_apart_runs_with_the_same_label(tmp_path, monkeypatch):
    home = tmp_path / "home"
    store = open_store(home)
    transcript = parse_transcript(SMALL, source="small.txt")
    config = PipelineConfig()
    clients = build_clients(config, store)
    made = []
    for _ in range(2):
        run_id = start_run(store, transcript.conversations[0], config, clients,
                           source="small.txt", fmt="text", resume=False)
        run_windows(store, run_id, clients)
        rename_run(store, run_id, "same name")
        made.append(run_id)
    with store.tx() as conn:         # started in the same minute
        conn.execute("UPDATE runs SET created_at = '2024-03-04T18:02:00+00:00'")
    shown, other = [r.id for r in list_runs(store)]
    monkeypatch.setenv("NEMORI_HOME", str(home))
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    assert at.session_state.run_id == shown
    for wanted in (other, shown, other):
        [picker] = [s for s in at.sidebar.selectbox if s.label == "Run"]
        picker.set_value(wanted).run()
        assert not at.exception, [e.value for e in at.exception]
        assert at.session_state.run_id == wanted
        [picker] = [s for s in at.sidebar.selectbox if s.label == "Run"]
        assert picker.value == wanted


class ScriptStopped(BaseException):
    """Like Streamlit's StopException: not an Exception, raised into a running script."""


@pytest.mark.parametrize("stop", [ScriptStopped, KeyboardInterrupt])
def test_a_run_stopped_by_its_host_is_interrupted_not_running(stop, tmp_path):
    store = open_store(tmp_path / "home")
    conv = parse_transcript(SMALL, source="small.txt").conversations[0]
    config = PipelineConfig(window=2)
    clients = build_clients(config, store)
    run_id = start_run(store, conv, config, clients, source="small.txt", fmt="text")

    def progress(p):
        if p.window == 1:
            raise stop()
    with pytest.raises(stop):
        run_windows(store, run_id, clients, progress=progress)
    info = get_run(store, run_id)
    assert (info.status, info.windows_done) == ("interrupted", 1)


def test_a_running_run_stored_before_owners_were_kept_shows_interrupted(tmp_path):
    store = open_store(tmp_path / "home")
    conv = parse_transcript(SMALL, source="small.txt").conversations[0]
    config = PipelineConfig()
    run_id = start_run(store, conv, config, build_clients(config, store), source="small.txt",
                       fmt="text")
    with store.tx() as conn:
        conn.execute("UPDATE runs SET owner = NULL WHERE id = ?", (run_id,))
    assert get_run(store, run_id).status == "interrupted"
