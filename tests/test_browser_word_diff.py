"""Compare in a real browser: memories that were reworded between two runs, word by word."""

from __future__ import annotations

import re

from nemori_ui.core.store import open_store
from tests.browser_app import (SHOTS, app_server, need_chromium, open_browser, open_home,
                               open_nav, settle)
from tests.conftest import run_sample


def test_reworded_memories_show_the_words_that_differ(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    store = open_store(home)
    run_sample(store, variant="nemori-s")
    run_sample(store)                     # opened first, as the newest run
    store.close()
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="word-diff-failure.png") as page:
        open_home(page, url)
        open_nav(page, "compare", re.compile("Compare runs"))
        tab = page.get_by_role("tab", name=re.compile(r"Reworded \((\d+)\)"))
        count = int(re.search(r"\((\d+)\)", tab.inner_text()).group(1))
        assert count > 0, "the sample's two variants reword no memory"
        tab.click()
        settle(page)
        lines = page.locator(".word-diffs > div")
        lines.first.wait_for()
        assert lines.count() == min(count, 25)
        assert page.locator(".word-diffs .wd-added, .word-diffs .wd-removed").count() > 0
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / "word-diff-1280.png"), full_page=True)
