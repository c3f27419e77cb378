"""Re-derive an embedder's default τ from LoCoMo conversations (see core/tuning/calibrate.py).

    python benchmarks/calibrate_tau.py [--file F] [--embedder minilm|openai]
                                       [--embedding-model M] [--conversations conv-26,conv-30]

Builds a Nemori-s memory of each conversation (offline engine; an OpenAI embedder needs a key),
pairs every episode with the memories stored before it, and prints the similarity quartiles of
related and unrelated pairs and the τ that at most 5 % of unrelated pairs pass, per conversation
and pooled. The pooled figure is the embedder's default (config.DEFAULT_TAU). Beside it, per
episode: the share of episodes that have an unrelated memory above the default τ, and the τ
that would keep that share to 5 %.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nemori_ui.core.clients import build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig, default_tau  # noqa: E402
from nemori_ui.core.pipeline.runner import run_windows, start_run  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402
from nemori_ui.core.tuning.calibrate import (EpisodeChance, Threshold, best_threshold,  # noqa: E402
                                             episode_chance, episode_pairs)
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
    tau = default_tau(args.embedder, args.embedding_model)
    pooled_rel, pooled_unrel, pooled_episodes = [], [], []
    for conv in transcript.conversations:
        if wanted and conv.id not in wanted:
            continue
        run_id = start_run(store, conv, config, clients, source=args.file, fmt="locomo")
        run_windows(store, run_id, clients)
        per_episode = episode_pairs(conv, load_run_data(store, run_id))
        rel = [x for r, _ in per_episode for x in r]
        unrel = [x for _, u in per_episode for x in u]
        pooled_rel += rel
        pooled_unrel += unrel
        pooled_episodes += per_episode
        _show(conv.id, best_threshold(rel, unrel), episode_chance(per_episode, tau))
    _show("pooled", best_threshold(pooled_rel, pooled_unrel), episode_chance(pooled_episodes, tau))


def _show(label: str, b: Threshold, e: EpisodeChance) -> None:
    print(f"{label}: τ = {b.tau:.2f} (admits {b.related_admitted:.0%} of {b.related} "
          f"related pairs, {b.unrelated_admitted:.1%} of {b.unrelated} unrelated; "
          f"Youden's J would pick {b.youden_tau:.2f}); quartiles related "
          f"{b.related_quartiles}, unrelated {b.unrelated_quartiles}")
    print(f"    per episode: {e.evoking_unrelated:.0%} of {e.episodes} episodes have an unrelated "
          f"memory above the default τ = {e.tau:.2f}, and {e.evoking_related:.0%} of the "
          f"{e.with_related} with a related one before them have that above it; "
          f"τ = {e.tau_for_chance:.2f} would keep the unrelated to 5 % and the related to "
          f"{e.related_at_chance:.0%}")


if __name__ == "__main__":
    main()
