"""What-if τ in a real browser: re-run the sample at another τ, and the memories that the
re-run holds otherwise than the run it came from show word by word, as on Compare."""

from __future__ import annotations

import re

import pytest

from nemori_ui.core.store import open_store
from tests.browser_app import (SHOTS, app_server, need_chromium, open_browser, open_home,
                               open_nav, settle)
from tests.conftest import run_sample

WHATIF_TAU = 0.90     # on the sample, two memories come out worded otherwise at this τ


@pytest.mark.parametrize("viewport", [(1280, 800), (1920, 1080)])
def test_a_whatif_rerun_shows_its_changed_memories_word_by_word(tmp_path, viewport):
    need_chromium()
    home = tmp_path / "home"
    store = open_store(home)
    base = run_sample(store)
    store.close()
    width = viewport[0]
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=viewport, failure_shot=f"whatif-diff-{width}.png") as page:
        open_home(page, url)
        open_nav(page, "tuning", re.compile("Tuning"))
        page.get_by_role("tab", name="What-if τ").click()
        settle(page)
        box = page.locator(".st-key-whatif_tau")
        shown = box.locator('[data-testid="stSliderThumbValue"]')
        start = float(shown.inner_text())
        box.get_by_role("slider").focus()
        for _ in range(round((WHATIF_TAU - start) * 100)):
            page.keyboard.press("ArrowRight")
        settle(page)
        assert float(shown.inner_text()) == pytest.approx(WHATIF_TAU)
        page.get_by_role("button", name=f"Re-run at τ = {WHATIF_TAU:.2f}").click()
        page.get_by_text(re.compile(rf"at τ = {WHATIF_TAU:.2f} finished")).wait_for(
            timeout=120_000)
        settle(page)
        page.get_by_text(f"Memories that differ from run {base}").wait_for()
        lines = page.locator(".word-diffs > div")
        assert lines.count() >= 1, "no memory shown word by word"
        # at this τ the re-run's memories say less than the run's: words struck through
        # (both kinds of mark are checked on Compare, tests/test_browser_word_diff.py)
        assert page.locator(".word-diffs .wd-removed").count() > 0
        for text in lines.all_inner_texts():
            assert not re.search(r"[.!?][A-Z]", text), f"two sentences run together: {text}"
        caption = page.get_by_text(re.compile(r"^Word by word.*the re-run at τ = 0\.90 adds"))
        assert caption.is_visible()
        lines.first.scroll_into_view_if_needed()
        # the Re-run button's tooltip, shown while it is hovered or focused, off the diff
        page.mouse.move(width - 5, 5)
        page.evaluate("document.activeElement && document.activeElement.blur()")
        page.wait_for_timeout(500)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"whatif-diff-{width}.png"))
