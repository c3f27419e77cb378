"""The Live page in a real browser: the demo opened from the Overview, stepped until a window
closes (its decisions appear without a reload), then played, left mid-play and rejoined: the
play went on in the server meanwhile."""

from __future__ import annotations

import re
import time

from nemori_ui.core.store import open_store
from nemori_ui.core.store.runs import list_runs
from tests.browser_app import (SHOTS, app_server, heading, open_browser, open_home, open_nav,
                               wait_for)

LIVE = re.compile(r"^\s*Live\s*$")
OVERVIEW = re.compile("Nemori Inspector")


def messages_stored(home) -> int:
    store = open_store(home)
    try:
        [run] = list_runs(store)
        return store.query("SELECT count(*) FROM messages WHERE run_id = ?", (run.id,))[0][0]
    finally:
        store.close()


def metric(page, label: str) -> str:
    box = page.locator('[data-testid="stMetric"]', has_text=label).first
    return box.locator('[data-testid="stMetricValue"]').inner_text().strip()


def test_live_page_reacts_and_plays_on_while_away(tmp_path):
    home, log = tmp_path / "home", tmp_path / "streamlit.log"
    with app_server(home, log) as (url, _), open_browser(viewport=(1400, 2400),
                                                        failure_shot="live_failure.png") as page:
        open_home(page, url)
        page.get_by_role("button", name=re.compile("Watch the memory react live")).click()
        heading(page, LIVE).wait_for(state="visible")
        page.get_by_text("live_demo.txt: 0 of 30 messages added", exact=False).wait_for(state="visible")
        step = page.get_by_role("button", name="Step", exact=True)
        for n in range(1, 11):
            step.click()
            page.get_by_text(f"live_demo.txt: {n} of 30 messages added", exact=False).wait_for(
                state="visible")
        # the window closed in the server; the panel shows its decisions on its own
        page.get_by_text("Window 1:", exact=False).wait_for(state="visible", timeout=30_000)
        assert metric(page, "Windows processed") == "1"
        page.locator("span", has_text=re.compile("^new$")).first.wait_for(state="attached")
        page.locator('[data-testid="stPlotlyChart"]').nth(1).wait_for(state="attached")

        page.get_by_role("button", name="Play", exact=True).click()
        wait_for(lambda: messages_stored(home) >= 13, 30, "the play added messages")
        left_at = messages_stored(home)
        open_nav(page, "overview", OVERVIEW)
        time.sleep(4)
        away = messages_stored(home)
        assert away > left_at, "the play stopped when the page was left"
        open_nav(page, "live", LIVE)
        wait_for(lambda: int(metric(page, "Messages")) > away, 30,
                 "the rejoined page shows the play going on")
        page.get_by_text("Window 2:", exact=False).wait_for(state="visible", timeout=60_000)
        page.screenshot(path=SHOTS / "live_mid_demo.png", full_page=True)
        wait_for(lambda: messages_stored(home) == 30, 90, "the play reached the end")
        page.get_by_text("Window 3:", exact=False).wait_for(state="visible", timeout=60_000)
        page.locator("span", has_text=re.compile("^conflict$")).first.wait_for(state="attached")
        page.screenshot(path=SHOTS / "live_end_of_demo.png", full_page=True)
