"""Counts read as English on every page, in a real browser: a run of one short exchange has one
window, one episode and one memory or so, and no page says "episode(s)" or "1 episodes"."""

from __future__ import annotations

import re

from tests.browser_app import (RUN_HEADING, SHOTS, app_server, every_page_and_tab,
                               need_chromium, open_browser, open_home, open_nav, settle)
from tests.browser_runs import stored_run

SHORT = (b"[2024-05-01 09:00] Priya: I adopted a grey cat called Miso last week.\n"
         b"[2024-05-01 09:01] Tomas: Lovely! Does Miso like the balcony?\n"
         b"[2024-05-01 09:02] Priya: She sleeps there every afternoon.\n")
NOUNS = ("episode", "message", "conversation", "point", "window", "question", "call", "run",
         "insight", "result", "request", "version", "statement", "cut", "memory",
         "marked decision", "decision", "evaluation", "task")
GUESSED = re.compile(r"\b\w+\((s|es|ies)\)")
ONE_MANY = re.compile(r"(?<![\d.,·-])\b1 (?:semantic |earlier |repeated )?(" + "|".join(
    "memories" if n == "memory" else n + "s" for n in NOUNS) + r")\b")
MAIN_TEXT = "() => document.querySelector('[data-testid=\"stMain\"]').innerText"


def wrong_counts(text: str) -> list[str]:
    return [m.group(0) for m in GUESSED.finditer(text)] + \
           [m.group(0) for m in ONE_MANY.finditer(text)]


def test_wrong_counts_are_found():
    assert wrong_counts("2 episode(s) · 1 episodes · 1 semantic memories · 3 runs") == \
        ["episode(s)", "1 episodes", "1 semantic memories"]
    assert wrong_counts("1 episode · 0.1 points · 11 runs · 2 of 1 windows") == ["1 windows"]


def test_every_page_counts_in_words(tmp_path):
    need_chromium()
    home = tmp_path / "home"
    stored_run(home, SHORT, source="pets.txt")
    found: dict[str, list[str]] = {}
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="plurals-failure.png") as page:
        open_home(page, url)
        for stem, tab in every_page_and_tab(page):
            wrong = wrong_counts(page.evaluate(MAIN_TEXT))
            if wrong:
                found.setdefault(stem, []).extend(wrong)
                if tab is None:
                    page.screenshot(path=SHOTS / f"plurals-{stem}.png")
        # the Run page's preview of an upload of one conversation
        open_nav(page, "run", RUN_HEADING)
        page.get_by_text("Upload a file", exact=True).click()
        settle(page)
        page.locator('[data-testid="stFileUploader"] input[type=file]').set_input_files(
            files=[{"name": "pets.txt", "mimeType": "text/plain", "buffer": SHORT}])
        page.get_by_text(re.compile(r"^Format: ")).wait_for()
        settle(page)
        preview = page.get_by_text(re.compile(r"^Format: ")).inner_text()
        if not preview.endswith("· 1 conversation"):
            found["run upload"] = [preview]
    assert not found, found
