"""`runs`: the runs stored in the home folder."""

from __future__ import annotations

from ..core.store import runs as run_rows
from .common import add_home, print_json, store_from


def add_parser(sub) -> None:
    p = sub.add_parser("runs", help="list stored runs")
    p.add_argument("--json", action="store_true")
    add_home(p)


def run(args) -> int:
    listed = run_rows.list_runs(store_from(args))
    if args.json:
        print_json([{"run_id": r.id, "name": r.name, "status": r.status, "created_at": r.created_at,
                     "conversation": r.conversation_id, "source": r.source, "decider": r.decider,
                     "windows": r.windows_total, "windows_done": r.windows_done} for r in listed])
        return 0
    if not listed:
        print("no runs yet: try `python -m nemori_ui run FILE`")
    for r in listed:
        print(f"{r.id}  {r.status:<11} {r.windows_done}/{r.windows_total} windows  {r.name}  [{r.decider}]")
    return 0
