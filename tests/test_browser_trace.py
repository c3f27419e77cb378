"""The Trace page in a real browser: a model run's window as spans on a timeline, one span
opened with its decision, prompt and reply."""

from __future__ import annotations

import re

from nemori_ui.core.store import open_store
from tests.browser_app import (SHOTS, app_server, need_chromium, open_browser, open_home,
                               open_nav, settle)
from tests.llm_responder import prompt_of, respond, user_text
from tests.test_pipeline_openai import CONFIG, run


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
        # the span opened by default is the partition call: its prompt and reply are shown
        page.get_by_text(re.compile(r"Call \w+ · partition · ok")).first.wait_for()
        assert page.get_by_text("Response").count() >= 1
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "trace-1280.png"), full_page=False)
        page.set_viewport_size({"width": 1920, "height": 1080})
        settle(page)
        page.screenshot(path=str(SHOTS / "trace-1920.png"), full_page=False)


def test_a_call_replayed_with_an_edited_prompt_shows_the_decision_it_changes(tmp_path,
                                                                            openai_server):
    need_chromium()
    home = tmp_path / "home"
    store = open_store(home)
    openai_server.responder = respond
    run(store, openai_server, CONFIG.model_copy(update={"base_url": openai_server.url}))
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
