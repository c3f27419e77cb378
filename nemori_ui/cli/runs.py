"""`runs`: the runs stored in the home folder, with how many of their calls failed."""

from __future__ import annotations

from ..core.store import runs as run_rows
from ..core.store.health import run_health
from .commands import COMMANDS
from .common import add_home, print_json, store_from


def add_parser(sub) -> None:
    p = sub.add_parser("runs", help=COMMANDS["runs"])
    p.add_argument("--json", action="store_true")
    add_home(p)


def run(args) -> int:
    store = store_from(args)
    listed = run_rows.list_runs(store)
    health = run_health(store, [r.id for r in listed])
    if args.json:
        print_json([{"run_id": r.id, "name": r.name, "status": r.status, "created_at": r.created_at,
                     "conversation": r.conversation_id, "source": r.source, "decider": r.decider,
                     "windows": r.windows_total, "windows_done": r.windows_done,
                     "llm_calls": health[r.id].calls, "failed_calls": health[r.id].failed_calls,
                     "fallbacks": health[r.id].fallbacks} for r in listed])
        return 0
    if not listed:
        print("no runs yet: try `python -m nemori_ui run FILE`")
    for r in listed:
        note = health[r.id].describe()
        print(f"{r.id}  {r.status:<11} {r.windows_done}/{r.windows_total} windows  {r.name}  "
              f"[{r.decider}]" + (f"  ({note})" if note else ""))
    if any(r.status in run_rows.RESUMABLE for r in listed):
        print("resume an interrupted or failed run with `python -m nemori_ui resume RUN_ID`")
    return 0
