"""`append RUN_ID FILE`: continue a stored run with the messages of another transcript.

They are processed as if they had come at the end of the run's transcript: the next message
ids, the next sessions, the same settings; a partial last window is processed at the end, as
`run` does. Messages the run holds already are skipped, saying so: run the same command again
after an interruption and it continues the append instead of adding the messages twice.
"""

from __future__ import annotations

import sys

from ..core.clients import RunEnvironment, build_clients
from ..core.pipeline.append import append_transcript
from ..core.store import runs
from ..core.run_figures import run_figures
from ..core.transcripts import load_transcript
from .commands import COMMANDS
from .common import TerminalProgress, add_home, notice, print_json, store_from


def add_parser(sub) -> None:
    p = sub.add_parser("append", help=COMMANDS["append"])
    p.add_argument("run_id")
    p.add_argument("file")
    p.add_argument("--format", help="transcript format (default: detected)")
    p.add_argument("--conversation", help="conversation id (default: the first)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_home(p)


def run(args) -> int:
    store = store_from(args)
    info = runs.get_run(store, args.run_id)
    transcript = load_transcript(args.file, format=args.format)
    conv = transcript.conversation(args.conversation)
    if args.conversation is None and len(transcript.conversations) > 1:
        print(f"{args.file} holds {len(transcript.conversations)} conversations; appending the "
              f"first, '{conv.id}' (choose with --conversation)", file=sys.stderr)
    clients = build_clients(info.config, store, RunEnvironment(notice=notice))
    try:
        done = append_transcript(store, info.id, conv.messages, clients, source=str(args.file),
                                 progress=TerminalProgress())
    except KeyboardInterrupt:
        print(f"\ninterrupted: the same command, or `python -m nemori_ui resume {info.id}`, "
              "continues it", file=sys.stderr)
        return 130
    for line in done.notes(info.id, str(args.file)):
        print(f"note: {line}", file=sys.stderr)
    figures = run_figures(store, info.id)
    record = done.record
    if args.json:
        print_json(figures.model_dump()
                   | {"append": done.record.model_dump() if done.record else None,
                      "held": done.held.model_dump() if done.held.count else None})
    elif record is None:
        print(f"run {info.id}: nothing appended from {args.file}, the run holds its "
              f"{done.held.count} messages already; {figures.messages} messages, "
              f"{figures.windows} windows → {figures.episodes} episodes, "
              f"{figures.semantic_memories} memories")
    else:
        print(f"run {info.id}: appended {record.count} messages from {args.file} as "
              f"{record.first_message_id} onwards (from window {record.first_window + 1}); "
              f"{figures.messages} messages, {figures.windows} windows → "
              f"{figures.episodes} episodes, {figures.semantic_memories} memories")
    return 0
