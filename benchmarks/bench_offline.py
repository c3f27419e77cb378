"""Offline engine end to end: wall time, messages per minute and peak memory.

    python benchmarks/bench_offline.py [--conversation conv-26] [--window 20]

Runs one LoCoMo conversation (default conv-26, 419 messages) in a fresh home, cold (nothing
cached) and then warm (the same inputs again: every embedding comes from the cache).
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nemori_ui.core.clients import build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.pipeline.runner import run_windows, start_run  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.run_figures import run_figures  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=str(LOCOMO))
    ap.add_argument("--conversation", default="conv-26")
    ap.add_argument("--window", type=int, default=20)
    args = ap.parse_args()
    conv = load_transcript(args.file).conversation(args.conversation)
    config = PipelineConfig(window=args.window)
    store = open_store(tempfile.mkdtemp(prefix="nemori-bench-"))
    rows = []
    for label in ("cold", "warm"):
        started = time.perf_counter()
        clients = build_clients(config, store)
        run_id = start_run(store, conv, config, clients, source=args.file, fmt="locomo",
                           resume=False)
        run_windows(store, run_id, clients)
        seconds = time.perf_counter() - started
        summary = run_figures(store, run_id)
        rows.append((label, seconds, len(conv.messages) / seconds * 60, summary))
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"offline engine on {args.conversation}: {len(conv.messages)} messages, w={args.window}")
    print(f"{'run':<6}{'seconds':>9}{'msgs/min':>10}{'episodes':>10}{'memories':>10}")
    for label, seconds, rate, s in rows:
        print(f"{label:<6}{seconds:>9.1f}{rate:>10.0f}{s.episodes:>10}{s.semantic_memories:>10}")
    print(f"peak memory (max RSS of the process): {peak_mb:.0f} MB")


if __name__ == "__main__":
    main()
