"""`compare`: two runs side by side: partitions, knowledge, counts and cost."""

from __future__ import annotations

from dataclasses import asdict

from ..core.clients import build_clients
from ..core.config import PipelineConfig
from ..core.run_figures import run_figures
from ..core.store import runs
from ..core.tuning.compare import compare_runs, prediction_change
from ..core.views.run_data import load_run_data
from .commands import COMMANDS
from .common import add_home, print_json, store_from


def add_parser(sub) -> None:
    p = sub.add_parser("compare", help=COMMANDS["compare"])
    p.add_argument("run_a")
    p.add_argument("run_b")
    p.add_argument("--json", action="store_true")
    add_home(p)


def _prediction(store, a, b):
    """Nemori beside Nemori-s, when the two runs are one of each."""
    if {a.info.config.variant, b.info.config.variant} != {"nemori", "nemori-s"}:
        return None
    embedder = build_clients(PipelineConfig(embedder=a.info.config.embedder), store).embedder
    return prediction_change(a, b, runs.stored_conversation(store, a.run_id), embedder.embed)


def run(args) -> int:
    store = store_from(args)
    a, b = load_run_data(store, args.run_a), load_run_data(store, args.run_b)
    result = compare_runs(a, b, run_figures(store, a.run_id), run_figures(store, b.run_id))
    change = _prediction(store, a, b)
    if args.json:
        print_json({**asdict(result), **({"prediction": asdict(change)} if change else {})})
        return 0
    p, k = result.partition, result.knowledge
    print(f"{a.run_id} vs {b.run_id}" + (" (identical)" if result.identical else ""))
    for name, (va, vb) in result.config_changes.items():
        print(f"  setting {name}: {va} → {vb}")
    print(f"  partitions: boundary precision {p.precision:.2f}, recall {p.recall:.2f}, "
          f"WindowDiff {p.window_diff:.3f}")
    print(f"  knowledge: {len(k.same)} same, {len(k.reworded)} reworded, "
          f"{len(k.contradicted)} contradicted, {len(k.only_a)} only in A, "
          f"{len(k.only_b)} only in B")
    print("  deltas (B - A): " + ", ".join(f"{n} {v:+d}"
                                           for n, v in asdict(result.deltas).items()))
    if change:
        print(f"  prediction (Nemori {change.nemori} beside Nemori-s {change.nemori_s}): "
              f"{change.predicted} statements predicted; insights {change.insights[0]} / "
              f"{change.insights[1]}, consolidation decisions {change.decisions[0]} / "
              f"{change.decisions[1]}, memories {change.memories[0]} / {change.memories[1]} "
              f"({change.differ} differ)")
        if change.evidence:
            print(f"  memory-only evidence recall within {change.tokens} tokens: "
                  f"{change.evidence[0]:.1%} / {change.evidence[1]:.1%}")
        print(f"  {change.verdict}")
    return 0
