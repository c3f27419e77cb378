"""Tuning and Run in a real browser: the sweep form keeps the last sweep's values when the page
is left and opened again, a point already stored is not run again, and the Run page offers the
stored run of the same transcript and settings instead of building it a second time."""

from __future__ import annotations

import re

from nemori_ui.core.store import open_store
from nemori_ui.core.store.runs import list_runs
from tests.browser_app import (RUN_HEADING, SHOTS, app_server, need_chromium, open_browser,
                               open_home, open_nav, settle, wait_for)
from tests.browser_runs import stored_run

TUNING = re.compile("Tuning")


def taus(home) -> list[float]:
    store = open_store(home)
    try:
        return sorted(r.config.tau for r in list_runs(store))
    finally:
        store.close()


def test_a_sweep_is_remembered_and_never_built_twice(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    stored_run(home)                        # the defaults: τ = 0.57
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="sweep-memory-failure.png") as page:
        open_home(page, url)
        open_nav(page, "tuning", TUNING)
        box = page.get_by_role("textbox", name="τ values")
        box.fill("0.57,0.65")
        page.get_by_role("button", name="Run sweep").click()
        settle(page)
        page.get_by_text(re.compile(r"1 of 2 points are stored already")).wait_for()
        wait_for(lambda: taus(home) == [0.57, 0.65], 120, "the missing point was built")
        page.get_by_text(re.compile(r"Sweep .* finished")).wait_for(timeout=120_000)

        open_nav(page, "overview", re.compile("Nemori Inspector"))
        open_nav(page, "tuning", TUNING)
        assert box.input_value() == "0.57,0.65", "the form forgot the last sweep"
        page.get_by_role("button", name="Run sweep").click()
        settle(page)
        page.get_by_text(re.compile(r"2 of 2 points are stored already")).wait_for()
        page.screenshot(path=SHOTS / "sweep-memory.png")

        open_nav(page, "run", RUN_HEADING)
        offer = page.get_by_text(re.compile(r"was built from this transcript with these settings"))
        offer.wait_for()
        page.get_by_role("button", name="Open it", exact=True).scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "run-offers-existing.png")
        page.get_by_role("button", name="Open it", exact=True).click()
        page.get_by_text(re.compile(r"^Opened ")).wait_for()
    assert taus(home) == [0.57, 0.65], "a run was built twice"
