"""How long a run takes to stop when the server answers nothing, with the default settings
(--timeout 60, --attempts 3, --retry-budget 90): the figure docs/models.md promises.

    python benchmarks/bench_stop_time.py [--modes silent,trickle,refused] [--budget 90]

Each mode is a real `python -m nemori_ui run` of the bundled sample against a server that
accepts connections and never answers (silent), sends one byte every 0.2 s for ever
(trickle), or is not running at all (refused: a server that is not ready is asked again
until the budget is spent). The clock runs from the command's start to its exit.
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_llm_deadline import StallingServer  # noqa: E402

SAMPLE = ROOT / "nemori_ui" / "data" / "sample_conversation.txt"


def closed_port_url() -> str:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    return f"http://127.0.0.1:{port}/v1"


def stop_time(mode: str, budget: float) -> tuple[float, int, str]:
    server = None if mode == "refused" else StallingServer(mode)
    url = closed_port_url() if server is None else server.url
    home = tempfile.mkdtemp(prefix=f"bench-stop-{mode}-")
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-m", "nemori_ui", "run", str(SAMPLE),
                               "--backend", "openai", "--base-url", url, "--home", home,
                               "--retry-budget", f"{budget:g}"],
                              cwd=ROOT, capture_output=True, text=True, timeout=900)
    finally:
        if server is not None:
            server.close()
    took = time.monotonic() - started
    last = (done.stderr.strip().splitlines() or [""])[-1]
    return took, done.returncode, last


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default="silent,trickle,refused")
    parser.add_argument("--budget", type=float, default=90.0)
    args = parser.parse_args()
    for mode in args.modes.split(","):
        took, code, last = stop_time(mode, args.budget)
        print(f"{mode:8s} stopped after {took:6.1f} s (exit {code}): {last[:160]}", flush=True)


if __name__ == "__main__":
    main()
