"""Derive the consolidation gate for MiniLM from LoCoMo conversations (config.DEFAULT_GATE).

    python benchmarks/calibrate_gate.py [--file F] [--tune conv-26] [--check conv-30]

Builds a memory of each conversation with every insight consolidated (offline engine,
`--consolidation always`), and pairs each insight with the candidates its consolidation looked
at. A pair is related when the insight and the candidate state the same LoCoMo observation
(eval/knowledge.py's "states"): those are the pairs a model could merge or find in conflict.
The gate is the similarity that admits 95 % of the related pairs of the tune conversation;
for the check conversation it prints what that gate admits and how many consolidation calls
it saves (insights whose nearest stored memory is below it).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nemori_ui.core.clients import build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.eval.knowledge import locomo_observations, states_matrix  # noqa: E402
from nemori_ui.core.pipeline.runner import run_windows, start_run  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402
from nemori_ui.core.views.run_data import load_run_data  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
ADMIT = 0.95


def pairs(conv, source: str, variant: str) -> tuple[list[float], list[float]]:
    """(similarities of related pairs, each insight's nearest candidate's similarity)."""
    config = PipelineConfig(variant=variant, consolidation="always")
    store = open_store(tempfile.mkdtemp(prefix="nemori-gate-"))
    clients = build_clients(config, store)
    run_id = start_run(store, conv, config, clients, source=source, fmt="auto")
    run_windows(store, run_id, clients)
    data = load_run_data(store, run_id)
    facts = [f for _, f, _ in locomo_observations(conv.extra)]
    fact_vecs = clients.embedder.embed(facts)
    decisions = [e.payload for e in data.stage("consolidate") if e.payload.candidates]
    texts = list(dict.fromkeys([d.insight for d in decisions] +
                               [c.text for d in decisions for c in d.candidates]))
    states = states_matrix(texts, clients.embedder.embed(texts), facts, fact_vecs, conv.speakers)
    row = {t: i for i, t in enumerate(texts)}
    related, nearest = [], []
    for d in decisions:
        nearest.append(max(c.score for c in d.candidates))
        said = states[row[d.insight]]
        related += [c.score for c in d.candidates if (said & states[row[c.text]]).any()]
    return related, nearest


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=str(LOCOMO))
    ap.add_argument("--tune", default="conv-26")
    ap.add_argument("--check", default="conv-30")
    args = ap.parse_args()
    by_id = {c.id: c for c in load_transcript(args.file).conversations}
    gate = None
    for role, conv_id in (("tune", args.tune), ("check", args.check)):
        related, nearest = [], []
        for variant in ("nemori", "nemori-s"):
            r, n = pairs(by_id[conv_id], args.file, variant)
            related += r
            nearest += n
        if gate is None:
            gate = float(np.floor(np.quantile(related, 1 - ADMIT) * 100) / 100)
            print(f"gate from {conv_id} ({role}): {gate:.2f}, admitting {ADMIT:.0%} of "
                  f"{len(related)} related insight-memory pairs")
        admitted = float(np.mean(np.asarray(related) >= gate)) if related else 0.0
        saved = float(np.mean(np.asarray(nearest) < gate)) if nearest else 0.0
        print(f"{conv_id} ({role}): gate {gate:.2f} admits {admitted:.1%} of {len(related)} "
              f"related pairs; {saved:.1%} of {len(nearest)} consolidations need no call")


if __name__ == "__main__":
    main()
