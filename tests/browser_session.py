"""Debian's Chromium driven by Playwright, for the browser tests: one browser for the tests that
run one after another, and one kept tab in it.

A fresh tab's first page of the app cost Chromium about 3.7 s of CPU, against about 1.2 s in a
tab that had shown the app before on the same origin: the renderer keeps the scripts it has
compiled. So a test gets the kept tab when it is free (app servers listen on the same port each
time, tests/browser_app.py), cleaned of what the previous test left: cookies, storage, emulated
media, viewport. A test that fails, or asks for `fresh=True`, gets a tab in a context of its own.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest

playwright_api = pytest.importorskip("playwright.sync_api",
                                     reason="the playwright package is not installed")

from tests.conftest import OUTPUT, ROOT, SHOTS  # noqa: E402,F401  (others import them here)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# Streamlit reruns the whole script on every interaction; give each step room on a slow runner.
STEP_MS = 60_000
LEAVE_MS = 5_000

_SHARED: dict = {}


def need_chromium() -> None:
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM} (CI installs the Debian package 'chromium')")


def shared_browser():
    """One Chromium for the browser tests that run one after another: launching it took 1-3 s
    a test. Started on first use, and again if it went away."""
    need_chromium()
    browser = _SHARED.get("browser")
    if browser is None or not browser.is_connected():
        close_shared_browser()
        _SHARED["playwright"] = playwright_api.sync_playwright().start()
        _SHARED["browser"] = _SHARED["playwright"].chromium.launch(executable_path=CHROMIUM,
                                                                    args=CHROMIUM_ARGS)
    return _SHARED["browser"]


def close_shared_browser() -> None:
    """Stop the shared Chromium and its driver. While the driver runs, this thread counts as
    inside an event loop (asyncio.run refuses to start), so the suite stops it as soon as the
    next test is not a browser test."""
    _SHARED.pop("kept", None)
    browser, driver = _SHARED.pop("browser", None), _SHARED.pop("playwright", None)
    try:
        if browser is not None and browser.is_connected():
            browser.close()
    finally:
        if driver is not None:
            driver.stop()


def _take_kept_tab(viewport):
    """The kept tab (opened on first use), cleaned for a new test."""
    browser = shared_browser()          # launched again if it went away, and its tab with it
    kept = _SHARED.pop("kept", None)
    if kept is None:
        kept = browser.new_context().new_page()
    kept.context.clear_cookies()
    kept.emulate_media(color_scheme="no-override", reduced_motion="no-override")
    kept.set_viewport_size({"width": viewport[0], "height": viewport[1]})
    return kept


def _keep(page) -> None:
    """Hand the tab back for the next test: its storage cleared, and parked on the app's health
    check (same origin, no app running in it) so a stopped server leaves nothing retrying."""
    origin = urlsplit(page.url)
    if origin.scheme in ("http", "https"):
        page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
        page.goto(f"{origin.scheme}://{origin.netloc}/_stcore/health", timeout=LEAVE_MS)
    _SHARED["kept"] = page


@contextmanager
def open_browser(viewport=(1400, 1000), failure_shot: str | None = "failure.png", *,
                 fresh: bool = False):
    """A Chromium page with the step timeout set: the kept tab when it is free, else (or with
    `fresh`) one in a context of its own. On an error its screen is saved to
    tests/output/screenshots/failure_shot and the tab is closed, not kept."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    kept = not fresh and "held" not in _SHARED
    if kept:
        page = _take_kept_tab(viewport)
        _SHARED["held"] = True
    else:
        page = shared_browser().new_context(viewport={"width": viewport[0],
                                                      "height": viewport[1]}).new_page()
    page.set_default_timeout(STEP_MS)
    failed = True
    try:
        yield page
        failed = False
    except BaseException:
        if failure_shot:
            try:
                page.screenshot(path=SHOTS / failure_shot)
            except Exception:  # noqa: BLE001 - the page may be gone; the error matters
                pass
        raise
    finally:
        if kept:
            _SHARED.pop("held", None)
        try:
            if kept and not failed:
                _keep(page)
            else:
                page.context.close()
        except Exception:  # noqa: BLE001 - a dead browser is launched again by the next test
            try:
                page.context.close()
            except Exception:  # noqa: BLE001
                pass
