"""Marking a decision in a real browser: the popover on the Knowledge page's decision, the
mark listed with the engine's agreement, and the labelled set downloaded."""

from __future__ import annotations

import json
import re

from nemori_ui.core.store import marks, open_store
from tests.browser_app import (SHOTS, app_server, need_chromium, open_browser, open_home,
                               open_nav, settle)
from tests.conftest import run_sample


def test_a_decision_marked_wrong_is_listed_and_exported(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    store = open_store(home)
    run_id = run_sample(store)
    store.close()
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="marks-failure.png") as page:
        open_home(page, url)
        open_nav(page, "knowledge", re.compile("Knowledge"))
        page.get_by_role("tab", name=re.compile("decision", re.I)).first.click()
        settle(page)
        page.get_by_role("button", name=re.compile(r"Mark this decision")).first.click()
        page.get_by_text("wrong", exact=True).click()
        page.get_by_label("What it should have been (for a wrong one)").fill("chatter, not a fact")
        page.get_by_role("button", name="Save mark").click()
        page.get_by_text(re.compile(r"the engine agrees with you on 0 of 1")).wait_for()
        settle(page)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "marks-1280.png"), full_page=True)
        with page.expect_download() as download:
            page.get_by_role("button", name=re.compile(r"Export the 1 marked decision ")).click()
        (line,) = open(download.value.path()).read().splitlines()
        row = json.loads(line)
        assert (row["verdict"], row["correction"], row["stage"]) == (
            "wrong", "chatter, not a fact", "consolidate")
    stored = marks.load_marks(open_store(home), run_id)
    assert [(m.verdict, m.correction) for m in stored] == [("wrong", "chatter, not a fact")]
