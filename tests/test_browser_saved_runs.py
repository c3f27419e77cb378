"""The Run page's saved-run controls in a real browser: they act on the run the select shows,
the rename box follows the select, and a renamed run stays selected for the next action."""

from __future__ import annotations

import re
from pathlib import Path

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store
from nemori_ui.core.store.runs import list_runs, rename_run
from nemori_ui.core.transcripts import parse_transcript
from tests.browser_app import (RUN_HEADING, SHOTS, app_server, need_chromium, open_browser,
                               open_home, open_nav, settle, wait_for)

SMALL = (b"[2024-03-04 18:02] Maya: I started a new job at Finch Labs today.\n"
         b"[2024-03-04 18:03] Jonas: Congratulations! Do you cycle there?\n"
         b"[2024-03-04 18:04] Maya: Yes, twenty minutes along the river.\n")


def stored_runs(home: Path, names: list[str]) -> list[str]:
    """Finished runs of a small transcript named `names`, oldest first; their ids."""
    store = open_store(home)
    try:
        conv = parse_transcript(SMALL, source="small.txt").conversations[0]
        config, ids = PipelineConfig(), []
        for name in names:
            clients = build_clients(config, store)
            run_id = start_run(store, conv, config, clients, source="small.txt", fmt="text",
                               resume=False)
            run_windows(store, run_id, clients)
            rename_run(store, run_id, name)
            ids.append(run_id)
        return ids
    finally:
        store.close()


def names_in(home: Path) -> dict[str, str]:
    store = open_store(home)
    try:
        return {r.id: r.name for r in list_runs(store)}
    finally:
        store.close()


def saved_select(page):
    return page.get_by_role("combobox", name="Saved run")


def select_saved(page, name: str, run_id: str) -> None:
    saved_select(page).click()
    page.get_by_role("option", name=f"{name} · {run_id}").click()
    settle(page)


def rename_box(page):
    return page.get_by_role("textbox", name=re.compile("New name"))


def box_shows(page, name: str) -> None:
    """The rename box comes to show `name` (the click's rerun may not have started yet)."""
    wait_for(lambda: rename_box(page).input_value() == name, 30,
             f"the rename box does not show {name!r} but {rename_box(page).input_value()!r}")


def test_every_saved_run_action_acts_on_the_selected_run(tmp_path):
    need_chromium()
    home, log = tmp_path / "home", tmp_path / "streamlit.log"
    first, second, third = stored_runs(home, ["Porto notes", "Finch Labs", "River rides"])
    with open_browser(failure_shot="saved-runs-failure.png") as page, \
            app_server(home, log) as (url, _proc):
        open_home(page, url)
        open_nav(page, "run", RUN_HEADING)
        saved_select(page).scroll_into_view_if_needed()
        assert saved_select(page).input_value().startswith("River rides · "), "the shown run comes first"
        assert rename_box(page).input_value() == "River rides"

        # switching the select refills the rename box with that run's name
        select_saved(page, "Finch Labs", second)
        box_shows(page, "Finch Labs")
        page.screenshot(path=SHOTS / "saved-runs-01-selected.png")

        rename_box(page).fill("Lisbon planning")
        rename_box(page).press("Tab")
        page.get_by_role("button", name=re.compile(r"^Rename")).click()
        page.get_by_text(re.compile(r"Renamed Finch Labs to Lisbon planning")).wait_for()
        settle(page)
        assert names_in(home) == {first: "Porto notes", second: "Lisbon planning",
                                  third: "River rides"}
        # the select stays on the renamed run and every control names it
        wait_for(lambda: saved_select(page).input_value() == f"Lisbon planning · {second}", 30,
                 "the select left the renamed run")
        box_shows(page, "Lisbon planning")
        for action in ("Rename", "Open", "Export", "Delete"):
            named = page.get_by_role("button", name=re.compile(rf"^{action} “Lisbon planning”"))
            assert named.count() == 1, f"no {action} button names the renamed run"
        saved_select(page).scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "saved-runs-02-renamed.png")

        # Delete asks about the renamed run, and deletes that one
        page.get_by_role("button", name=re.compile(r"^Delete “Lisbon planning”")).click()
        asked = page.get_by_text(re.compile(r"Delete Lisbon planning .*cannot be undone"))
        asked.wait_for()
        settle(page)
        assert second in asked.inner_text()
        asked.scroll_into_view_if_needed()
        page.screenshot(path=SHOTS / "saved-runs-03-delete-asks.png")
        page.get_by_role("button", name=re.compile(r"for good$")).click()
        page.get_by_text(re.compile(rf"Deleted Lisbon planning \({second}\)")).wait_for()
        settle(page)
        assert names_in(home) == {first: "Porto notes", third: "River rides"}
        assert not page.locator('[data-testid="stException"]').count()
