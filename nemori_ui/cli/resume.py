"""`resume RUN_ID`: continue an interrupted or failed run from its last finished window.

The run's messages and settings are in the store, so the transcript file is not needed.
"""

from __future__ import annotations

import sys

from ..core.clients import build_clients
from ..core.errors import InputError
from ..core.live_input import keeps_buffer
from ..core.pipeline.runner import run_windows
from ..core.store import runs
from ..core.run_figures import run_figures
from .commands import COMMANDS
from .common import TerminalProgress, add_home, print_json, store_from


def add_parser(sub) -> None:
    p = sub.add_parser("resume", help=COMMANDS["resume"])
    p.add_argument("run_id")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_home(p)


def run(args) -> int:
    store = store_from(args)
    info = runs.get_run(store, args.run_id)
    if info.status == "done":
        raise InputError(f"run {info.id} is already done; nothing to resume")
    if info.status == "running":
        raise InputError(f"run {info.id} is running in another process ({info.owner}); "
                         "resume it once that process has stopped")
    clients = build_clients(info.config, store)
    try:
        # a run filled through the Python API or the Live page keeps its partial window
        # pending, as there
        run_windows(store, info.id, clients, progress=TerminalProgress(),
                    flush=not keeps_buffer(info.format))
    except KeyboardInterrupt:
        print(f"\ninterrupted: `python -m nemori_ui resume {info.id}` continues it",
              file=sys.stderr)
        return 130
    figures = run_figures(store, info.id)
    if args.json:
        print_json(figures.model_dump())
    else:
        print(f"run {info.id}: {figures.windows_done}/{figures.windows} windows, "
              f"{figures.status}")
    return 0
