"""--workers and --ray-address, shared by `eval` and `sweep`, and the tasks' progress line."""

from __future__ import annotations

import sys

from ..core.errors import InputError


def add_worker_options(p) -> None:
    g = p.add_argument_group("fanning out on Ray (pip install -r requirements-scale.txt)")
    g.add_argument("--workers", type=int, default=1, metavar="N",
                   help="run on a local Ray with N workers, one task per conversation or grid "
                        "point (default 1: one after another, without Ray)")
    g.add_argument("--ray-address", metavar="ADDR",
                   help="run on the Ray cluster whose head is at ADDR (HEAD_IP:6379, as "
                        "`ray start --head` prints)")


def check_workers(args) -> None:
    if args.workers < 1:
        raise InputError(f"--workers takes a number of at least 1, got {args.workers}")
    if args.workers > 1 or args.ray_address:
        from ..core.scale.fanout import import_ray
        import_ray()          # a missing Ray is said before any work starts


def show_tasks(p) -> None:
    """One line per change of a task (a TaskProgress, or an evaluation's EvalProgress of
    stage "tasks"): on a terminal it is redrawn in place."""
    name = getattr(p, "name", None) or getattr(p, "conversation", "")
    state = getattr(p, "state", "")
    line = (f"tasks: {p.done} done, {p.running} running, {p.failed} failed of {p.total}"
            + (f" ({name}{' ' + state if state else ''})" if name else ""))
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{line}\033[K" + ("\n" if p.done + p.failed >= p.total else ""))
    else:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()
