"""Page render times on a large run: about 5,000 semantic memories and a few hundred episodes.

    python benchmarks/bench_app.py [--memories 5000] [--episodes 300] [--no-umap]
    python benchmarks/bench_app.py --messages 700 --memories 1000 --no-umap   # a LoCoMo size

Synthesises the run straight into a temporary home (`synthetic_run.py`), then renders each
page with AppTest twice: cold (the app's caches cleared) and warm (the same session again),
then switched to one after another in one session, as a reader clicks through them. Last, the
memory map's layout at this size: PCA, and UMAP cold (first call in the process, kernels
compiled) and cached.
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

from synthetic_run import synthesise  # noqa: E402

from nemori_ui.core.store import open_store, records, runs  # noqa: E402


def render_table(pages, *, show: bool = True) -> None:
    from streamlit.logger import set_log_level
    from streamlit.testing.v1 import AppTest

    # AppTest outside a server makes Streamlit warn on every cache call; the table is the output
    set_log_level("error")
    for path, title, *_ in pages:
        st_caches_cleared()
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        at.switch_page(path)
        started = time.perf_counter()
        at.run()
        cold = time.perf_counter() - started
        started = time.perf_counter()
        at.run()
        warm = time.perf_counter() - started
        problem = "; ".join(e.value.splitlines()[0][:60] for e in at.exception) or "ok"
        if show:
            print(f"  {title:<20}{cold:8.2f}{warm:8.2f}  {problem}", flush=True)


def switch_table(pages) -> None:
    """One session going from page to page, as a reader clicks the navigation: each page's
    first draw in the session, with what the pages before it left in the caches."""
    from streamlit.testing.v1 import AppTest

    st_caches_cleared()
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.run()
    print("\npage switch, one session (s)")
    for path, title, *_ in pages:
        at.switch_page(path)
        started = time.perf_counter()
        at.run()
        took = time.perf_counter() - started
        problem = "; ".join(e.value.splitlines()[0][:60] for e in at.exception) or "ok"
        print(f"  {title:<20}{took:8.2f}  {problem}", flush=True)


def st_caches_cleared() -> None:
    import streamlit as st
    st.cache_data.clear()
    st.cache_resource.clear()


def map_layouts(home: Path, run_id: str, umap: bool) -> None:
    from nemori_ui.core.projection import point_vectors, points_frame, project
    from nemori_ui.core.views.run_data import load_run_data

    data = load_run_data(open_store(home), run_id)
    frame = points_frame(data)
    vectors = point_vectors(data, frame)
    print(f"\nmemory map layout of {len(frame):,} points ({vectors.shape[1]}-d)")
    for label, method in [("PCA", "pca"), ("UMAP cold (kernels compile)", "umap"),
                          ("UMAP again (compiled, not cached)", "umap")]:
        if method == "umap" and not umap:
            print(f"  {label:<38} skipped (--no-umap)")
            continue
        started = time.perf_counter()
        project(vectors, method)
        print(f"  {label:<38}{time.perf_counter() - started:8.2f} s", flush=True)


def map_page_umap(umap: bool) -> None:
    """UMAP through the page: computed on request, then served from the layout cache."""
    if not umap:
        return
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.switch_page("pages/memory_map.py")
    at.run()
    if not any(r.key == "map_method" for r in at.radio):
        print("  the memory map page has no layout choice: UMAP through the page not timed")
        return
    at.radio(key="map_method").set_value("umap").run()
    started = time.perf_counter()
    buttons = [b for b in at.button if b.key == "map_compute_umap"]
    (buttons[0].click() if buttons else at).run()
    print(f"  {'page, UMAP computed':<38}{time.perf_counter() - started:8.2f} s")
    started = time.perf_counter()
    at.run()
    problem = "; ".join(e.value.splitlines()[0][:60] for e in at.exception)
    print(f"  {'page, UMAP from the cache':<38}{time.perf_counter() - started:8.2f} s  {problem}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--memories", type=int, default=5000)
    ap.add_argument("--episodes", type=int, default=300)
    ap.add_argument("--messages", type=int, help="this many messages (windows of 20), "
                    "whatever --episodes says")
    ap.add_argument("--no-umap", action="store_true", help="skip the UMAP timings")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="nemori-bench-") as tmp:
        home = Path(tmp) / "home"
        os.environ["NEMORI_HOME"] = str(home)
        os.environ.pop("OPENAI_API_KEY", None)
        started = time.perf_counter()
        run_id = synthesise(home, args.memories, args.episodes, n_messages=args.messages)
        store = open_store(home)
        sizes = [len(records.load_memories(store, run_id, with_vectors=False)),
                 len(records.load_episodes(store, run_id, with_vectors=False)),
                 len(records.load_events(store, run_id))]
        messages = len(runs.stored_conversation(store, run_id).messages)
        print("synthesised {:,} messages, {:,} memories, {:,} episodes, {:,} events".format(
              messages, *sizes),
              f"in {time.perf_counter() - started:.1f} s (cpus={os.cpu_count()})")
        load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
        print(f"load average {load}: on a machine busy with other work the timings are noisy")

        from nemori_ui.ui.layout import PAGES
        # imports (streamlit, plotly, pandas...) happen once; keep them out of the first page
        render_table(PAGES[:1], show=False)
        print(f"\npage render (s)       {'cold':>6}{'warm':>8}  result")
        render_table(PAGES)
        switch_table(PAGES)
        map_layouts(home, run_id, not args.no_umap)
        map_page_umap(not args.no_umap)


if __name__ == "__main__":
    main()
