"""Does the method behave on the default path? Prints the figures that say so.

    python benchmarks/bench_method.py [--locomo F] [--conversations conv-26,conv-30]
                                      [--labelled T.txt --labels T.json]

- the bundled sample: insights Nemori distils against Nemori-s (prediction should save work);
- LoCoMo: the share of episodes after each conversation's first session that evoke a memory;
- a labelled transcript (default: the tests' own): active memories that come only from talk,
  changed facts whose old version ended superseded, and conflicts between distinct events.
All with the offline engine, MiniLM and the embedder's default τ, each in a fresh home.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nemori_ui.core.clients import build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.pipeline.runner import run_windows, start_run  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.run_figures import run_figures  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402
from nemori_ui.core.views.run_data import load_run_data  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
SAMPLE = ROOT / "nemori_ui" / "data" / "sample_conversation.txt"
LABELLED = ROOT / "tests" / "fixtures" / "transcripts" / "labelled_facts.txt"


def build(path: Path, conv_id: str | None = None, **settings):
    store = open_store(tempfile.mkdtemp(prefix="nemori-method-"))
    conv = load_transcript(path).conversation(conv_id)
    config = PipelineConfig(**settings)
    clients = build_clients(config, store)
    run_id = start_run(store, conv, config, clients, source=str(path), fmt="auto")
    run_windows(store, run_id, clients)
    return store, run_id, conv


def sample_ratio() -> None:
    a = run_figures(*build(SAMPLE)[:2]).insights
    b = run_figures(*build(SAMPLE, variant="nemori-s")[:2]).insights
    print(f"sample: Nemori distils {a} insights, Nemori-s {b}: {a / b:.2f}x")


def evocation(path: Path, conv_id: str) -> None:
    store, run_id, conv = build(path, conv_id)
    data = load_run_data(store, run_id)
    first = min(m.session for m in conv.messages)
    opening = {m.id for m in conv.messages if m.session == first}
    later = [e for e in data.stage("anticipate")
             if not set(data.episode_by_id[e.payload.episode_id].message_ids) & opening]
    evoking = [e for e in later if any(x.passed for x in e.payload.evoked)]
    share = len(evoking) / len(later) if later else 0.0
    print(f"{conv_id}: {len(evoking)} of {len(later)} episodes after the first session evoke a "
          f"memory ({share:.0%}); τ = {data.info.config.tau:g}")


def labelled(text: Path, labels_path: Path) -> None:
    store, run_id, _ = build(text)
    data = load_run_data(store, run_id)
    labels = json.loads(labels_path.read_text())

    def message(part: str):
        return next(m for m in data.messages if part in m.text)

    talk = {message(p).id for p in labels["phatic"]}
    active = [m for m in data.memories if m.status == "active"]
    from_talk = [m for m in active if set(m.source_message_ids) <= talk]
    resolved = sum(any(m.status == "superseded" for m in data.memories
                       if message(old).id in m.source_message_ids)
                   for old, _ in labels["changes"])
    conflicts = [e for e in data.stage("consolidate") if e.payload.action == "conflict"]
    false = 0
    for a, b in labels["distinct"]:
        pair = {message(a).id, message(b).id}
        for e in conflicts:
            targets = [m for m in data.memories if m.id in e.payload.targets]
            touched = set(e.payload.source_message_ids) | \
                {i for t in targets for i in t.source_message_ids}
            false += pair <= touched
    print(f"{text.name}: {len(from_talk)} of {len(active)} active memories only from talk "
          f"({len(from_talk) / max(1, len(active)):.0%}); {resolved} of {len(labels['changes'])} "
          f"changed facts superseded; {len(conflicts)} conflicts, {false} between distinct events")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--locomo", default=str(LOCOMO))
    ap.add_argument("--conversations", default="conv-26,conv-30")
    ap.add_argument("--labelled", default=str(LABELLED))
    ap.add_argument("--labels", default=None, help="default: the transcript's .json beside it")
    args = ap.parse_args()
    sample_ratio()
    for conv_id in args.conversations.split(","):
        evocation(Path(args.locomo), conv_id)
    text = Path(args.labelled)
    labelled(text, Path(args.labels) if args.labels else text.with_suffix(".json"))


if __name__ == "__main__":
    main()
