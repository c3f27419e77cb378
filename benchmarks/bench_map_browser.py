"""The memory map's first visit right after a server start, in a real browser.

Builds (or reuses, with --home) an offline run of conv-30 followed by conv-26 as one
conversation (over 800 points), starts `streamlit run app.py`, opens the app in Chromium and
prints how long the Memory map took to draw after its link was clicked, and how long UMAP took
to replace PCA without a reload.

    python benchmarks/bench_map_browser.py [--home DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.browser_app import (app_server, close_shared_browser, open_browser,  # noqa: E402
                               open_home, open_nav)
from tests.test_browser_map import big_run  # noqa: E402

UMAP_S = 600


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--home", type=Path, help="a home holding the run (built when empty)")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="nemori-map-bench-"))
    if not list(home.glob("*.db")):
        started = time.perf_counter()
        points = big_run(home)
        print(f"built the run ({points} points) in {time.perf_counter() - started:.0f} s")
    with app_server(home, home / "streamlit.log") as (url, _), \
            open_browser(failure_shot=None) as page:
        open_home(page, url)
        if os.environ.get("BENCH_PLOTLY_FIRST"):
            open_nav(page, "partitions", re.compile("Partitions"))
            page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for()
        started = time.perf_counter()
        from tests.browser_app import nav_link, PAGE_INDEX
        nav_link(page, PAGE_INDEX["memory_map"]).click()
        page.get_by_text(re.compile(r"^Layout shown")).first.wait_for()
        script = time.perf_counter() - started
        page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for()
        first = time.perf_counter() - started
        print(f"layout caption after {script:.2f} s, chart drawn after {first:.2f} s")
        shown = page.get_by_text(re.compile(r"^Layout shown: (PCA|UMAP)")).first.inner_text()
        caption = page.get_by_text(re.compile(r"^\d+ points:")).first.inner_text()
        started = time.perf_counter()
        page.get_by_text(re.compile(r"^Layout shown: UMAP")).wait_for(timeout=UMAP_S * 1000)
        umap = time.perf_counter() - started
        open_nav(page, "overview", re.compile("Nemori Inspector"))
        started = time.perf_counter()
        open_nav(page, "memory_map", re.compile("Memory map"))
        page.locator('[data-testid="stPlotlyChart"] .main-svg').first.wait_for()
        again = time.perf_counter() - started
    close_shared_browser()
    print(f"memory map again (UMAP cached): {again:.2f} s")
    print(f"{caption.split(':')[0]}: first visit {first:.2f} s ({shown.split('.')[0]}); "
          f"UMAP shown {umap:.1f} s later without a reload")


if __name__ == "__main__":
    main()
