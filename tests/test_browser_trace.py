"""The Trace page in a real browser: a model run's window as spans on a timeline, one span
opened with its decision, prompt and reply."""

from __future__ import annotations

import re

from nemori_ui.core.store import open_store
from tests.browser_app import (SHOTS, app_server, need_chromium, open_browser, open_home,
                               open_nav, settle)
from tests.llm_responder import respond
from tests.test_pipeline_openai import run


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
