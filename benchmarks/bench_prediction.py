"""Is prediction real? Prediction precision and repeat recall of the offline engine. Prints them.

    python benchmarks/bench_prediction.py [--data FILE] [--conversations conv-26,conv-30]
                                          [--labelled DIR ...] [--no-locomo] [--no-labelled]
                                          [--show N]

For each LoCoMo-shaped conversation and each labelled transcript, a fresh offline run with the
defaults (Nemori), then (nemori_ui/core/eval/prediction.py says how each is counted):
- skipped: statements not stored because a prediction held them;
- precision: the share of those whose covering memory was learnt only from messages outside
  the episode being distilled (not the episode re-reading its own first part);
- repeats: facts the same speaker tells again in a later session (LoCoMo: two observations of
  hers, MiniLM cosine >= 0.85 and a shared content word; labelled: the file's `repeats`), and
  what became of the second telling: predicted (recall), stored again, merged by
  consolidation, carried, or not read as a statement at all;
- read twice: messages that more than one distillation read (should be 0);
- wrong: skipped statements whose message tells a reference fact for the first time (a fact
  lost to a prediction that could not have known it), of those whose message tells one.

conv-26 and tests/fixtures/labelled/tune are what the engine may be tuned on; conv-30,
tests/fixtures/labelled/check and tests/fixtures/labelled/heldout never are, and are printed
under their role. `--show N` prints N repeats of each with their fate, to read by eye.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_knowledge import ROLE, build, data_options  # noqa: E402
from nemori_ui.core.eval.labelled import load_labels  # noqa: E402
from nemori_ui.core.eval.prediction import (FATES, PREDICTED, fates, labelled_facts,  # noqa: E402
                                            labelled_repeats, locomo_repeats,
                                            prediction_figures, reference_facts, repeat_fate)
from nemori_ui.core.transcripts import load_transcript  # noqa: E402

SHORT = {"stored again": "stored", "not read as a statement": "unread"}


def header() -> None:
    print(f"{'role':<10}{'conversation':<16}{'msgs':>5}{'skipped':>8}{'prec':>6}"
          f"{'repeats':>8}{'recall':>7}" + "".join(f"{SHORT.get(f, f):>9}" for f in FATES[1:])
          + f"{'read 2x':>8}{'wrong':>8}")


def report(role: str, name: str, conv, repeats_of, told, show: int, **settings) -> dict:
    """`repeats_of(embed)`: the conversation's repeats; `told`: its reference facts."""
    data, embedder = build(conv, name, **settings)
    repeats = repeats_of(embedder.embed)
    f = prediction_figures(data, repeats, embedder.embed, told)
    print(f"{role:<10}{name:<16}{len(conv.messages):>5}{f.skipped:>8}{f.precision:>6.2f}"
          f"{f.repeats:>8}{f.recall:>7.2f}"
          + "".join(f"{f.outcomes.get(x, 0):>9}" for x in FATES[1:]) + f"{f.distilled_twice:>8}"
          + f"{f'{f.wrong}/{f.judged}':>8}")
    if show:
        every = fates(data)
        for r in repeats[:show]:
            print(f"    [{repeat_fate(r, every, embedder.embed)}] {r.first!r} -> {r.later!r}")
        for x in [x for x in every if x.fate == PREDICTED][:show]:
            memory = data.memory_by_id.get(x.memory_id)
            print(f"    skipped {x.text!r} ({','.join(x.message_ids)}) held by "
                  f"{memory.text if memory else None!r} from "
                  f"{','.join(memory.source_message_ids[:3]) if memory else '-'}")
    return {"recall": f.recall, "wrong": f.wrong, "judged": f.judged, "repeats": f.repeats,
            "predicted": f.outcomes.get(PREDICTED, 0), "stored": f.outcomes.get(FATES[2], 0)}


def main() -> None:
    ap = data_options(__doc__.split("\n\n")[0])
    ap.add_argument("--show", type=int, default=0, help="print this many repeats of each")
    args = ap.parse_args()
    print("Prediction precision and repeat recall (offline engine, MiniLM, defaults)")
    header()
    if not args.no_locomo:
        transcript = load_transcript(Path(args.data))
        for conv_id in args.conversations.split(","):
            conv = transcript.conversation(conv_id)
            report(ROLE.get(conv_id, "unseen"), conv_id, conv,
                   lambda embed, c=conv: locomo_repeats(c, embed), reference_facts(conv),
                   args.show)
    if not args.no_labelled:
        for folder in map(Path, args.labelled):
            for text in sorted(folder.glob("*.txt")):
                conv = load_transcript(text).conversation(None)
                labels = load_labels(text)
                report(ROLE.get(folder.name, folder.name), text.stem, conv,
                       lambda embed, c=conv, l=labels: labelled_repeats(l, c.messages),
                       labelled_facts(labels, conv.messages), args.show)
    print("  skipped: statements not stored because a prediction held them; prec: share of "
          "those held by a memory from outside their episode; recall: repeats predicted on "
          "their second telling; wrong: skipped statements that told a reference fact for "
          "the first time, of those whose message tells one")


if __name__ == "__main__":
    main()
