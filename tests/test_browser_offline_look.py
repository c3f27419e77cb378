"""The app's look in a real browser, offline: no request leaves the machine (the tab icon
included), a browser that prefers dark gets the dark theme, counts read "1 conflict", Ask's
example question names the run's own speaker, and a new session opens on the run viewed last
rather than on the newest."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from tests.browser_app import (app_server, need_chromium, open_browser, open_home, open_nav,
                               settle, SHOTS)
from tests.browser_runs import stored_run

OTHER = (b"[2024-05-01 09:00] Priya: I adopted a grey cat called Miso last week.\n"
         b"[2024-05-01 09:01] Tomas: Lovely! Does Miso like the balcony?\n"
         b"[2024-05-01 09:02] Priya: She sleeps there every afternoon.\n")
BACKGROUND = """() => getComputedStyle(document.querySelector('[data-testid="stApp"]'))
  .backgroundColor"""


def brightness(css: str) -> float:
    r, g, b = (int(x) for x in re.findall(r"\d+", css)[:3])
    return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255


def pick_run(page, run_id: str) -> None:
    picker = page.locator('[data-testid="stSidebar"]').get_by_role("combobox", name="Run")
    picker.click()
    page.keyboard.type(run_id)
    page.keyboard.press("Enter")
    settle(page)


def test_offline_dark_and_the_run_last_viewed(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    sample = stored_run(home)
    other = stored_run(home, OTHER, source="pets.txt")        # the newest
    requests: list[str] = []
    with app_server(home, tmp_path / "streamlit.log") as (url, _):
        # a tab of its own, with nothing cached that would keep a request from being seen
        with open_browser(viewport=(1280, 800), failure_shot="offline-look-failure.png",
                          fresh=True) as page:
            page.emulate_media(color_scheme="dark")
            page.on("request", lambda r: requests.append(r.url))
            open_home(page, url)
            page.wait_for_timeout(1500)       # the tab icon is asked for after the first draw
            page.screenshot(path=SHOTS / "offline-dark-overview.png")
            assert brightness(page.evaluate(BACKGROUND)) < 0.3, page.evaluate(BACKGROUND)
            open_nav(page, "ask", re.compile("Ask"))
            box = page.get_by_role("textbox", name="Question")
            placeholder = box.get_attribute("placeholder")
            assert "Priya" in placeholder and "Maya" not in placeholder, placeholder
            pick_run(page, sample)
            open_nav(page, "overview", re.compile("Nemori Inspector"))
            caption = page.get_by_text(re.compile(r"^Consolidation: ")).inner_text()
            assert "1 conflicts" not in caption and re.search(r"\b1 conflict\b", caption), caption
        with open_browser(viewport=(1280, 800), failure_shot="offline-look-second.png") as page:
            open_home(page, url)
            shown = page.locator('[data-testid="stSidebar"]').get_by_role(
                "combobox", name="Run").input_value()
            assert shown.endswith(sample) and not shown.endswith(other), shown
    away = sorted({u for u in requests if urlparse(u).hostname not in ("127.0.0.1", "localhost")
                   and not u.startswith(("data:", "blob:"))})
    assert not away, f"requests left the machine: {away}"
    icons = [u for u in requests if "favicon" in u or "media" in u]
    assert icons, "no tab icon was asked for"
