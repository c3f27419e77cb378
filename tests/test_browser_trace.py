"""The Trace page in a real browser: a model run's window as spans on a timeline, one span
opened with its decision, prompt and reply."""

from __future__ import annotations

import re

from nemori_ui.core.store import call_log, open_store, records
from nemori_ui.core.store.runs import list_runs
from tests.browser_app import (SHOTS, app_server, need_chromium, open_browser, open_home,
                               open_nav, settle)
from tests.browser_runs import stored_run
from tests.llm_responder import prompt_of, respond, user_text
from tests.test_browser_live import metric
from tests.test_pipeline_openai import CONFIG, run

BARS = """() => [...document.querySelectorAll('.js-plotly-plot')].flatMap(c => c._fullData)
  .filter(t => t.type === 'bar')
  .flatMap(t => Array.from(t.x, (x, i) => ({seconds: x, custom: t.customdata[i],
                                            hover: t.hovertemplate})))"""


def test_a_window_reads_as_a_trace_with_each_span_opening_its_call(tmp_path, openai_server):
    need_chromium()
    home = tmp_path / "home"
    store = open_store(home)
    openai_server.responder = respond
    run(store, openai_server)
    store.close()
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="trace-failure.png") as page:
        open_home(page, url)
        open_nav(page, "trace", re.compile("Trace"))
        page.locator(".js-plotly-plot").first.wait_for(state="visible")
        # the bars are the window's timed spans, one legend entry per stage
        legend = page.locator(".js-plotly-plot .legendtext").all_text_contents()
        assert {"partition", "narrate", "distill"} <= set(legend), legend
        assert page.get_by_text("Wall time").count() == 1
        for label in ("Calls", "Cached", "Retries"):
            assert metric(page, label).isdigit(), label
        # each bar's latency is its length; its tokens, cache hits and retries are in its hover
        bars = page.evaluate(BARS)
        assert bars and all(b["seconds"] > 0 for b in bars), bars
        assert all(len(b["custom"]) == 5 and b["custom"][1] > 0 for b in bars), bars
        assert all(w in bars[0]["hover"] for w in ("tokens", "cached", "retries")), bars[0]
        # the span opened by default is the partition call: its prompt and reply are shown
        page.get_by_text(re.compile(r"Call \w+ · partition · ok")).first.wait_for()
        assert page.get_by_text("Response").count() >= 1
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "trace-1280.png"), full_page=False)
        page.set_viewport_size({"width": 1920, "height": 1080})
        settle(page)
        page.screenshot(path=str(SHOTS / "trace-1920.png"), full_page=False)


def test_an_offline_window_lists_each_decisions_rule_and_score(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    stored_run(home)
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="trace-offline-failure.png") as page:
        open_home(page, url)
        open_nav(page, "trace", re.compile("Trace"))
        page.get_by_text(re.compile(r"made by the offline engine")).wait_for()
        assert metric(page, "Calls") == "0" and metric(page, "Wall time") == "–"
        # a consolidation opened: the rule and score that decided it, and the decision itself
        span = page.get_by_role("combobox", name="Open a span")
        span.click()
        page.keyboard.type("#6 consolidate")   # the first with a memory to compare with
        page.keyboard.press("Enter")
        settle(page)
        assert "consolidate" in span.input_value()
        rule = page.get_by_text(re.compile(r"^Rule or reason: .+ · score \d\.\d{3}$")).first
        rule.wait_for()
        assert page.get_by_text(re.compile(r"decided by offline")).count() >= 1
        assert page.get_by_text("The decision as recorded").is_visible()
        rule.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "trace-offline-1280.png")
        page.set_viewport_size({"width": 1920, "height": 1080})
        settle(page)
        page.screenshot(path=SHOTS / "trace-offline-1920.png")


def test_a_call_replayed_with_an_edited_prompt_shows_the_decision_it_changes(tmp_path,
                                                                            openai_server):
    need_chromium()
    home = tmp_path / "home"
    store = open_store(home)
    openai_server.responder = respond
    run(store, openai_server, CONFIG.model_copy(update={"base_url": openai_server.url}))
    [run_id] = [r.id for r in list_runs(store)]
    after_run = (len(records.load_events(store, run_id)), len(records.load_memories(store, run_id)))
    store.close()

    def fewer_episodes(body):
        # asked again with an edited prompt, the partition keeps the window as one episode
        if prompt_of(body) == "partition" and "ONE EPISODE" in body["messages"][0]["content"]:
            n = len(re.findall(r"^\[\d+\]", user_text(body), re.M))
            return {"episodes": [{"indices": list(range(1, n + 1)), "topic": "all of it"}]}
        return respond(body)
    openai_server.responder = fewer_episodes
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="replay-failure.png") as page:
        open_home(page, url)
        open_nav(page, "trace", re.compile("Trace"))
        page.get_by_text(re.compile(r"Call \w+ · partition · ok")).first.wait_for()
        system = page.get_by_label("Message 1: system")
        system.fill(system.input_value() + "\nKeep the whole window as ONE EPISODE.")
        page.get_by_role("button", name="Replay this call").click()
        page.get_by_text("the decision changes").wait_for(timeout=60_000)
        settle(page)
        assert page.get_by_text("the decision changes").count() == 1
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "replay-1280.png"), full_page=True)
        # stored beside the run as a variant: a new visit lists it, and the run is unchanged
        open_home(page, url)
        open_nav(page, "trace", re.compile("Trace"))
        page.get_by_text(re.compile(r"\(edited prompt\): the decision changes")).wait_for()
    store = open_store(home)
    try:
        [run_id] = [r.id for r in list_runs(store)]
        assert after_run == (len(records.load_events(store, run_id)),
                             len(records.load_memories(store, run_id)))
        assert call_log.calls_of_run(store, run_id, kind="replay"), "no replay stored"
    finally:
        store.close()
