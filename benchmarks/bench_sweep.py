"""A 3×3 sweep (τ × window) on a LoCoMo conversation through a local OpenAI-compatible server,
cached against uncached: calls sent and wall time.

    python benchmarks/bench_sweep.py [--conv conv-30] [--tau 0.52,0.57,0.62] [--window 10,20,40]
                                     [--delay 0.0]

Cached: every grid point shares one run store, so a point answers from the response cache every
call whose prompt another point already sent (all of partition, narration and integration
across τ values). Uncached: each point gets a store of its own, as separate runs would. The
server is the test suite's, with its deterministic responder; `delay` adds a model's latency.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the test server lives in tests/

from nemori_ui.core.clients import RunEnvironment, build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig, tau_grid  # noqa: E402
from nemori_ui.core.llm import OpenAIChatBackend  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402
from nemori_ui.core.tuning.point import run_point  # noqa: E402
from nemori_ui.core.tuning.records import SweepPoint  # noqa: E402
from nemori_ui.core.tuning.sweep import parse_grid, points  # noqa: E402
from tests.llm_responder import respond  # noqa: E402
from tests.openai_server import OpenAIServer  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"


def sweep(conv, configs, server, shared: bool) -> tuple[float, int, list[SweepPoint]]:
    home = tempfile.mkdtemp(prefix="nemori-sweep-")
    store = open_store(home) if shared else None
    before = len(server.chat_requests)
    started = time.perf_counter()
    results = []
    for n, config in enumerate(configs):
        point_store = store or open_store(f"{home}/{n}")
        backend = OpenAIChatBackend(config.model, api_key="bench", base_url=server.url)
        clients = build_clients(config, point_store, RunEnvironment(backend=backend))
        results.append(run_point(point_store, conv, config, clients, source="locomo",
                                 fmt="locomo"))
    return time.perf_counter() - started, len(server.chat_requests) - before, results


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=str(LOCOMO))
    ap.add_argument("--conv", default="conv-30")
    ap.add_argument("--tau", default=tau_grid("minilm"),
                    help="τ values (default: MiniLM's τ and 0.05 either side)")
    ap.add_argument("--window", default="10,20,40")
    ap.add_argument("--delay", type=float, default=0.0)
    args = ap.parse_args()
    conv = load_transcript(args.file).conversation(args.conv)
    base = PipelineConfig(backend="openai", model="bench-model")
    configs = points(base, parse_grid({"tau": args.tau, "window": args.window}))
    with OpenAIServer() as server:
        server.responder = respond
        server.delay = args.delay
        rows = {label: sweep(conv, configs, server, shared)
                for label, shared in (("uncached", False), ("cached", True))}
    print(f"{len(configs)}-point sweep (τ {args.tau} × window {args.window}) on {args.conv}, "
          f"{len(conv.messages)} messages; server delay {args.delay} s per request")
    print(f"{'':<10}{'seconds':>9}{'requests':>10}")
    for label, (seconds, requests, _) in rows.items():
        print(f"{label:<10}{seconds:>9.1f}{requests:>10}")
    print("\nper point (cached): τ, w, calls made, calls reused")
    for r in rows["cached"][2]:
        print(f"  {r.params.tau:<5} {r.params.window:<4} "
              f"{r.llm.calls_made:>6} {r.llm.calls_reused:>6}")


if __name__ == "__main__":
    main()
