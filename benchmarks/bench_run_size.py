"""What a run stores as it grows: stage events and memory text per 1,000 messages, offline.

    python benchmarks/bench_run_size.py [--messages 5000] [--window 20] [--no-locomo]

The synthetic transcript is the dev conversations' sessions one after another, again and
again with the dates moved on a year each time, up to `--messages`: the same people telling
the same facts again, which is what makes a memory that keeps being merged grow. It runs on
the offline engine in a fresh home; then conv-26 alone, for a real conversation's figures.
Printed: events bytes (every column of the events table), memory text bytes (every version
of every memory), both per 1,000 messages, and the longest memory text.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a source checkout

from nemori_ui.core.clients import build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.models import Conversation  # noqa: E402
from nemori_ui.core.pipeline.runner import run_windows, start_run  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
EVENT_COLUMNS = ("stage", "payload", "message_ids", "episode_ids", "memory_ids", "call_ids")


def synthetic(path: Path, n_messages: int) -> Conversation:
    """The dev conversations' messages repeated, each pass a year later, to `n_messages`."""
    convs = load_transcript(path).conversations
    messages, passes, sessions = [], 0, 0
    while len(messages) < n_messages:
        shift = timedelta(days=366 * passes)
        for conv in convs:
            for m in conv.messages[:n_messages - len(messages)]:
                messages.append(m.model_copy(update={
                    "id": f"p{passes}-{conv.id}-{m.id}", "session": sessions + m.session,
                    "timestamp": m.timestamp + shift if m.timestamp else None}))
            sessions += max((m.session for m in conv.messages), default=0)
        passes += 1
    speakers = list(dict.fromkeys(s for c in convs for s in c.speakers))
    return Conversation(id=f"synthetic-{n_messages}", messages=messages, speakers=speakers)


def run_size(conv: Conversation, window: int) -> dict:
    store = open_store(tempfile.mkdtemp(prefix="nemori-bench-size-"))
    config = PipelineConfig(window=window)
    clients = build_clients(config, store)
    started = time.perf_counter()
    run_id = start_run(store, conv, config, clients, source=conv.id, fmt="text", resume=False)
    run_windows(store, run_id, clients)
    seconds = time.perf_counter() - started
    events = store.query("SELECT " + " + ".join(f"length(CAST({c} AS BLOB))"
                                                for c in EVENT_COLUMNS)
                         + " AS n, stage FROM events WHERE run_id = ?", (run_id,))
    by_stage: dict[str, int] = {}
    for row in events:
        by_stage[row["stage"]] = by_stage.get(row["stage"], 0) + row["n"]
    [mem] = store.query("SELECT COALESCE(SUM(length(CAST(text AS BLOB))), 0) AS n, "
                        "COALESCE(MAX(length(text)), 0) AS longest, COUNT(*) AS versions "
                        "FROM memories WHERE run_id = ?", (run_id,))
    store.close()
    return {"messages": len(conv.messages), "seconds": seconds, "events": sum(by_stage.values()),
            "by_stage": by_stage, "memory_text": mem["n"], "longest": mem["longest"],
            "versions": mem["versions"]}


def show(label: str, s: dict) -> None:
    per = 1000 / s["messages"]
    total = (s["events"] + s["memory_text"]) * per / 1e6
    print(f"{label}: {s['messages']} messages in {s['seconds']:.0f} s; per 1,000 messages: "
          f"events {s['events'] * per / 1e6:.2f} MB + memory text "
          f"{s['memory_text'] * per / 1e6:.2f} MB = {total:.2f} MB; "
          f"{s['versions']} memory versions, longest memory text {s['longest']} characters")
    stages = ", ".join(f"{k} {v * per / 1e6:.2f}" for k, v in
                       sorted(s["by_stage"].items(), key=lambda kv: -kv[1]))
    print(f"  events by stage, MB per 1,000 messages: {stages}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--file", default=str(LOCOMO))
    ap.add_argument("--messages", type=int, default=5000)
    ap.add_argument("--window", type=int, default=20)
    ap.add_argument("--no-locomo", action="store_true", help="skip conv-26 alone")
    args = ap.parse_args()
    show(f"synthetic ({Path(args.file).name} repeated)",
         run_size(synthetic(Path(args.file), args.messages), args.window))
    if not args.no_locomo:
        show("conv-26", run_size(load_transcript(args.file).conversation("conv-26"),
                                 args.window))


if __name__ == "__main__":
    main()
