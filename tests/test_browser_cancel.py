"""Cancel in the browser session that started the run: the run stops as cancelled (resumable)
and the page is free again, in a real browser."""

from __future__ import annotations

import json
import re
from pathlib import Path

from nemori_ui.core.store import open_store
from nemori_ui.core.store.runs import get_run, list_runs
from tests.browser_app import (RUN_HEADING, SHOTS, app_server, need_chromium, open_browser,
                               open_home, open_nav, settle, wait_for)

RUN_S = 1200         # the whole long run on a busy 2-core machine, should Cancel be ignored
REPEATS = 6          # conv-26 six times over: a run that takes minutes, not seconds


def long_transcript(locomo: Path, out: Path) -> Path:
    """LoCoMo conv-26 as plain text, its sessions said REPEATS times over (2,514 messages)."""
    conv = json.loads(locomo.read_text())[0]["conversation"]
    sessions = sorted((int(k.split("_")[1]), v) for k, v in conv.items()
                      if re.fullmatch(r"session_\d+", k))
    lines = []
    for r in range(REPEATS):
        for n, turns in sessions:
            lines.append(f"## Session {r * len(sessions) + n}")
            lines += [f"{t['speaker']}: {' '.join(t['text'].split())}" for t in turns]
    out.write_text("\n".join(lines) + "\n")
    return out


def start_upload(page, path: Path) -> None:
    open_nav(page, "run", RUN_HEADING)
    page.get_by_text("Upload a file", exact=True).click()
    settle(page)
    page.locator('[data-testid="stFileUploader"] input[type=file]').set_input_files(str(path))
    page.get_by_text(re.compile(r"Format: text")).wait_for(state="visible")
    settle(page)
    page.get_by_role("button", name="Run", exact=True).click()
    page.locator('[data-testid="stProgress"]').first.wait_for(state="visible")


def test_cancel_in_the_session_that_started_the_run(tmp_path, locomo_path):
    need_chromium()
    home, log = tmp_path / "home", tmp_path / "streamlit.log"
    transcript = long_transcript(locomo_path, tmp_path / "long-conv-26.txt")
    with open_browser(failure_shot="cancel-failure.png") as page, \
            app_server(home, log) as (url, _proc):
        open_home(page, url)
        start_upload(page, transcript)
        [run] = list_runs(open_store(home))
        wait_for(lambda: get_run(open_store(home), run.id).windows_done >= 1, RUN_S,
                 "no window finished")
        page.screenshot(path=SHOTS / "cancel-01-running.png")
        page.get_by_role("button", name=re.compile(r"^Cancel")).first.click()
        # the run ends however Cancel fares; then it must have been cancelled, not finished
        wait_for(lambda: get_run(open_store(home), run.id).status != "running", RUN_S,
                 "the run did not end")
        info = get_run(open_store(home), run.id)
        assert info.status == "interrupted", f"Cancel was ignored: the run is {info.status}"
        assert info.windows_done < info.windows_total
        said = page.get_by_text(re.compile(rf"Run {run.id} cancelled after \d+ of \d+ windows"))
        said.wait_for(state="visible")
        settle(page)        # the page is no longer busy: no script run, no refreshing fragment
        said.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "cancel-02-cancelled.png")
        assert not page.locator('[data-testid="stProgress"]').count(), "still following the run"
        assert page.get_by_text(re.compile(r"interrupted after \d+ of \d+ windows")).count()
        assert page.get_by_role("button", name="Resume", exact=True).is_enabled()
        assert not page.locator('[data-testid="stException"]').count()

        # resumed from the sidebar of another page, followed there, and cancelled there too
        open_nav(page, "episodes", re.compile("Episodes", re.IGNORECASE))
        before = get_run(open_store(home), run.id).windows_done
        sidebar = page.locator('[data-testid="stSidebar"]')
        sidebar.get_by_role("button", name="Resume this run").click()
        sidebar.locator('[data-testid="stProgress"]').wait_for(state="visible")
        wait_for(lambda: get_run(open_store(home), run.id).windows_done > before, RUN_S,
                 "the resumed run made no progress")
        page.screenshot(path=SHOTS / "cancel-03-resumed-in-sidebar.png")
        sidebar.get_by_role("button", name="Cancel").click()
        wait_for(lambda: get_run(open_store(home), run.id).status != "running", RUN_S,
                 "the resumed run did not end")
        info = get_run(open_store(home), run.id)
        assert info.status == "interrupted", f"Cancel was ignored: the run is {info.status}"
        sidebar.get_by_text(re.compile(rf"Run {run.id} cancelled")).wait_for(state="visible")
        settle(page)
        page.screenshot(path=SHOTS / "cancel-04-cancelled-in-sidebar.png")
        assert not sidebar.locator('[data-testid="stProgress"]').count()
        assert sidebar.get_by_role("button", name="Resume this run").is_enabled()
