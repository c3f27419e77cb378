"""The Live page and "Continue this memory" in the app (AppTest), and an agent filling a memory
through the Python API while the app, never restarted, shows each new window."""

from __future__ import annotations

import re
import time

import pytest
from streamlit.testing.v1 import AppTest

from nemori_ui import Memory
from nemori_ui.core.store import appends, open_store, runs
from nemori_ui.core.transcripts import load_transcript
from tests.conftest import ROOT, SAMPLE, run_sample

W = 8


def app(page: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.switch_page(f"pages/{page}.py")
    return at


def metric(at: AppTest, label: str) -> str:
    return next(m.value for m in at.metric if m.label == label)


def wait_until(check, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.1)


def charts_text(at: AppTest) -> str:
    return " ".join(c.proto.spec for c in at.get("plotly_chart"))


def test_stepping_the_demo_closes_a_window_on_the_live_page(isolated_home):
    at = app("live")
    at.session_state["live_demo_requested"] = True
    at.run()
    assert not at.exception, at.exception
    assert metric(at, "Messages") == "0" and metric(at, "Buffer") == "0 / 10"
    for _ in range(9):
        at.button(key="live_step").click().run()
    assert metric(at, "Buffer") == "9 / 10" and metric(at, "Windows processed") == "0"
    at.button(key="live_step").click().run()
    store = open_store(isolated_home)
    [info] = runs.list_runs(store)
    wait_until(lambda: runs.get_run(store, info.id).windows_done == 1)
    wait_until(lambda: runs.get_run(store, info.id).status == "done")
    at.run()
    assert not at.exception, at.exception
    assert metric(at, "Windows processed") == "1" and metric(at, "Buffer") == "0 / 10"
    newest = next(m.value for m in at.markdown if "Window 1:" in m.value)
    assert re.search(r"Window 1: (1 episode|\d+ episodes)<", newest), newest
    # a typed message, then Flush closes the partial window it starts
    at.radio(key="live_speaker").set_value("Ana")
    at.text_input(key="live_text").input("I work as a pastry chef at Café Aurora.")
    at.button(key="FormSubmitter:live_type-Send").click().run()
    assert metric(at, "Buffer") == "1 / 10"
    at.button(key="live_flush").click().run()
    wait_until(lambda: runs.get_run(store, info.id).windows_done == 2)
    wait_until(lambda: runs.get_run(store, info.id).status == "done")
    at.run()
    assert metric(at, "Windows processed") == "2" and metric(at, "Buffer") == "0 / 10"
    assert "live: typed" in charts_text(at)           # the partition marks where it came in
    store.close()


def test_an_agent_loop_is_shown_by_the_app_without_a_restart(isolated_home):
    messages = load_transcript(SAMPLE).conversations[0].messages
    memory = Memory(home=isolated_home, window=W, name="agent")
    live = app("live")
    seen = []
    for i in range(0, 3 * W, 4):                 # small batches, a search after each
        memory.add([{"speaker": m.speaker, "text": m.text, "timestamp": m.timestamp}
                    for m in messages[i:i + 4]])
        found = memory.search("Where does Maya work?", k=3)
        assert bool(found.episodes) == (i + 4 >= W)
        live.session_state["run_id"] = memory.run_id
        live.run()                                # the same app session, never restarted
        assert not live.exception, live.exception
        seen.append(metric(live, "Windows processed"))
    assert seen == ["0", "1", "1", "2", "2", "3"]
    for page in ("overview", "partitions", "episodes", "prediction_error", "knowledge",
                 "timeline", "memory_map", "ask"):
        at = app(page)
        at.session_state["run_id"] = memory.run_id
        at.run()
        assert not at.exception, (page, at.exception)
    memory.close()


@pytest.mark.parametrize("page", ["partitions", "timeline"])
def test_continue_this_memory_appends_and_marks_where_it_started(isolated_home, page):
    store = open_store(isolated_home)
    run_id = run_sample(store, window=13)
    at = app("run")
    at.run()
    at.selectbox(key="append_run").set_value(run_id).run()
    at.radio(key="append_kind").set_value("Pasted text").run()
    at.text_area(key="append_text").input(
        "## Session 6\nMaya: I moved to Berlin for a new job.\nJonas: Berlin! Since when?\n"
        "Maya: Since last week, I work at a weather start-up there now.").run()
    at.button(key="append_button").click().run()
    assert not at.exception, at.exception
    wait_until(lambda: runs.get_run(store, run_id).windows_done == 9
               and runs.get_run(store, run_id).status == "done")
    [record] = appends.load_appends(store, run_id)
    assert (record.first_idx, record.count, record.source) == (95, 3, "pasted.txt")
    shown = app(page)
    shown.session_state["run_id"] = run_id
    shown.run()
    assert not shown.exception, shown.exception
    assert "+ pasted.txt (3)" in charts_text(shown)
    store.close()


def test_restarting_a_restart_numbers_the_memories(isolated_home):
    """Restart plays the script again in a new memory: named "… · again", then "… · again 2",
    not "… · again · again"."""
    at = app("live")
    at.session_state["live_demo_requested"] = True
    at.run()
    for _ in range(3):
        at.button(key="live_step").click().run()
        at.button(key="live_restart").click().run()
        assert not at.exception, at.exception
    store = open_store(isolated_home)
    names = [info.name for info in runs.list_runs(store)]
    store.close()
    assert sorted(names) == ["live demo · w=10", "live demo · w=10 · again",
                             "live demo · w=10 · again 2", "live demo · w=10 · again 3"]
