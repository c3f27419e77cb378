"""Derive the consolidation gate for MiniLM (config.DEFAULT_GATE) from statement pairs of ours.

    python benchmarks/calibrate_gate.py [--pairs tests/fixtures/gate_pairs.json]
                                        [--file F] [--tune conv-26] [--check conv-30]

The gate is the level of two statements saying the same fact: the similarity that admits 95 %
of the `same` pairs (reworded, or with a detail added) of the fixture. Printed beside it: what
that gate admits of the `conflict` pairs (the same attribute given another value) and of the
`distinct` ones (another fact about the same person), with and without the reading of parts
that sends a possible contradiction to a call (pipeline/consolidation_gate.py), and the same
for the old gate (0.60). Then, as a figure only (nothing is derived from it), the share of a
real stream of statements that would get a call: each LoCoMo observation of a conversation in
order, its nearest earlier observation as the nearest stored memory.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.embed import load_minilm  # noqa: E402
from nemori_ui.core.models import SemanticMemory  # noqa: E402
from nemori_ui.core.pipeline.consolidation_gate import why_ask  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
PAIRS = ROOT / "tests" / "fixtures" / "gate_pairs.json"
ADMIT = 0.95
OLD_GATE = 0.60
LIMITS = PipelineConfig().offline   # what the gate's reading of parts compares against


def memory(text: str, n: int = 1) -> SemanticMemory:
    return SemanticMemory(id=f"sm{n:04d}", text=text, window=0)


def asked(insight: str, stored: str, score: float, gate: float, read_parts: bool) -> bool:
    if not read_parts:
        return score >= gate
    return why_ask(insight, [(memory(stored), score)], gate, LIMITS) is not None


def pair_figures(pairs: list[dict], embedder) -> float:
    scored: dict[str, list[tuple[dict, float]]] = {}
    for p in pairs:
        a, b = embedder.embed([p["stored"], p["insight"]])
        scored.setdefault(p["label"], []).append((p, float(np.dot(a, b))))
    same = np.array([s for _, s in scored["same"]])
    gate = float(np.floor(np.quantile(same, 1 - ADMIT) * 100) / 100)
    for label, items in scored.items():
        s = np.array([x for _, x in items])
        print(f"{label:<9}{len(items):>4} pairs, similarity {s.min():.2f} to {s.max():.2f} "
              f"(median {np.median(s):.2f})")
    print(f"\ngate: {gate:.2f}, admitting {ADMIT:.0%} of the {len(same)} pairs that say the "
          f"same fact\n")
    print(f"{'gate':<28}" + "".join(f"{label:>10}" for label in scored))
    for g in (gate, OLD_GATE):
        for read_parts in (False, True):
            name = f"{g:.2f}" + (" + reading of parts" if read_parts else " similarity alone")
            cells = [np.mean([asked(p["insight"], p["stored"], s, g, read_parts) for p, s in items])
                     for items in scored.values()]
            print(f"{name:<28}" + "".join(f"{c:>10.0%}" for c in cells))
    return gate


def stream_figures(path: Path, conv_id: str, role: str, gate: float, embedder) -> None:
    conv = next(c for c in json.loads(path.read_text()) if c["sample_id"] == conv_id)
    sessions = sorted(conv["observation"], key=lambda k: int(k.split("_")[1]))
    facts = [t for k in sessions for items in conv["observation"][k].values() for t, _ in items]
    vecs = embedder.embed(facts)
    calls = {g: 0 for g in (gate, OLD_GATE)}
    for i in range(1, len(facts)):
        scores = vecs[:i] @ vecs[i]
        best = np.argsort(-scores)[:5]
        candidates = [(memory(facts[j], int(j)), float(scores[j])) for j in best]
        for g in calls:
            calls[g] += why_ask(facts[i], candidates, g, LIMITS) is not None
    n = len(facts) - 1
    print(f"{conv_id} ({role}): {n} observations after the first; a call for " +
          ", ".join(f"{calls[g] / n:.0%} at {g:.2f}" for g in calls))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--pairs", type=Path, default=PAIRS)
    ap.add_argument("--file", type=Path, default=LOCOMO)
    ap.add_argument("--tune", default="conv-26")
    ap.add_argument("--check", default="conv-30")
    args = ap.parse_args()
    embedder = load_minilm()
    gate = pair_figures(json.loads(args.pairs.read_text())["pairs"], embedder)
    if args.file.exists():
        print("\nLoCoMo observations as a stream of insights (a figure, not a derivation):")
        for role, conv_id in (("tune", args.tune), ("check", args.check)):
            stream_figures(args.file, conv_id, role, gate, embedder)


if __name__ == "__main__":
    main()
