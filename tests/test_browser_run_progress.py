"""The Run page while a run goes on, in a real browser: every progress text on the page names
the same window (the Jobs row and the bar under Run once disagreed), and no saved-run control
shows up among the run's settings while the page reruns."""

from __future__ import annotations

import re
import time

from tests.browser_app import (RUN_HEADING, SHOTS, app_server, need_chromium, open_browser,
                               open_home, open_nav, settle)

LINES = 600           # 30 windows of w = 20
WINDOW_TEXT = re.compile(r"window (\d+) of (\d+)")
# every "window n of m" on the page, and whether a Rename button comes before Saved runs
SAMPLE = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const texts = [...main.querySelectorAll('[data-testid="stProgress"], p')]
    .map(e => e.innerText).filter(t => /window \\d+ of \\d+/.test(t));
  const saved = [...main.querySelectorAll('h3')].find(h => h.innerText.trim() === 'Saved runs');
  const early = [...main.querySelectorAll('button')].filter(b => /^Rename/.test(b.innerText))
    .filter(b => !saved || (saved.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_PRECEDING));
  return {texts, early: early.length};
}"""


def transcript() -> bytes:
    people = ("Maya", "Jonas")
    return "\n".join(f"[2024-03-{1 + i // 60:02d} {8 + (i % 60) // 6:02d}:{(i % 6) * 10:02d}] "
                     f"{people[i % 2]}: On day {i} I cycled {i % 17 + 3} km and read chapter "
                     f"{i % 23 + 1} of a book about {('birds', 'rivers', 'bread')[i % 3]}."
                     for i in range(LINES)).encode()


def test_progress_agrees_and_controls_stay_in_their_part(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="run-progress-failure.png") as page:
        open_home(page, url)
        open_nav(page, "run", RUN_HEADING)
        page.get_by_text("Upload a file", exact=True).click()
        settle(page)
        page.locator('[data-testid="stFileUploader"] input[type=file]').set_input_files(
            files=[{"name": "long.txt", "mimeType": "text/plain", "buffer": transcript()}])
        page.get_by_role("button", name="Run", exact=True).wait_for()
        settle(page)
        page.get_by_role("button", name="Run", exact=True).click()
        disagree, early, seen = [], 0, set()
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            sample = page.evaluate(SAMPLE)
            windows = {m.group(0) for t in sample["texts"] for m in WINDOW_TEXT.finditer(t)}
            seen |= windows
            if len(windows) > 1:
                disagree.append(sorted(windows))
                page.screenshot(path=SHOTS / "run-progress-disagree.png")
            early += sample["early"]
            if page.get_by_text(re.compile(r"Run \S+ finished")).count():
                break
            time.sleep(0.1)
        assert page.get_by_text(re.compile(r"Run \S+ finished")).count(), "the run did not end"
    assert len(seen) > 3, f"the progress was hardly seen: {seen}"
    assert not disagree, f"progress texts disagree: {disagree[:5]}"
    assert not early, "a Rename button showed among the run's settings"
