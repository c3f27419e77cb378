"""The Prediction demo in presenter mode, in a real browser: opened from a bookmark with
?present=1, across the screen in large type, one fact that Nemori predicted and did not store
at a time in a banner; Space shows the next, R the first again."""

from __future__ import annotations

import re

from tests.browser_app import (SHOTS, app_server, heading, open_browser, open_home, open_nav,
                               settle, wait_for)
from tests.browser_presenter import font_px, press, presenter_on

DEMO = re.compile("Prediction-error demo")


# a laptop's screen, then a projector's: one demo run, the presenter's bookmark opened on each
VIEWPORTS = [(1280, 800), (1920, 1080)]


def test_the_demo_presents_its_skipped_facts_one_at_a_time(tmp_path):
    with app_server(tmp_path / "home", tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=VIEWPORTS[0], failure_shot="demo-presenter.png") as page:
        open_home(page, url)
        open_nav(page, "demo", DEMO)
        page.get_by_role("button", name="Run the demo on the bundled sample").click()
        page.get_by_text("Facts told again that Nemori predicted").wait_for(timeout=120_000)
        settle(page)
        # one number for the title, the first figure and the banners: facts told in an earlier
        # session and predicted on their second telling
        title = page.get_by_role("heading", name=re.compile(r"^Prediction held \d+ facts"))
        told = int(re.search(r"held (\d+) facts", title.inner_text()).group(1))
        assert told >= 6
        figure = page.locator('[data-testid="stMetric"]', has_text="Facts predicted")
        assert figure.locator('[data-testid="stMetricValue"]').inner_text().strip() == str(told)
        normal_type = font_px(page.get_by_text("Nemori predicts each episode").first)

        for width, height in VIEWPORTS:
            page.set_viewport_size({"width": width, "height": height})
            # the presenter's bookmark
            page.goto(f"{url}/demo?present=1", wait_until="commit")
            heading(page, DEMO).wait_for(state="visible")
            settle(page)
            presenter_on(page, width)
            assert font_px(page.get_by_text("Nemori predicts each episode").first) >= \
                1.2 * normal_type
            banner = page.locator(".presenter-banner.banner-predicted")
            first = banner.inner_text()
            total = int(re.match(r"Predicted, not stored \(1 of (\d+)\)", first).group(1))
            assert total == told
            # both tellings named: the earlier session's message and the later one's
            assert re.search(r"Said in session 1 \(m\d+\)", first), first
            assert re.search(r"Again in session [2-9] \(m\d+\)", first), first
            box = banner.bounding_box()
            assert 0 <= box["y"] and box["y"] + box["height"] <= height, \
                f"the banner is out of sight at {width} px"
            page.screenshot(path=SHOTS / f"demo-presenter-{width}.png")

        press(page, " ")
        page.get_by_text(f"Predicted, not stored (2 of {total})").wait_for()
        settle(page)
        assert banner.inner_text() != first
        press(page, "r")
        page.get_by_text(f"Predicted, not stored (1 of {total})").wait_for()
        settle(page)
        assert banner.inner_text() == first
        # typing is left alone: an R in the skipped-fact picker's search restarts nothing
        press(page, " ")
        page.get_by_text(f"Predicted, not stored (2 of {total})").wait_for()
        settle(page)
        page.locator('[data-testid="stSelectbox"]', has_text="Skipped fact").locator(
            "input").type("r")
        page.keyboard.press("Escape")
        settle(page)
        assert page.get_by_text(f"Predicted, not stored (2 of {total})").is_visible()

        # the conflict Nemori's run saw is a moment of its own, in the transcript's order,
        # counted apart from the predicted facts; no banner is an episode re-reading itself
        conflict = page.locator(".presenter-banner.banner-conflict")
        shown = page.locator(".presenter-banner")
        seen = [first, shown.inner_text()]
        for _ in range(total + 1):
            press(page, " ")
            wait_for(lambda: shown.count() == 1 and shown.inner_text() != seen[-1], 30,
                     "the next moment")
            settle(page)
            if conflict.count():
                break
            seen.append(shown.inner_text())
        assert conflict.count() == 1, "no conflict among the demo's moments"
        assert re.match(r"Conflict \(1 of 1\)", conflict.inner_text())
        assert not any("approved Maya's leave" in b for b in seen), seen
        assert " replaces " in conflict.inner_text()
        page.screenshot(path=SHOTS / f"demo-presenter-conflict-{width}.png")
