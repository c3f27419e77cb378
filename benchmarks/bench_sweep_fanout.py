"""An 8-point sweep (windows 10/20/30/40 × Nemori, Nemori-s) on a LoCoMo conversation, offline,
one point after another against fanned out on a local Ray: wall time of each, their ratio, the
vectors each side stored, and whether both built the same memories.

    python benchmarks/bench_sweep_fanout.py [--conv conv-26] [--window 10,20,30,40]
                                            [--variant nemori,nemori-s] [--workers 2]

    python benchmarks/bench_sweep_fanout.py --server [--delay 0.0]   # a model: the local server

Each side runs in a fresh home, so each embeds the conversation from nothing; the fanned-out
wall time includes starting Ray. `--server` runs both through the test suite's local
OpenAI-compatible server (deterministic replies) and counts the requests each side sent. The
machine's load (`uptime`) is printed beside each side: other work on the same cores slows
either side.
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

from nemori_ui.core.clients import RunEnvironment, build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.scale import executor_for  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402
from nemori_ui.core.tuning.records import SweepPoint  # noqa: E402
from nemori_ui.core.tuning.sweep import parse_grid, sweep  # noqa: E402
from tests.llm_responder import respond  # noqa: E402
from tests.openai_server import OpenAIServer  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def embedded(store) -> int:
    return store.query("SELECT COUNT(*) AS n FROM vector_cache")[0]["n"]


def side(conv, grid, base: PipelineConfig, source: str, workers: int
         ) -> tuple[float, list[SweepPoint], int, str]:
    store = open_store(tempfile.mkdtemp(prefix=f"nemori-bench-fansweep-{workers}-"))
    executor = executor_for(workers)
    started = time.perf_counter()
    points = sweep(store, conv, base, grid, lambda c: build_clients(c, store),
                   source=source, fmt="locomo", env=RunEnvironment(executor=executor))
    wall = time.perf_counter() - started
    return wall, points, embedded(store), getattr(executor, "ran_as", type(executor).__name__)


def figures(points: list[SweepPoint]) -> list[dict]:
    """What a point built and found; how many of its calls were reused depends on which
    points ran before it, so that is left out."""
    return [p.model_dump(exclude={"run_id", "seconds", "reused", "llm"}) for p in points]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=str(LOCOMO))
    ap.add_argument("--conv", default="conv-26")
    ap.add_argument("--window", default="10,20,30,40")
    ap.add_argument("--variant", default="nemori,nemori-s")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--server", action="store_true",
                    help="the model behind the test suite's local OpenAI-compatible server "
                         "(deterministic replies) instead of the offline engine")
    ap.add_argument("--delay", type=float, default=0.0, help="the server's latency per request")
    args = ap.parse_args()
    if args.server:
        with OpenAIServer() as server:
            server.responder, server.delay = respond, args.delay
            os.environ["OPENAI_API_KEY"] = "bench"     # the workers inherit it
            compare(args, PipelineConfig(backend="openai", model="bench-model",
                                         base_url=server.url), "the local server",
                    lambda: len(server.chat_requests))
    else:
        compare(args, PipelineConfig(), "offline", lambda: 0)


def compare(args, base: PipelineConfig, engine: str, requests) -> None:
    conv = load_transcript(args.file).conversation(args.conv)
    grid = parse_grid({"window": args.window, "variant": args.variant})
    n = len(grid["window"]) * len(grid["variant"])
    print(f"{n}-point sweep (window {args.window} × {args.variant}) on {args.conv}, "
          f"{len(conv.messages)} messages, {engine}, {os.cpu_count()} cores shared with other work")
    print(f"before sequential: {load()}")
    sent = [requests()]
    seq = side(conv, grid, base, args.file, 1)
    sent.append(requests())
    print(f"before fanned:     {load()}")
    par = side(conv, grid, base, args.file, args.workers)
    sent.append(requests())
    print(f"after:             {load()}")
    print(f"{'':<16}{'seconds':>9}{'vectors stored':>16}{'LLM requests':>14}  ran as")
    for n, (label, (wall, _, vectors, how)) in enumerate(
            (("sequential", seq), (f"{args.workers} workers", par))):
        print(f"{label:<16}{wall:>9.1f}{vectors:>16}{sent[n + 1] - sent[n]:>14}  {how}")
    print(f"ratio {par[0] / seq[0]:.2f} (target <= 0.8); same memories and recall: "
          f"{figures(seq[1]) == figures(par[1])}")
    print("per point seconds (sequential / fanned):")
    for a, b in zip(seq[1], par[1]):
        print(f"  w={a.params.window:<3} {a.params.variant:<9}"
              f"{a.seconds:>7.1f} {b.seconds:>7.1f}")


if __name__ == "__main__":
    main()
