"""Presenter mode as a browser test sees it: the page across the screen, its type size, and
a key pressed with nothing focused, as a presenter presses it."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse


def font_px(locator) -> float:
    return float(locator.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))


def presenter_on(page, width: int) -> None:
    """Presenter mode shows: no sidebar, the page across the screen, ?present=1 in the address."""
    assert parse_qs(urlparse(page.url).query).get("present") == ["1"], page.url
    assert not page.locator('[data-testid="stSidebar"]').is_visible(), "the sidebar still shows"
    box = page.locator('[data-testid="stMainBlockContainer"]').bounding_box()
    assert box["width"] >= width - 20, f"the page is {box['width']} px wide, not full width"
    assert page.get_by_role("switch", name="Presenter mode").is_checked()


def press(page, key: str) -> None:
    """The key pressed on the page itself, not into whatever was clicked last."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    page.keyboard.press(key)
