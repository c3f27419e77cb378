"""The dev evaluation (LoCoMo conv-26 + conv-30; Nemori, RAG-4096, full context; offline engine)
one conversation after another, then fanned out on a local Ray with two workers: wall time of
each, whether both stored the same results, and LongMemEval_S at 100 workers projected from the
per-task cost measured here.

    python benchmarks/bench_scale.py [--workers 2] [--conversations conv-26,conv-30]

Each side runs in a fresh home, so both build both memories. The fanned-out wall time includes
starting Ray. The machine's load (`uptime`) is printed before and after: other work on the
same cores slows either side.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nemori_ui.core.clients import RunEnvironment
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval import results
from nemori_ui.core.eval.harness import EvalOptions, evaluate
from nemori_ui.core.retrieval import count_tokens
from nemori_ui.core.scale import executor_for, ray_executor
from nemori_ui.core.store import open_store
from nemori_ui.core.transcripts import load_transcript

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
SYSTEMS = ("nemori", "rag-4096", "full-context")
LME_INSTANCES, LME_TOKENS = 500, 105_000    # LongMemEval_S: 500 conversations of ~105K tokens


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def untimed(value):
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items()
                if not k.endswith(("_ms", "_s", "seconds")) and k != "created_at"}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def run_all(transcript, convs, source, workers: int) -> tuple[float, dict]:
    store = open_store(tempfile.mkdtemp(prefix=f"nemori-bench-scale-{workers}-"))
    started = time.perf_counter()
    walls, stored = {}, {}
    for name in SYSTEMS:
        t0 = time.perf_counter()
        run = evaluate(store, transcript, PipelineConfig(),
                       EvalOptions(variant=name, conversations=convs), source=source,
                       env=RunEnvironment(executor=executor_for(workers)))
        walls[name] = time.perf_counter() - t0
        stored[name] = (untimed(run.summary),
                        [untimed(r.model_dump()) for r in results.load_questions(store, run.id)],
                        run)
    return time.perf_counter() - started, {"walls": walls, "stored": stored}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=str(LOCOMO))
    ap.add_argument("--conversations", default="conv-26,conv-30")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--target-workers", type=int, default=100)
    args = ap.parse_args()
    transcript = load_transcript(args.file)
    convs = [c.strip() for c in args.conversations.split(",") if c.strip()]
    tokens = {c.id: count_tokens("\n".join(m.text for m in c.messages))
              for c in transcript.conversations if c.id in convs}
    print(f"LoCoMo {', '.join(convs)} ({sum(tokens.values()):,} tokens) · {', '.join(SYSTEMS)} · "
          f"offline engine · {os.cpu_count()} cores")
    print(f"before: {load()}")

    cpu = time.process_time()   # every thread of this process: MiniLM's too
    seq_wall, seq = run_all(transcript, convs, args.file, 1)
    cpu = time.process_time() - cpu
    cores = os.cpu_count() or 1
    # the same work split over the machine's cores cannot end sooner than this
    print(f"sequential: {cpu:.1f} CPU-s in {seq_wall:.1f} s, {cpu / seq_wall:.2f} of {cores} "
          f"cores busy; over {cores} cores the same work takes at least {cpu / cores:.1f} s "
          f"({cpu / cores / seq_wall:.2f}x)")

    landing = []
    land = ray_executor.transfer.land

    def timed_land(store, rows):
        t0 = time.perf_counter()
        land(store, rows)
        landing.append(time.perf_counter() - t0)
    ray_executor.transfer.land = timed_land
    par_wall, par = run_all(transcript, convs, args.file, args.workers)
    ray_executor.transfer.land = land
    print(f"after: {load()}")

    same = all(seq["stored"][n][:2] == par["stored"][n][:2] for n in SYSTEMS)
    print(f"{'system':<14}{'sequential s':>14}{f'{args.workers} workers s':>14}")
    for name in SYSTEMS:
        print(f"{name:<14}{seq['walls'][name]:>14.1f}{par['walls'][name]:>14.1f}")
    print(f"{'all':<14}{seq_wall:>14.1f}{par_wall:>14.1f}   ratio {par_wall / seq_wall:.2f} "
          f"(target <= 0.65); stored results the same: {same}")

    # the per-task cost, as the workers measured it (one core each): building the memory,
    # per token of conversation, and answering, per question (the overall mean)
    nemori = par["stored"]["nemori"][2].summary
    per_token = nemori["build_seconds"] / sum(tokens.values())
    answer_s = (nemori["overall"]["total_ms"] or 0) / 1000
    instance = per_token * LME_TOKENS + answer_s      # one question per instance
    waves = math.ceil(LME_INSTANCES / args.target_workers)
    nemori_landing = landing[:len(convs)]       # the Nemori tasks land first, the largest
    land_s = sum(nemori_landing) / max(1, len(nemori_landing))
    # what the fanned-out Nemori evaluation took beyond its slowest task: Ray's start, shipping
    # conversations and rows, landing
    slowest = max(per_token * t + answer_s * (nemori["questions"] / len(convs))
                  for t in tokens.values())
    overhead = max(0.0, par["walls"]["nemori"] - slowest)
    projected = waves * instance + overhead + LME_INSTANCES * land_s
    print(f"per task (one worker, one core): memory {per_token * 1000:.2f} s per 1k tokens, "
          f"an answer {answer_s * 1000:.0f} ms; landing a task's rows {land_s:.2f} s; "
          f"overhead beyond the slowest task {overhead:.1f} s")
    print(f"LongMemEval_S ({LME_INSTANCES} instances of ~{LME_TOKENS // 1000}K tokens) at "
          f"{args.target_workers} workers: {waves} waves of {instance:.0f} s + landing "
          f"{LME_INSTANCES * land_s:.0f} s on the driver + {overhead:.0f} s = "
          f"~{projected / 60:.0f} min (one after another on one core: "
          f"~{LME_INSTANCES * instance / 3600:.1f} h)")


if __name__ == "__main__":
    main()
