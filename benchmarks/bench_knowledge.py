"""Is what the offline engine stores knowledge a reader would accept? Prints the figures.

    python benchmarks/bench_knowledge.py [--data FILE] [--conversations conv-26,conv-30]
                                         [--labelled DIR ...] [--memory-tokens 400]
                                         [--no-locomo] [--no-labelled] [--show N]

LoCoMo-shaped files (any of them): each conversation's active memories are scored against its
`observation` annotations (nemori_ui/core/eval/knowledge.py says what "states" means) for
Nemori, Nemori-s and a plain message store (every turn as `Speaker: text`): precision, recall,
memories per message. Then conflicts: how many, how many whose old and new statements come from
different speakers, how many replace more than one memory. Then memory-only evidence recall at
equal tokens: for each question (categories 1-4), the most similar active memories while they
fit in --memory-tokens, and the share of its evidence turns they carry (eval/evidence.py).

Labelled transcripts (default: tests/fixtures/labelled/tune, .../check and .../heldout): facts
precision and recall, real changes resolved, false conflicts, talk share, duplicated repeats,
details stored (eval/labelled.py). conv-26 and the tune folder are what the engine may be tuned
on; conv-30, the check folder and the held-out folder never are: the figures are printed under
those names.
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
from nemori_ui.core.eval import qa  # noqa: E402
from nemori_ui.core.eval.evidence import memory_only_recall  # noqa: E402
from nemori_ui.core.eval.knowledge import locomo_observations, score  # noqa: E402
from nemori_ui.core.eval.labelled import load_labels, score_labelled  # noqa: E402
from nemori_ui.core.pipeline.runner import run_windows, start_run  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402
from nemori_ui.core.views.run_data import load_run_data  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
LABELLED = [ROOT / "tests" / "fixtures" / "labelled" / name
            for name in ("tune", "check", "heldout")]
# what each conversation or labelled folder is to the engine: tuned on, or never
ROLE = {"conv-26": "tune", "conv-30": "check", "tune": "tune", "check": "check",
        "heldout": "held out"}


def build(conv, source: str, **settings):
    store = open_store(tempfile.mkdtemp(prefix="nemori-bench-"))
    config = PipelineConfig(**settings)
    clients = build_clients(config, store)
    run_id = start_run(store, conv, config, clients, source=source, fmt="auto")
    run_windows(store, run_id, clients)
    return load_run_data(store, run_id), clients.embedder


def conflict_figures(data) -> tuple[int, int, int]:
    """(conflicts, conflicts across speakers, conflicts replacing more than one memory)."""
    speaker = {m.id: m.speaker for m in data.messages}
    conflicts = [e.payload for e in data.stage("consolidate") if e.payload.action == "conflict"]
    cross = 0
    for c in conflicts:
        new = {speaker[i] for i in c.source_message_ids if i in speaker}
        old = {speaker[i] for t in c.targets if t in data.memory_by_id
               for i in data.memory_by_id[t].source_message_ids if i in speaker}
        cross += bool(new and old and not new & old)
    return len(conflicts), cross, sum(len(c.targets) > 1 for c in conflicts)


def memory_evidence(data, conv, embedder, budget: int) -> float:
    """Mean share of each question's evidence turns carried by its top memories in `budget`."""
    active = [m for m in data.memories if m.status == "active"]
    items = [i for i in qa.locomo_items(conv).items if i.evidence]
    if not active or not items:
        return 0.0
    return memory_only_recall(active, np.asarray([m.embedding for m in active], dtype=np.float32),
                              {m.id: m for m in conv.messages}, items,
                              embedder.embed([i.question for i in items]), budget)


def locomo(path: Path, conv_ids: list[str], budget: int, show: int) -> None:
    transcript = load_transcript(path)
    print(f"LoCoMo observations ({path.name}); 'states' = MiniLM cosine >= 0.72 and a shared "
          "content word")
    print(f"{'conversation':<22}{'system':<10}{'memories':>9}{'per msg':>9}{'precision':>11}"
          f"{'recall':>8}{'conflicts':>11}{'cross':>7}{'multi':>7}{'mem evid':>10}")
    for conv_id in conv_ids:
        conv = transcript.conversation(conv_id)
        facts = [f for _, f, _ in locomo_observations(conv.extra)]
        name = f"{conv_id} ({ROLE.get(conv_id, 'unseen')})"
        for system, settings in (("Nemori", {}), ("Nemori-s", {"variant": "nemori-s"})):
            data, embedder = build(conv, str(path), **settings)
            active = [m.text for m in data.memories if m.status == "active"]
            s = score(active, facts, conv.speakers, len(conv.messages), embedder.embed)
            c, cross, multi = conflict_figures(data)
            ev = memory_evidence(data, conv, embedder, budget)
            print(f"{name:<22}{system:<10}{s.memories:>9}{s.per_message:>9.2f}"
                  f"{s.precision:>11.2f}{s.recall:>8.2f}{c:>11}{cross:>7}{multi:>7}{ev:>10.1%}")
            if show and system == "Nemori":
                for text in active[:show]:
                    print(f"    {text}")
        plain = [f"{m.speaker}: {m.text}" for m in conv.messages]
        s = score(plain, facts, conv.speakers, len(conv.messages), embedder.embed)
        print(f"{name:<22}{'messages':<10}{s.memories:>9}{s.per_message:>9.2f}"
              f"{s.precision:>11.2f}{s.recall:>8.2f}")
    print(f"  mem evid: memory-only evidence recall, top memories within {budget} tokens a "
          "question")


def labelled(folders: list[Path]) -> None:
    print("\nLabelled transcripts (offline engine, MiniLM, default τ)")
    print(f"{'set':<8}{'transcript':<16}{'msgs':>5}{'mems':>6}{'prec':>6}{'recall':>7}"
          f"{'changes':>9}{'false c':>8}{'talk':>6}{'dup rep':>8}{'details':>8}")
    for folder in folders:
        for text in sorted(folder.glob("*.txt")):
            conv = load_transcript(text).conversation(None)
            data, embedder = build(conv, str(text))
            r = score_labelled(load_labels(text), data.messages, data.memories, data.events,
                               conv.speakers, embedder.embed)
            k = r.knowledge
            print(f"{folder.name:<8}{text.stem:<16}{k.messages:>5}{k.memories:>6}"
                  f"{k.precision:>6.2f}{k.recall:>7.2f}{f'{r.resolved}/{r.changes}':>9}"
                  f"{r.false_conflicts:>8}{r.talk_share:>6.2f}{f'{r.duplicated}/{r.repeats}':>8}"
                  f"{f'{r.details_stored}/{r.details}':>8}")


def data_options(description: str) -> argparse.ArgumentParser:
    """The options every benchmark of memory quality reads its material by."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--data", default=str(LOCOMO), help="a LoCoMo-shaped JSON file")
    ap.add_argument("--conversations", default="conv-26,conv-30")
    ap.add_argument("--labelled", nargs="*", default=[str(p) for p in LABELLED],
                    help="folders of labelled transcripts (.txt beside its .json)")
    ap.add_argument("--no-locomo", action="store_true")
    ap.add_argument("--no-labelled", action="store_true")
    return ap


def main() -> None:
    ap = data_options(__doc__.split("\n\n")[0])
    ap.add_argument("--memory-tokens", type=int, default=400)
    ap.add_argument("--show", type=int, default=0, help="print this many Nemori memories")
    args = ap.parse_args()
    if not args.no_locomo:
        locomo(Path(args.data), args.conversations.split(","), args.memory_tokens, args.show)
    if not args.no_labelled:
        labelled([Path(p) for p in args.labelled])


if __name__ == "__main__":
    main()
