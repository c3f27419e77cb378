"""Re-derive an embedder's default τ from LoCoMo conversations (see core/tuning/calibrate.py).

    python benchmarks/calibrate_tau.py [--file F] [--embedder minilm|openai]
                                       [--embedding-model M] [--conversations conv-26,conv-30]

Builds a Nemori-s memory of each conversation (offline engine; an OpenAI embedder needs a key),
pairs every episode with the memories stored before it, and prints the similarity quartiles of
related and unrelated pairs and the τ that at most 5 % of unrelated pairs pass, per conversation
and pooled. The pooled figure is the embedder's default (config.DEFAULT_TAU).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nemori_ui.core.clients import build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.pipeline.runner import run_windows, start_run  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402
from nemori_ui.core.tuning.calibrate import Threshold, best_threshold, evidence_pairs  # noqa: E402
from nemori_ui.core.views.run_data import load_run_data  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=str(LOCOMO))
    ap.add_argument("--embedder", default="minilm")
    ap.add_argument("--embedding-model", default="text-embedding-3-small")
    ap.add_argument("--conversations", default=None)
    args = ap.parse_args()
    transcript = load_transcript(args.file)
    wanted = args.conversations.split(",") if args.conversations else None
    config = PipelineConfig(variant="nemori-s", embedder=args.embedder,
                            embedding_model=args.embedding_model)
    store = open_store(tempfile.mkdtemp(prefix="nemori-calibrate-"))
    clients = build_clients(config, store)
    pooled_rel, pooled_unrel = [], []
    for conv in transcript.conversations:
        if wanted and conv.id not in wanted:
            continue
        run_id = start_run(store, conv, config, clients, source=args.file, fmt="locomo")
        run_windows(store, run_id, clients)
        rel, unrel = evidence_pairs(conv, load_run_data(store, run_id))
        pooled_rel += rel
        pooled_unrel += unrel
        _show(conv.id, best_threshold(rel, unrel))
    _show("pooled", best_threshold(pooled_rel, pooled_unrel))


def _show(label: str, b: Threshold) -> None:
    print(f"{label}: τ = {b.tau:.2f} (admits {b.related_admitted:.0%} of {b.related} "
          f"related pairs, {b.unrelated_admitted:.1%} of {b.unrelated} unrelated; "
          f"Youden's J would pick {b.youden_tau:.2f}); quartiles related "
          f"{b.related_quartiles}, unrelated {b.unrelated_quartiles}")


if __name__ == "__main__":
    main()
