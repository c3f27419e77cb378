"""A run is a job of the server, in a real browser: it outlives leaving its page and a reload,
and one whose server was killed shows "interrupted" and is resumed from the Run page."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from nemori_ui.core.store import open_store, records
from nemori_ui.core.store.runs import get_run, list_runs
from tests.browser_app import (RUN_HEADING, SHOTS, app_server, heading, need_chromium,
                               open_browser, open_home, open_nav, settle, wait_for)
from tests.conftest import LOCOMO, require_locomo

RUN_S = 400          # conv-30 with the offline engine on a busy 2-core machine, with room


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
    # the second time the same file and settings are offered as the stored run, with Run
    # renamed for building it again
    page.get_by_role("button", name=re.compile(r"^Run( it again anyway)?$")).click()
    page.locator('[data-testid="stProgress"]').first.wait_for(state="visible")


def one_episode_per_message(home: Path, run_id: str) -> None:
    store = open_store(home)
    placed = [m for e in records.load_episodes(store, run_id, with_vectors=False)
              if e.status == "active" for m in e.message_ids]
    assert sorted(placed) == sorted(m.id for m in records.load_messages(store, run_id))


def test_a_run_outlives_its_page_and_its_server(tmp_path):
    need_chromium()
    require_locomo()
    home, log = tmp_path / "home", tmp_path / "streamlit.log"
    with open_browser(failure_shot="jobs-failure.png") as page:
        with app_server(home, log) as (url, proc):
            open_home(page, url)
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
        with app_server(home, log) as (url, proc):
            open_home(page, url)
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
