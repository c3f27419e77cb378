"""The memory map in a real browser right after a server start: it draws at once with PCA,
and UMAP replaces it without a reload; the layout process starts only once the map is opened.
Prints how long the first visit took (-s)."""

from __future__ import annotations

import csv
import re
import time
from pathlib import Path

import pytest

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.projection import points_frame
from nemori_ui.core.store import open_store
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.views.run_data import load_run_data
from tests.browser_app import (SHOTS, UMAP_S, app_server, need_chromium, open_browser,
                               open_home, open_nav, settle, started_by)
from tests.conftest import LOCOMO, require_locomo



def locomo_run(home: Path) -> int:
    """conv-30 with the offline defaults, as the offline pipeline test runs it: the map of a
    real conversation's memory (its embeddings are the ones the suite keeps)."""
    store = open_store(home)
    config = PipelineConfig()
    clients = build_clients(config, store)
    run_id = start_run(store, load_transcript(LOCOMO).conversation("conv-30"), config, clients,
                       source=LOCOMO.name, fmt="locomo")
    run_windows(store, run_id, clients)
    points = len(points_frame(load_run_data(store, run_id)))
    store.close()
    return points


def layout_processes(server_pid: int) -> list[int]:
    """The map's layout processes the server started (from any of its threads)."""
    return [k for k in started_by(server_pid)
            if b"projection_worker" in Path(f"/proc/{k}/cmdline").read_bytes()]


def test_the_map_opens_with_pca_and_umap_follows(tmp_path):
    need_chromium()
    require_locomo()
    home = tmp_path / "home"
    points = locomo_run(home)
    with app_server(home, tmp_path / "streamlit.log") as (url, server), \
            open_browser(failure_shot="map-failure.png") as page:
        open_home(page, url)
        assert layout_processes(server.pid) == [], "UMAP loaded before anyone opened the map"
        started = time.perf_counter()
        open_nav(page, "memory_map", re.compile("Memory map"))
        page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for()
        first_visit = time.perf_counter() - started
        assert len(layout_processes(server.pid)) == 1
        shown = page.get_by_text(re.compile(r"^Layout shown: (PCA|UMAP)"))
        label = shown.first.inner_text()
        page.screenshot(path=SHOTS / "map-01-first-visit.png")
        started = time.perf_counter()
        page.get_by_text(re.compile(r"^Layout shown: UMAP")).wait_for(timeout=UMAP_S * 1000)
        umap_after = time.perf_counter() - started
        settle(page)
        page.screenshot(path=SHOTS / "map-02-umap.png")
        assert not page.locator('[data-testid="stException"]').count()
    print(f"\nmemory map, {points} points, first visit after a server start: {first_visit:.2f} s "
          f"({label.split('.')[0]}); UMAP shown {umap_after:.1f} s later, without a reload")


def test_a_search_lights_points_and_the_matches_can_be_exported(tmp_path):
    need_chromium()
    from tests.conftest import run_sample
    home = tmp_path / "home"
    store = open_store(home)
    run_sample(store)
    store.close()
    with app_server(home, tmp_path / "streamlit.log") as (url, _), \
            open_browser(viewport=(1280, 800), failure_shot="map-search-failure.png") as page:
        open_home(page, url)
        open_nav(page, "memory_map", re.compile("Memory map"))
        page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for()
        box = page.get_by_label("Search the map")
        box.fill("Lisbon")
        box.press("Enter")
        found = page.get_by_text(re.compile(r"of \d+ shown points hold every word"))
        found.wait_for()
        settle(page)
        count = int(found.inner_text().split()[0])
        assert count > 0
        assert page.locator(".legendtext", has_text="matches search").count() == 1
        with page.expect_download() as download:
            page.get_by_role("button", name=re.compile(rf"Export these {count} \(CSV\)")).click()
        with open(download.value.path(), newline="") as f:
            rows = list(csv.reader(f))
        assert len(rows) == count + 1 and all("lisbon" in r[-1].lower() for r in rows[1:])
        page.screenshot(path=SHOTS / "map-search-1280.png")
        page.set_viewport_size({"width": 1920, "height": 1080})
        settle(page)
        page.screenshot(path=SHOTS / "map-search-1920.png")
