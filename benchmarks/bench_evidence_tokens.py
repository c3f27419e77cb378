"""Evidence per context token: Nemori's retrieval against plain message retrieval.

    python benchmarks/bench_evidence_tokens.py [--file F] [--conversations conv-26,conv-30]
                                               [--k 10] [--episode-match narrative]

For every LoCoMo question (categories 1-4) Nemori's context (k narratives, 2k memories, the raw
messages of the top r episodes) is built from the offline default memory, and its share of the
question's evidence turns is counted as the evaluation counts it (episodes, and the turns a
retrieved memory was distilled from and states). Plain message retrieval gets the same budget:
every turn embedded as `Speaker: text [Image: caption]` with the same MiniLM, the most similar
turns taken while they fit in that question's own Nemori context tokens (four characters a
token, as everywhere). Prints both shares and their ratio per category and overall.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nemori_ui.core.clients import build_embedder  # noqa: E402
from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.eval import results  # noqa: E402
from nemori_ui.core.eval.harness import EvalOptions, evaluate  # noqa: E402
from nemori_ui.core.eval.qa import category_name  # noqa: E402
from nemori_ui.core.retrieval import count_tokens  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"


def message_share(rows, conv, embedder) -> list[float]:
    """Evidence share of top-similarity turns filling each question's Nemori budget."""
    lines = [f"{m.speaker}: {m.text}" for m in conv.messages]
    vectors = embedder.embed(lines)
    cost = [count_tokens(line) + 1 for line in lines]       # +1: the line break
    shares = []
    questions = embedder.embed([r.question for r in rows])
    for r, q in zip(rows, questions):
        taken, used = set(), 0
        for i in np.argsort(-(vectors @ q)):
            if used + cost[i] > r.context_tokens:
                break
            taken.add(conv.messages[i].id)
            used += cost[i]
        wanted = [e["message_id"] for e in r.evidence]
        shares.append(sum(w in taken for w in wanted) / len(wanted))
    return shares


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=str(LOCOMO))
    ap.add_argument("--conversations", default="conv-26,conv-30")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--episode-match", choices=["narrative+messages", "narrative"],
                    default="narrative+messages")
    args = ap.parse_args()
    transcript = load_transcript(args.file)
    wanted = args.conversations.split(",")
    store = open_store(tempfile.mkdtemp(prefix="nemori-evidence-"))
    config = PipelineConfig(episode_match=args.episode_match)
    run = evaluate(store, transcript, config,
                   EvalOptions(conversations=wanted, k=args.k), source=args.file)
    rows = [r for r in results.load_questions(store, run.id) if r.evidence_share is not None]
    embedder = build_embedder(config, store)
    by_cat: dict[str, list[tuple[float, float, float, int]]] = defaultdict(list)
    for conv in transcript.conversations:
        mine = [r for r in rows if r.conversation_id == conv.id]
        if not mine:
            continue
        for r, plain in zip(mine, message_share(mine, conv, embedder)):
            by_cat[r.category].append((r.evidence_share, r.evidence_share_episodes or 0.0, plain,
                                       r.context_tokens))
    print(f"evidence share at equal context tokens, {', '.join(wanted)} (k = {args.k}, "
          f"τ = {config.tau:g}, offline engine, episodes by {config.episode_match})")
    print(f"{'category':<14}{'n':>5}{'tokens':>8}{'Nemori':>9}{'episodes':>10}{'messages':>10}"
          f"{'ratio':>8}{'ratio ep':>10}")
    every = []
    for key in sorted(by_cat, key=lambda k: (not k.isdigit(), k)):
        _line(category_name(key), by_cat[key])
        every += by_cat[key]
    _line("overall", every)


def _line(name: str, items) -> None:
    a = np.asarray(items, dtype=float)
    nemori, episodes, plain, tokens = a[:, 0].mean(), a[:, 1].mean(), a[:, 2].mean(), a[:, 3].mean()
    ratio = nemori / plain if plain else float("inf")
    ratio_ep = episodes / plain if plain else float("inf")
    print(f"{name:<14}{len(a):>5}{tokens:>8.0f}{nemori:>9.1%}{episodes:>10.1%}{plain:>10.1%}"
          f"{ratio:>8.2f}{ratio_ep:>10.2f}")


if __name__ == "__main__":
    main()
