"""What the app's server spends while a reader uses it: CPU seconds and memory, in a real browser.

Starts `streamlit run app.py` on a fresh home, runs the bundled sample from the Run page with
the page left open while it runs, then opens every page once and every tab on it, and prints
the server's CPU time (its own and its children's: the map's layout process) and its resident
memory, now and at its peak. `--post-script-gc on` turns back on Streamlit's full garbage
collection after every script run, which `.streamlit/config.toml` turns off, to compare.

    python benchmarks/bench_server_cpu.py [--post-script-gc on|off] [--rounds 2]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from streamlit.logger import set_log_level  # noqa: E402

set_log_level("error")   # the pages imported outside a server warn about their caches

from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.store.runs import list_runs  # noqa: E402
from proc_stat import own_cpu, stat_fields, waited_children_cpu  # noqa: E402
from tests.browser_app import (RUN_HEADING, app_server, close_shared_browser,  # noqa: E402
                               every_page_and_tab, open_browser, open_home, open_nav, settle,
                               started_by, wait_for)

def cpu_seconds(pid: int) -> tuple[float, float]:
    """(the process's own CPU seconds, its children's that ended or are running)."""
    fields = stat_fields(pid)
    children = waited_children_cpu(fields)
    for child in started_by(pid):
        try:
            children += own_cpu(stat_fields(child))
        except FileNotFoundError:
            continue
    return own_cpu(fields), children


def memory_mb(pid: int) -> tuple[float, float]:
    status = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text()
                  .splitlines() if ":" in line)
    return (int(status["VmRSS"].split()[0]) / 1024, int(status["VmHWM"].split()[0]) / 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--post-script-gc", choices=("on", "off"), default="off")
    parser.add_argument("--rounds", type=int, default=2, help="tours of every page")
    args = parser.parse_args()
    os.environ["STREAMLIT_RUNNER_POST_SCRIPT_GC"] = "true" if args.post_script_gc == "on" \
        else "false"
    with tempfile.TemporaryDirectory() as tmp:
        home, log = Path(tmp) / "home", Path(tmp) / "streamlit.log"
        try:
            with app_server(home, log) as (url, proc), open_browser() as page:
                start = time.monotonic()
                open_home(page, url)
                open_nav(page, "run", RUN_HEADING)
                page.get_by_role("button", name="Run", exact=True).click()
                wait_for(lambda: [r for r in list_runs(open_store(home))
                                  if r.status == "done"], 300, "the sample run finished",
                         every=0.5)
                settle(page)
                run_cpu = cpu_seconds(proc.pid)
                run_s = time.monotonic() - start
                for _ in range(args.rounds):
                    for _ in every_page_and_tab(page, on_overview=False):
                        pass
                own, children = cpu_seconds(proc.pid)
                rss, peak = memory_mb(proc.pid)
                total_s = time.monotonic() - start
        finally:
            close_shared_browser()
    print(f"post-script GC {args.post_script_gc}: sample run from the page {run_s:.1f} s "
          f"(server CPU {run_cpu[0]:.1f} s); with {args.rounds} tours of every page "
          f"{total_s:.1f} s, server CPU {own:.1f} s, its layout process {children:.1f} s; "
          f"resident memory {rss:.0f} MB, peak {peak:.0f} MB")


if __name__ == "__main__":
    main()
