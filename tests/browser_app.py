"""The app in a real browser, for the browser tests: `streamlit run app.py` with its own home
folder, Debian's Chromium driven by Playwright (tests/browser_session.py), and waiting for a
page to settle.

    with app_server(home, log) as (url, proc), open_browser() as page:
        page.goto(url, wait_until="commit")
        ...
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from nemori_ui.ui.layout import PAGES

from tests.browser_session import (CHROMIUM, CHROMIUM_ARGS, OUTPUT, ROOT, SHOTS,  # noqa: F401
                                   STEP_MS, close_shared_browser, need_chromium, open_browser,
                                   playwright_api, shared_browser)

SERVER_START_S = 60
UMAP_S = 300         # UMAP's kernels compiled on a busy 2-core machine, then the layout
RUN_HEADING = re.compile(r"^\s*Run\s*$")
PAGE_INDEX = {Path(p[0]).stem: i for i, p in enumerate(PAGES)}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


_PORT: list[int] = []


def app_port() -> int:
    """The port this process's app servers listen on: the same one whenever it is free, so the
    kept tab (tests/browser_session.py) stays on one origin and reuses the app's scripts it has
    compiled; a free one when it is taken (two servers at once)."""
    if _PORT:
        with socket.socket() as sock:
            # as Tornado binds: a closed server's connections in TIME_WAIT do not count
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", _PORT[0]))
                sock.listen()
                return _PORT[0]
            except OSError:
                return free_port()
    _PORT.append(free_port())
    return _PORT[0]


@contextmanager
def app_server(home: Path, log: Path):
    """`streamlit run app.py` with NEMORI_HOME=home, output appended to log; yields (url,
    process) once it answers its health check, so a test can also kill it."""
    port = app_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["NEMORI_HOME"] = str(home)
    # No file watcher: an edit to a page elsewhere in the checkout must not rerun this session.
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    with open(log, "ab") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if proc.poll() is not None:
                pytest.fail(f"streamlit exited with {proc.returncode}:\n{log.read_text()}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                    if reply.read().decode().strip() == "ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"streamlit did not answer within {SERVER_START_S} s:\n"
                            f"{log.read_text()}")
            time.sleep(0.2)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def started_by(pid: int) -> set[int]:
    """The live child processes of `pid`, started by any of its threads (Streamlit starts the
    map's layout process from a script thread, not its main one)."""
    return {int(c) for t in Path(f"/proc/{pid}/task").iterdir()
            for c in (t / "children").read_text().split()}


# A page is ready when its script run has ended, no element is a stale leftover of the previous
# run or a skeleton waiting for its code, and charts and tables have drawn.
PENDING = """() => {
  const why = [];
  const app = document.querySelector('[data-testid="stApp"]');
  const state = app && app.getAttribute('data-test-script-state');
  if (state !== 'notRunning') why.push('script ' + state);
  const count = sel => document.querySelectorAll(sel).length;
  if (count('[data-testid="stSkeleton"], [data-testid="stSkeletonElement"]'))
    why.push('skeletons');
  if (count('[data-testid="stElementContainer"][data-stale="true"]')) why.push('stale elements');
  // closed expanders and inactive tabs draw nothing until opened
  const undrawn = (sel, inner) => [...document.querySelectorAll(sel)]
    .filter(e => e.checkVisibility() && !e.querySelector(inner)).length;
  if (undrawn('[data-testid="stPlotlyChart"]', '.main-svg')) why.push('plotly charts');
  if (undrawn('[data-testid="stDataFrame"]', 'canvas')) why.push('dataframes');
  if (undrawn('[data-testid="stVegaLiteChart"]', 'canvas, svg')) why.push('vega charts');
  return why;
}"""
READY = f"() => ({PENDING})().length === 0"
NEXT_FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def settle(page) -> None:
    """Wait until the script run that the last action started has finished and drawn.

    Call it after waiting for something the action must produce: right after a click the
    previous run's page still looks finished.
    """
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden", timeout=STEP_MS)
    try:
        page.wait_for_function(READY, timeout=STEP_MS)
    except playwright_api.TimeoutError:
        raise AssertionError(f"{page.url} never settled: {page.evaluate(PENDING)}") from None


def heading(page, pattern: re.Pattern):
    return page.locator("h1", has_text=pattern).first


def nav_link(page, index: int):
    """The sidebar's link to PAGES[index], expanding the list when it is cut short."""
    more = page.locator('[data-testid="stSidebarNavViewButton"]')
    if more.count() and "more" in more.inner_text().lower():
        more.click()
    return page.locator('[data-testid="stSidebarNav"] a').nth(index)


def every_page_and_tab(page, *, on_overview: bool = True):
    """Open every page from the sidebar and every tab on it, each settled, as a reader clicks
    through them; yields (stem, tab) after each tab and (stem, None) after the page's tabs.
    `on_overview`: the page shows the Overview already, so it is not clicked."""
    for stem in PAGE_INDEX:
        if not (on_overview and stem == "overview"):
            nav_link(page, PAGE_INDEX[stem]).click()
            page.wait_for_url(re.compile(r"/(overview)?(\?|$)" if stem == "overview"
                                         else rf"/{stem}(\?|$)"))
        page.locator("h1").first.wait_for(state="visible")
        settle(page)
        for tab in page.get_by_role("tab").all():
            tab.click()
            settle(page)
            yield stem, tab
        yield stem, None


def umap_shown(page) -> None:
    """Wait until the memory map shows its UMAP layout, which replaces PCA when the server's
    layout process has it (a redraw that drops a selection made on the PCA layout)."""
    page.get_by_text(re.compile(r"^Layout shown: UMAP")).wait_for(timeout=UMAP_S * 1000)
    settle(page)


def open_nav(page, stem: str, pattern: re.Pattern) -> None:
    """Open pages/<stem>.py from the sidebar and wait until its heading shows and it settles."""
    nav_link(page, PAGE_INDEX[stem]).click()
    heading(page, pattern).wait_for(state="visible")
    settle(page)


def open_home(page, url: str) -> None:
    """The app's first page, settled."""
    page.goto(url, wait_until="commit")
    heading(page, re.compile("Nemori Inspector")).wait_for(state="visible")
    settle(page)


def wait_for(check, seconds: float, what: str, *, every: float = 0.25):
    """The first true value `check` gives within `seconds`; fails naming `what` otherwise."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"{what} within {seconds} s")
