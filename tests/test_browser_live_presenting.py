"""The Live page as a presenter uses it, in a real browser at 1280×800: the buffer and the
newest decisions show without scrolling, Step's row hides nothing, a play's "predicted, not
stored" or conflict moment can be gone back to after the play ends, Load after a play says why Step and
Play are off and offers a fresh play, the Messages metric keeps up, and a message typed after
the script is dated after it. In presenter mode: the page across the screen in large type, a
banner at each "predicted, not stored" moment and conflict, Space steps, R restarts, and
?present=1 in the address keeps it on."""

from __future__ import annotations

import re
from datetime import timedelta

from nemori_ui.core.store import open_store, records
from nemori_ui.core.store.runs import list_runs
from tests.browser_app import (SHOTS, app_server, heading, open_browser, open_home, settle,
                               wait_for)
from tests.browser_presenter import font_px, press, presenter_on
from tests.test_browser_live import metric
from tests.test_browser_text_fits import CUT

LIVE = re.compile(r"^\s*Live\s*$")
WIDTH, HEIGHT = 1280, 800


def in_view(page, locator) -> bool:
    box = locator.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT


def overlaps(a: dict, b: dict) -> bool:
    return not (a["x"] + a["width"] <= b["x"] or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"] or b["y"] + b["height"] <= a["y"])


def stored_messages(home):
    store = open_store(home)
    try:
        runs = [r for r in list_runs(store) if r.name.startswith("live demo")]
        return [records.load_messages(store, r.id) for r in runs]
    finally:
        store.close()


def open_live_demo(page, url: str) -> None:
    """The Live page with the demo script loaded, from the first page's button."""
    open_home(page, url)
    page.get_by_role("button", name=re.compile("Watch the memory react live")).click()
    heading(page, LIVE).wait_for(state="visible")
    page.get_by_text("live_demo.txt: 0 of 30 messages added", exact=False).wait_for()
    settle(page)


def test_the_live_page_serves_a_presenter(tmp_path):
    home, log = tmp_path / "home", tmp_path / "streamlit.log"
    with app_server(home, log) as (url, _), \
            open_browser(viewport=(WIDTH, HEIGHT), failure_shot="live-presenting.png") as page:
        open_live_demo(page, url)
        step = page.get_by_role("button", name="Step", exact=True)
        speed = page.locator('[data-testid="stSlider"]', has_text="Seconds per message")
        step.hover()
        page.wait_for_timeout(800)      # a tooltip shows after a short delay
        tips = page.locator('[data-testid="stTooltipContent"]')
        for i in range(tips.count()):
            if tips.nth(i).is_visible():
                assert not overlaps(tips.nth(i).bounding_box(), speed.bounding_box()), \
                    "Step's tooltip covers the speed slider"
        for n in range(1, 11):
            step.click()
            page.get_by_text(f"live_demo.txt: {n} of 30 messages added", exact=False).wait_for()
            settle(page)
            assert metric(page, "Messages") == str(n), "the Messages metric lags the feed"
        page.get_by_text("Window 1:", exact=False).wait_for(timeout=30_000)
        settle(page)
        page.screenshot(path=SHOTS / "live-presenting-window1.png")
        assert in_view(page, page.get_by_text("Buffer", exact=True).first), "buffer below the fold"
        chip = page.locator("span", has_text=re.compile("^new$")).first
        assert in_view(page, chip), "the newest decisions are below the fold"

        # play the rest fast: the slider's lowest speed
        speed.get_by_role("slider").focus()
        page.keyboard.press("Home")
        settle(page)
        page.get_by_role("button", name="Play", exact=True).click()
        # while it plays, not only in presenter mode: the buffer and the newest decisions
        page.get_by_text(re.compile(r"messages added · playing")).first.wait_for()
        wait_for(lambda: int(metric(page, "Messages")) >= 12, 30, "the play adds messages")
        pause = page.get_by_role("button", name="Pause", exact=True)
        assert pause.is_visible() and not pause.evaluate(CUT), "Pause is cut short"
        assert in_view(page, page.get_by_text("Buffer", exact=True).first), \
            "buffer below the fold while playing"
        assert in_view(page, page.locator(".live-newest").first), "newest window below the fold"
        assert in_view(page, page.locator("span", has_text=re.compile("^new$")).first), \
            "the newest decisions are below the fold while playing"
        page.screenshot(path=SHOTS / "live-playing-1280.png")
        wait_for(lambda: sum(len(m) for m in stored_messages(home)) == 30, 90, "the play ended")
        page.get_by_text("Window 3:", exact=False).wait_for(timeout=60_000)
        settle(page)
        # the play has moved on past the earlier windows' moments: go back to one, and it
        # stays while the panel refreshes
        windows = page.get_by_role("radiogroup", name="Window").get_by_role("radio")
        # the script tells facts again in its second and third sessions: each predicted from
        # the session that first told it, none re-read from its own episode
        assert [windows.nth(i).inner_text() for i in range(windows.count())] == \
            ["1", "2 · predicted", "3 · predicted · conflict"]
        assert int(metric(page, "Predicted")) >= 3, "the facts told again were not predicted"
        windows.nth(0).click()
        settle(page)
        page.get_by_text(re.compile(r"^Window 1: ")).wait_for()
        page.wait_for_timeout(7_000)
        assert page.get_by_text(re.compile(r"^Window 1: ")).is_visible()
        page.screenshot(path=SHOTS / "live-presenting-back.png")

        # typed after a script dated 2024: dated right after the script, not today
        page.get_by_text("Type a message as either speaker").click()
        page.get_by_role("textbox", name="Message").fill("We should meet in Porto.")
        page.get_by_role("button", name="Send").click()
        wait_for(lambda: len(stored_messages(home)[0]) == 31, 30, "the typed message stored")
        settle(page)
        script_end, typed = stored_messages(home)[0][-2:]
        assert timedelta(0) < typed.timestamp - script_end.timestamp <= timedelta(minutes=5), \
            (script_end.timestamp, typed.timestamp)

        page.get_by_role("button", name="Load", exact=True).click()
        settle(page)
        page.get_by_text(re.compile("All of live_demo.txt is in this memory")).wait_for()
        assert not step.is_enabled()
        page.get_by_role("button", name="Replay in a new memory").click()
        page.get_by_text("live_demo.txt: 0 of 30 messages added", exact=False).wait_for()
        settle(page)
        assert step.is_enabled(), "a fresh play of the script cannot be stepped"
        step.click()
        page.get_by_text("live_demo.txt: 1 of 30 messages added", exact=False).wait_for()
    assert sorted(len(m) for m in stored_messages(home)) == [1, 31]


def test_presenter_mode_on_the_live_page(tmp_path):
    home, log = tmp_path / "home", tmp_path / "streamlit.log"
    with app_server(home, log) as (url, _), \
            open_browser(viewport=(WIDTH, HEIGHT), failure_shot="live-presenter.png") as page:
        open_live_demo(page, url)
        normal_type = font_px(page.get_by_text("Buffer", exact=True).first)
        toggle = page.locator(".st-key-presenter_toggle [data-testid='stMarkdownContainer']")
        assert not toggle.evaluate(CUT), f"the toggle's label is cut: {toggle.inner_text()!r}"
        page.get_by_text("Presenter mode", exact=True).click()
        page.wait_for_url(re.compile(r"[?&]present=1"))
        settle(page)
        presenter_on(page, WIDTH)
        assert font_px(page.get_by_text("Buffer", exact=True).first) >= 1.2 * normal_type

        # the sample's second window holds a statement its prediction already held
        page.locator('[data-testid="stSelectbox"]', has_text="Transcript to play").click()
        page.get_by_role("option", name="Bundled sample").click()
        settle(page)
        page.get_by_role("button", name="Load", exact=True).click()
        page.get_by_text("sample_conversation.txt: 0 of 95 messages added", exact=False).wait_for()
        settle(page)
        press(page, " ")
        page.get_by_text("sample_conversation.txt: 1 of 95 messages added", exact=False).wait_for()
        settle(page)
        assert metric(page, "Messages") == "1", "Space did not step"

        speed = page.locator('[data-testid="stSlider"]', has_text="Seconds per message")
        speed.get_by_role("slider").focus()
        page.keyboard.press("Home")
        settle(page)
        page.get_by_role("button", name="Play", exact=True).click()
        banner = page.locator(".presenter-banner.banner-predicted")
        banner.wait_for(timeout=90_000)
        # the first fact the sample tells again: said in its first session, predicted in its
        # second, with both messages named (never an episode re-reading its own first part)
        assert banner.inner_text().startswith("Window 4: predicted, not stored")
        assert "said in session 1 (m0003), again in session 2 (m0036)" in banner.inner_text()
        assert "approved Maya's leave" not in banner.inner_text()
        assert page.get_by_role("button", name="Pause", exact=True).is_visible(), \
            "the play ended before the banner showed"
        page.screenshot(path=SHOTS / "live-presenter-banner-1280.png")
        # while it plays: the banner, the buffer and the newest decisions, all without scrolling
        assert in_view(page, banner), "the banner is out of sight"
        assert in_view(page, page.get_by_text("Buffer", exact=True).first), "buffer out of sight"
        # (while a redraw is on its way the old heading may show beside the new one)
        newest = page.locator(".live-newest").first
        # the panel redraws as the play goes on: in view once it has drawn
        wait_for(lambda: newest.inner_text().startswith("Window ") and in_view(page, newest),
                 10, "the newest window's decisions in view")
        assert in_view(page, page.locator("span", has_text=re.compile("^new$")).first), \
            "the newest decisions are out of sight"
        log = page.locator('[data-testid="stTable"]').first
        assert int(log.locator("tbody tr").first.inner_text().split()[0]) >= 4, \
            "the windows log does not say which window a row is"

        # scrolled away, the page comes back to the newest decisions when a window closes
        page.mouse.move(WIDTH / 2, HEIGHT / 2)
        page.mouse.wheel(0, 4000)
        wait_for(lambda: not in_view(page, newest), 10, "scrolled away from the decisions")
        done = int(metric(page, "Windows processed"))
        wait_for(lambda: in_view(page, newest) and not newest.inner_text().startswith(
            f"Window {done}:"), 60, "the newest decisions scrolled back into view")

        # the sample's sixth window contradicts a memory: its banner, gone back to
        wait_for(lambda: int(metric(page, "Windows processed")) >= 6, 90, "window 6 closed")
        page.get_by_role("radiogroup", name="Window").get_by_role(
            "radio", name=re.compile(r"^6 · conflict")).click()
        conflict = page.locator(".presenter-banner.banner-conflict")
        conflict.wait_for()
        assert conflict.inner_text().startswith("Window 6: conflict")
        assert in_view(page, conflict)
        page.set_viewport_size({"width": 1920, "height": 1080})
        settle(page)
        page.screenshot(path=SHOTS / "live-presenter-conflict-1920.png")
        page.set_viewport_size({"width": WIDTH, "height": HEIGHT})

        # R: the script again from its first message, in a new memory; the old play stops
        press(page, "r")
        page.get_by_text("sample_conversation.txt: 0 of 95 messages added", exact=False).wait_for()
        settle(page)
        assert page.get_by_role("button", name="Play", exact=True).is_enabled()
        fed = sorted(len(m) for m in stored_messages(home))
        assert fed[0] == 0 and len(fed) == 2, fed
        page.wait_for_timeout(2_000)
        assert sorted(len(m) for m in stored_messages(home)) == fed, "the old play went on"

        # a bookmark: the address says ?present=1, and a fresh load opens in presenter mode
        assert "present=1" in page.url
        page.goto(page.url, wait_until="commit")
        heading(page, LIVE).wait_for(state="visible")
        settle(page)
        presenter_on(page, WIDTH)
        page.screenshot(path=SHOTS / "live-presenter-reloaded-1280.png")
