"""End to end in a real browser: the app served by `streamlit run`, driven by Playwright + Chromium.

Runs the bundled sample from the Run page, visits every page through the sidebar, uploads a
malformed transcript, and records how long each step took (printed, and written to
tests/output/browser_timings.json) with a screenshot per page in tests/output/screenshots/.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path


from nemori_ui.ui.layout import PAGES
from tests.browser_app import (NEXT_FRAMES, OUTPUT, ROOT, RUN_HEADING, SHOTS, app_server,
                               heading, nav_link, need_chromium, open_browser, settle)
from tests.test_app_run import title_pattern

# What each page must show once the sample has run, besides its title. Extend as pages land.
# A page whose file still says it is a placeholder gets only the title and exception checks.
CONTENT = {
    "pages/overview.py": ["could not predict", "Current run"],
    "pages/run.py": ["Bundled sample", "Saved runs"],
    "pages/partitions.py": ["Cuts and their reasons", "Windows partitioned"],
    "pages/episodes.py": ["Maya"],
    "pages/prediction_error.py": ["τ", "How each raw line was read"],
    "pages/knowledge.py": [],
    "pages/memory_map.py": [],
    "pages/ask.py": [],
    "pages/calls.py": [],
    "pages/demo.py": [],
    "pages/tuning.py": [],
    "pages/compare.py": [],
    "pages/timeline.py": [],
    "pages/evaluation.py": [],
}
PLACEHOLDER_MARK = "Placeholder until the page is written"
BROKEN = ("broken.jsonl", b'{"speaker": "Maya", "text": "hi"}\n{"speaker": "Jonas", text}\n')


def inspect_page(page, path: str, shot: str, expected: list[str] | None = None) -> list[str]:
    """Screenshot the whole page and check it; returns what is wrong with it.

    Streamlit scrolls inside its main block, so the viewport grows to the content for both:
    tables off screen do not draw their cells.
    """
    size = page.viewport_size
    height = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]')"
                           ".scrollHeight")
    page.set_viewport_size({"width": size["width"],
                            "height": min(max(height, size["height"]), 8000)})
    try:
        page.evaluate(NEXT_FRAMES)
        settle(page)
        page.screenshot(path=SHOTS / shot)
        return page_problems(page, path, expected)
    finally:
        page.set_viewport_size(size)


def is_placeholder(path: str) -> bool:
    return PLACEHOLDER_MARK in (ROOT / path).read_text(encoding="utf-8")


def page_problems(page, path: str, expected: list[str] | None = None) -> list[str]:
    problems = []
    boxes = page.locator('[data-testid="stException"]')
    for i in range(boxes.count()):
        problems.append(f"{path}: exception shown: {boxes.nth(i).inner_text()[:500]}")
    if is_placeholder(path):
        return problems
    # text_content, not inner_text: table cells are drawn on a canvas and only the hidden
    # accessible copy of the table holds their text
    main = page.locator('[data-testid="stMain"]').text_content()
    wanted = CONTENT.get(path, []) if expected is None else expected
    problems += [f"{path}: expected {text!r} on the page" for text in wanted if text not in main]
    return problems


def report(timings: dict) -> None:
    OUTPUT.mkdir(parents=True, exist_ok=True)
    (OUTPUT / "browser_timings.json").write_text(json.dumps(timings, indent=2) + "\n")
    print("\nbrowser timings (s)")
    for key in ("server_start", "browser_launch", "first_paint", "sample_run", "bad_upload"):
        print(f"  {key.replace('_', ' '):<30}{timings[key]:7.2f}")
    for title, seconds in timings["page_switch"].items():
        print(f"  {'switch to ' + title:<30}{seconds:7.2f}")


def test_browser_end_to_end(tmp_path):
    need_chromium()
    SHOTS.mkdir(parents=True, exist_ok=True)
    timings: dict = {"page_switch": {}}
    problems: list[str] = []

    started = time.perf_counter()
    with app_server(tmp_path / "home", tmp_path / "streamlit.log") as (url, _):
        timings["server_start"] = time.perf_counter() - started
        started = time.perf_counter()
        with open_browser() as page:
            timings["browser_launch"] = time.perf_counter() - started
            started = time.perf_counter()
            page.goto(url, wait_until="commit")
            heading(page, re.compile("Nemori Inspector")).wait_for(state="visible")
            timings["first_paint"] = time.perf_counter() - started
            settle(page)
            problems += inspect_page(page, "pages/overview.py", "00-overview-no-run.png",
                                     ["could not predict"])

            nav_link(page, 1).click()
            heading(page, RUN_HEADING).wait_for(state="visible")
            settle(page)
            assert page.get_by_text("Bundled sample", exact=True).is_visible()

            started = time.perf_counter()
            page.get_by_role("button", name="Run", exact=True).click()
            page.get_by_text(re.compile(r"Run \S+ finished")).wait_for(state="visible")
            timings["sample_run"] = time.perf_counter() - started
            settle(page)
            boxes = page.locator('[data-testid="stException"]')
            assert boxes.count() == 0, boxes.first.inner_text()

            for i, (path, title, *_) in enumerate(PAGES):
                link = nav_link(page, i)
                assert link.inner_text().strip().endswith(title), link.inner_text()
                started = time.perf_counter()
                link.click()
                heading(page, title_pattern(path, title)).wait_for(state="visible")
                settle(page)
                timings["page_switch"][title] = time.perf_counter() - started
                problems += inspect_page(page, path, f"{i + 1:02d}-{Path(path).stem}.png")

            nav_link(page, 1).click()
            heading(page, RUN_HEADING).wait_for(state="visible")
            settle(page)
            page.get_by_text("Upload a file", exact=True).click()
            settle(page)
            uploader = page.locator('[data-testid="stFileUploader"] input[type=file]')
            started = time.perf_counter()
            uploader.set_input_files(files=[{"name": BROKEN[0], "mimeType": "application/json",
                                             "buffer": BROKEN[1]}])
            error = page.locator('[data-testid="stAlert"]', has_text=BROKEN[0]).first
            error.wait_for(state="visible")
            timings["bad_upload"] = time.perf_counter() - started
            settle(page)
            problems += inspect_page(page, "pages/run.py",
                                     f"{len(PAGES) + 1:02d}-run-bad-upload.png", ["Upload a file"])
            message = error.inner_text()
            if "line 2" not in message:
                problems.append(f"the upload error does not name the line: {message!r}")
            if page.get_by_role("button", name="Run", exact=True).count():
                problems.append("Run is offered for a file that cannot be read")

    report(timings)
    assert not problems, "\n".join(problems)


def test_a_page_link_opened_first_after_a_restart(tmp_path):
    """A bookmark opened as the first request after a start: the page, the app's own menu
    (no automatic pages/ menu with an "app" entry), and its Overview link works."""
    need_chromium()
    with app_server(tmp_path / "home", tmp_path / "streamlit.log") as (url, _), \
            open_browser() as page:
        page.goto(f"{url}/episodes", wait_until="commit")
        heading(page, title_pattern("pages/episodes.py", "Episodes")).wait_for(state="visible")
        settle(page)
        links = page.locator('[data-testid="stSidebarNav"] a')
        first = links.first.inner_text().strip()
        titles = [links.nth(i).inner_text().strip() for i in range(links.count())]
        assert first.endswith(PAGES[0][1]), f"the sidebar starts with {first!r}"
        assert not [t for t in titles if t.endswith("app")], titles
        links.first.click()
        heading(page, re.compile("Nemori Inspector")).wait_for(state="visible")
        settle(page)
        assert not page.get_by_text("Page not found").count()
