"""A run is a job of the server, in a real browser: it outlives leaving its page and a reload,
and one whose server was killed shows "interrupted" and is resumed from the Run page."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

from nemori_ui.core.store import open_store, records
from nemori_ui.core.store.runs import get_run, list_runs
from tests.conftest import LOCOMO
from tests.test_browser import (CHROMIUM, CHROMIUM_ARGS, RUN_HEADING, SERVER_START_S, SHOTS,
                                STEP_MS, free_port, heading, nav_link, playwright_api, settle)
from nemori_ui.ui.layout import PAGES

ROOT = Path(__file__).resolve().parents[1]
RUN_S = 400          # conv-30 with the offline engine on a busy 2-core machine, with room
PAGE_INDEX = {Path(p[0]).stem: i for i, p in enumerate(PAGES)}


@contextmanager
def server(home: Path, log: Path):
    """`streamlit run app.py`; yields (url, process) so a test can kill it."""
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI_")}
    env["NEMORI_HOME"] = str(home)
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
           "--server.port", str(port), "--server.address", "127.0.0.1",
           "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    with open(log, "ab") as out:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            assert proc.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                    if reply.read().decode().strip() == "ok":
                        break
            except OSError:
                pass
            assert time.monotonic() < deadline, log.read_text()
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


def open_nav(page, stem: str, pattern: re.Pattern) -> None:
    nav_link(page, PAGE_INDEX[stem]).click()
    heading(page, pattern).wait_for(state="visible")
    settle(page)


def start_conv30(page) -> None:
    open_nav(page, "run", RUN_HEADING)
    page.get_by_text("Upload a file", exact=True).click()
    settle(page)
    page.locator('[data-testid="stFileUploader"] input[type=file]').set_input_files(str(LOCOMO))
    box = page.locator('[data-testid="stSelectbox"]', has_text="Conversation")
    box.wait_for(state="visible")
    settle(page)
    box.click()
    page.get_by_role("option", name="conv-30").click()
    settle(page)
    page.get_by_role("button", name="Run", exact=True).click()
    page.locator('[data-testid="stProgress"]').first.wait_for(state="visible")


def wait_for(check, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.5)
    raise AssertionError(f"{what} within {seconds} s")


def one_episode_per_message(home: Path, run_id: str) -> None:
    store = open_store(home)
    placed = [m for e in records.load_episodes(store, run_id, with_vectors=False)
              if e.status == "active" for m in e.message_ids]
    assert sorted(placed) == sorted(m.id for m in records.load_messages(store, run_id))


def test_a_run_outlives_its_page_and_its_server(tmp_path):
    if not Path(CHROMIUM).exists():
        pytest.skip(f"no Chromium at {CHROMIUM}")
    if not LOCOMO.exists():
        pytest.skip(f"LoCoMo data not found at {LOCOMO}")
    SHOTS.mkdir(parents=True, exist_ok=True)
    home, log = tmp_path / "home", tmp_path / "streamlit.log"
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.set_default_timeout(STEP_MS)
        try:
            with server(home, log) as (url, proc):
                page.goto(url, wait_until="commit")
                heading(page, re.compile("Nemori Inspector")).wait_for(state="visible")
                settle(page)
                start_conv30(page)
                [run] = list_runs(open_store(home))
                assert run.status == "running"
                # leave the page at once, through three others, and reload
                for stem, title in (("partitions", "Partitions"), ("episodes", "Episodes"),
                                    ("knowledge", "Knowledge")):
                    open_nav(page, stem, re.compile(title, re.IGNORECASE))
                page.reload()
                heading(page, re.compile("Knowledge", re.IGNORECASE)).wait_for(state="visible")
                settle(page)
                assert get_run(open_store(home), run.id).status == "running", \
                    "the run ended when its page was left"
                open_nav(page, "run", RUN_HEADING)
                page.screenshot(path=SHOTS / "jobs-01-running-after-reload.png")
                # the jobs list follows the run live and goes when the run is done
                page.get_by_role("heading", name="Jobs").wait_for(state="detached",
                                                                  timeout=RUN_S * 1000)
                info = get_run(open_store(home), run.id)
                assert info.status == "done" and info.windows_done == info.windows_total
                one_episode_per_message(home, run.id)
                open_nav(page, "episodes", re.compile("Episodes", re.IGNORECASE))
                assert not page.get_by_text("This run is").count()
                assert not page.locator('[data-testid="stException"]').count()

                # a second run, whose server dies (SIGKILL) after its first window
                start_conv30(page)
                second = next(r.id for r in list_runs(open_store(home)) if r.id != run.id)
                wait_for(lambda: get_run(open_store(home), second).windows_done >= 1, RUN_S,
                         "no window finished")
                proc.send_signal(signal.SIGKILL)
                proc.wait()
            assert get_run(open_store(home), second).status == "interrupted"
            with server(home, log) as (url, proc):
                page.goto(url, wait_until="commit")
                heading(page, re.compile("Nemori Inspector")).wait_for(state="visible")
                settle(page)
                open_nav(page, "run", RUN_HEADING)
                row = page.get_by_text(re.compile(r"interrupted after \d+ of \d+ windows"))
                row.first.wait_for(state="visible")
                page.screenshot(path=SHOTS / "jobs-02-interrupted.png")
                page.get_by_role("button", name="Resume", exact=True).click()
                page.get_by_text(re.compile(rf"Run {second} finished")).wait_for(
                    state="visible", timeout=RUN_S * 1000)
                settle(page)
                page.screenshot(path=SHOTS / "jobs-03-resumed.png")
                info = get_run(open_store(home), second)
                assert info.status == "done" and info.windows_done == info.windows_total
                one_episode_per_message(home, second)
        except Exception:
            page.screenshot(path=SHOTS / "jobs-failure.png")
            browser.close()
            raise
        browser.close()
