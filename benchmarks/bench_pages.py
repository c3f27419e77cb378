"""The Overview and Partitions of a big run: how long each takes to build its view.

    python benchmarks/bench_pages.py [--messages 20000] [--window 20] [--home DIR] [--no-apptest]

Builds a run of the synthetic transcript of `bench_run_size.py` (the dev conversations repeated,
a year later each time) on the offline engine in a fresh home (`--home DIR` reuses the run a
previous call left there: building 20,000 messages takes about ten minutes here). Then times,
cold (nothing cached) and twice each, what the pages compute: the Overview's headline figures
and health, and the Partitions page's figures, window and cut tables and its first page of
message rows (with `--whole`, also the run loaded whole as the pages read it before); then,
unless `--no-apptest`, each page rendered by Streamlit's AppTest, cold and again.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a source checkout
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_run_size import LOCOMO, synthetic  # noqa: E402

from nemori_ui.core.clients import build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.pipeline.runner import run_windows, start_run  # noqa: E402
from nemori_ui.core.store import open_store, runs  # noqa: E402


def build(home: Path, n_messages: int, window: int) -> str:
    """The run of `n_messages` in `home`: the one already there, else a new one."""
    store = open_store(home)
    held = [r for r in runs.list_runs(store) if r.conversation_id == f"synthetic-{n_messages}"
            and r.status == "done"]
    if held:
        return held[0].id
    conv = synthetic(LOCOMO, n_messages)
    config = PipelineConfig(window=window)
    clients = build_clients(config, store)
    started = time.perf_counter()
    run_id = start_run(store, conv, config, clients, source=conv.id, fmt="text", resume=False)
    run_windows(store, run_id, clients)
    print(f"built {n_messages} messages in {time.perf_counter() - started:.0f} s: {home}")
    return run_id


def timed(label: str, step) -> None:
    for attempt in ("cold", "again"):
        started = time.perf_counter()
        step()
        print(f"  {label} ({attempt}): {time.perf_counter() - started:.2f} s")


def views(home: Path, run_id: str, whole: bool) -> None:
    from nemori_ui.core.store.health import run_health
    from nemori_ui.core.run_figures import run_figures
    from nemori_ui.core.views import partitions as pv
    from nemori_ui.core.views.run_data import load_run_data
    from nemori_ui.ui.episodic_charts import ribbon_figure

    store = open_store(home)
    window = runs.get_run(store, run_id).config.window
    print("Overview, as the page computes it:")
    timed("headline figures + health",
          lambda: (run_figures(store, run_id), run_health(store, [run_id])))

    def partitions():
        src = pv.stored_partition_source(store, run_id, window)
        pv.partition_figures(src)
        frame = pv.message_page(store, run_id, src, 0)
        ribbon_figure(frame, "episode", window, pv.boundaries(frame), pv.session_spans(frame))
        pv.window_table(src)
        pv.cuts_table(src)
    print("Partitions, as the page computes it:")
    timed(f"figures, windows, cuts, ribbon of the first {pv.PAGE_ROWS:,} messages", partitions)
    if whole:
        def loaded():
            data = load_run_data(store, run_id)
            frame = pv.message_frame(data)
            ribbon_figure(frame, "episode", window, pv.boundaries(frame), pv.session_spans(frame))
            pv.window_table(data)
            pv.cuts_table(data)
        print("The run loaded whole, as the pages read it before:")
        timed("load, every message's row and ribbon, windows, cuts", loaded)


def apptest(home: Path, run_id: str) -> None:
    from streamlit.testing.v1 import AppTest
    import logging

    logging.getLogger("streamlit").setLevel(logging.ERROR)
    os.environ["NEMORI_HOME"] = str(home)
    print("AppTest, the whole page:")
    for page in ("pages/overview.py", "pages/partitions.py"):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        at.switch_page(page)
        at.session_state["run_id"] = run_id
        for attempt in ("cold", "again"):
            started = time.perf_counter()
            at.run()
            took = time.perf_counter() - started
            problem = f" EXCEPTION {at.exception[0].value}" if at.exception else ""
            print(f"  {page} ({attempt}): {took:.2f} s{problem}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=20_000)
    ap.add_argument("--window", type=int, default=20)
    ap.add_argument("--home", help="a home to build the run in, or to reuse it from")
    ap.add_argument("--no-apptest", action="store_true")
    ap.add_argument("--whole", action="store_true",
                    help="also time loading the run whole, as the pages did before")
    args = ap.parse_args()
    home = Path(args.home or tempfile.mkdtemp(prefix="nemori-bench-pages-"))
    run_id = build(home, args.messages, args.window)
    views(home, run_id, args.whole)
    if not args.no_apptest:
        apptest(home, run_id)


if __name__ == "__main__":
    main()
