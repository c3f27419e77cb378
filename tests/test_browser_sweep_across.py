"""A named sweep over two conversations in a real browser: the Tuning page shows each point's
figures as mean ± sd across the conversations and which parameter matters, and Saved runs
lists the sweep's runs as one group under its name."""

from __future__ import annotations

import re

from nemori_ui.core.store import open_store
from nemori_ui.core.store.runs import list_runs
from tests.browser_app import (RUN_HEADING, SHOTS, app_server, need_chromium, open_browser,
                               open_home, open_nav, settle, wait_for)
from tests.browser_runs import stored_run

TUNING = re.compile("Tuning")
NAME = "two talks"
MEAN_SD = re.compile(r"\d ± \d")


def runs_built(home) -> int:
    store = open_store(home)
    try:
        return sum(r.status == "done" for r in list_runs(store))
    finally:
        store.close()


def test_a_sweep_across_two_conversations(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    stored_run(home)                        # the sample at τ = 0.57: a point already stored
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="sweep-across-failure.png") as page:
        open_home(page, url)
        open_nav(page, "tuning", TUNING)
        page.get_by_role("textbox", name="Sweep name").fill(NAME)
        box = page.get_by_role("combobox", name=re.compile("Conversations"))
        box.click()
        page.get_by_role("option", name=re.compile("live_demo")).click()
        page.keyboard.press("Escape")
        page.get_by_role("textbox", name="τ values").fill("0.57,0.65")
        page.locator('[data-testid="stForm"]').scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "sweep-across-form.png")
        page.get_by_role("button", name="Run sweep").click()
        settle(page)
        page.get_by_text(re.compile(r"1 of 4 points are stored already")).wait_for()
        wait_for(lambda: runs_built(home) == 4, 180, "both points were built on both")
        page.get_by_text(re.compile(r"Sweep .* finished")).wait_for(timeout=120_000)
        settle(page)

        table = page.locator('[data-testid="stTable"]').first
        table.scroll_into_view_if_needed()
        rows = table.locator("tbody tr")
        assert rows.count() == 2, "one row per point"
        for n in range(2):
            cells = rows.nth(n).locator("td").all_inner_texts()
            assert cells[3] == "2", f"two conversations per point: {cells}"
            assert all(MEAN_SD.search(c) for c in cells[4:]), f"mean ± sd: {cells}"
        chart = page.locator('[data-testid="stPlotlyChart"]', has_text="explained")
        chart.wait_for()
        assert "tau" in chart.inner_text(), "τ's importance is drawn"
        for size in ((1280, 800), (1920, 1080)):
            page.set_viewport_size({"width": size[0], "height": size[1]})
            settle(page)
            page.get_by_text("Named sweeps").scroll_into_view_if_needed()
            page.screenshot(path=SHOTS / f"sweep-across-{size[0]}.png")

        page.set_viewport_size({"width": 1280, "height": 800})
        open_nav(page, "run", RUN_HEADING)
        group = page.locator('[data-testid="stExpander"]', has_text=f"Sweep “{NAME}”")
        group.wait_for()
        assert re.search(r"4 runs over 2 conversation", group.inner_text())
        group.locator("summary").click()
        settle(page)
        group.locator('[data-testid="stDataFrame"]').wait_for()
        # every run is a point of the sweep: no table of single runs beside the group
        saved = page.locator('[data-testid="stVerticalBlock"]', has=page.get_by_role(
            "heading", name="Saved runs")).last
        assert saved.locator('[data-testid="stDataFrame"]').count() == 1
        group.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "sweep-across-saved-runs.png")
