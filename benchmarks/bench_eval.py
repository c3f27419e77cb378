"""The LoCoMo harness with the offline engine: Nemori, RAG-4096 and full context on the dev
conversations, per category, and the wall time of each.

    python benchmarks/bench_eval.py [--conversations conv-26,conv-30] [--home DIR]

Runs in a fresh home unless --home is given (then finished memories there are reused). The
offline engine answers with the best-matching retrieved sentence, so F1 and BLEU-1 measure
extraction, not a model; evidence recall@10 measures retrieval and is the figure to compare.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.eval.harness import EvalOptions, evaluate  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
SYSTEMS = ("nemori", "rag-4096", "full-context")


def cell(value, digits: int = 1) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=str(LOCOMO))
    ap.add_argument("--conversations", default="conv-26,conv-30")
    ap.add_argument("--home", help="run store to use (default: a fresh temporary one)")
    args = ap.parse_args()
    transcript = load_transcript(args.file)
    store = open_store(args.home or tempfile.mkdtemp(prefix="nemori-bench-eval-"))
    convs = [c.strip() for c in args.conversations.split(",") if c.strip()]
    rows, walls = [], {}
    for name in SYSTEMS:
        started = time.perf_counter()
        run = evaluate(store, transcript, PipelineConfig(),
                       EvalOptions(variant=name, conversations=convs), source=args.file)
        walls[name] = (time.perf_counter() - started, run.summary["build_seconds"])
        s = run.summary
        for key, g in [*s["by_category"].items(), ("overall", {"name": "overall", **s["overall"]})]:
            rows.append((g["name"], name, g))
    print(f"LoCoMo {', '.join(convs)} · offline engine, no LLM · judge skipped · k = 10")
    print(f"{'category':<13}{'system':<14}{'n':>5}{'F1':>7}{'BLEU-1':>8}{'recall@10':>11}"
          f"{'tokens':>8}{'retr ms':>9}{'total ms':>10}")
    order = ["multi-hop", "temporal", "open-domain", "single-hop", "overall"]
    for category in order:
        for cat, name, g in rows:
            if cat == category:
                print(f"{cat:<13}{name:<14}{g['questions']:>5}{cell(g['f1']):>7}"
                      f"{cell(g['bleu1']):>8}{cell(g['recall']):>11}"
                      f"{cell(g['context_tokens'], 0):>8}{cell(g['retrieval_ms']):>9}"
                      f"{cell(g['total_ms']):>10}")
    print("wall time: " + "; ".join(f"{name} {wall:.1f} s (memory or index {build:.1f} s)"
                                    for name, (wall, build) in walls.items()))


if __name__ == "__main__":
    main()
