"""``inspect FILE``: detect a transcript's format and summarise what was read, without running
anything. The numbers come from core.transcripts.outline; this module only formats them."""

from __future__ import annotations

import json
from datetime import datetime

from ..core.errors import InputError
from ..core.transcripts import FORMATS, load_transcript, outline
from .commands import COMMANDS


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        "inspect", help=COMMANDS["inspect"],
        description="Read a transcript, detect its format and list its conversations.")
    p.add_argument("file", metavar="FILE", help="transcript file")
    p.add_argument("--format", metavar="F",
                   help=f"read as this format instead of detecting it: {', '.join(FORMATS)}")
    p.add_argument("--column", action="append", default=[], metavar="FIELD=NAME",
                   help="JSONL/CSV: the column holding FIELD (speaker, text, timestamp, "
                        "session, conversation, role); repeatable")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--home", metavar="DIR", help="accepted for symmetry with other commands; unused")


def column_map(pairs: list[str]) -> dict[str, str] | None:
    """['speaker=who', 'text=said'] -> {'speaker': 'who', 'text': 'said'}."""
    result = {}
    for pair in pairs:
        field, sep, name = pair.partition("=")
        if not sep or not field.strip() or not name.strip():
            raise InputError(f"--column expects FIELD=NAME (e.g. text=message), got {pair!r}")
        result[field.strip().lower()] = name.strip()
    return result or None


def run(args) -> int:
    transcript = load_transcript(args.file, format=args.format,
                                 column_map=column_map(args.column))
    overview = outline(transcript)
    if args.json:
        print(json.dumps(overview, ensure_ascii=False))
    else:
        print(table(overview, args.file))
    return 0


def _when(iso: str | None) -> str:
    return datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M") if iso else "-"


def _speakers(names: list[str]) -> str:
    shown = ", ".join(names[:4])
    return shown + (f" +{len(names) - 4}" if len(names) > 4 else "")


def table(overview: dict, file: str) -> str:
    convs = overview["conversations"]
    head = ("id", "speakers", "sessions", "messages", "first", "last")
    rows = [(c["id"], _speakers(c["speakers"]), str(c["sessions"]), str(c["messages"]),
             _when(c["first"]), _when(c["last"])) for c in convs]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    numeric = {2, 3}

    def line(cells):
        return "  ".join(c.rjust(w) if i in numeric else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths))).rstrip()

    total = sum(c["messages"] for c in convs)
    out = [f"{file}: format {overview['format']}, {len(convs)} conversation"
           f"{'s' if len(convs) != 1 else ''}, {total} messages", "",
           line(head), line(["-" * w for w in widths]), *(line(r) for r in rows)]
    return "\n".join(out)
