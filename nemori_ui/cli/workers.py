"""--workers and --ray-address, shared by `eval` and `sweep`, and the tasks' progress line."""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Iterator, TextIO

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


def on_ray(args) -> bool:
    return args.workers > 1 or bool(args.ray_address)


@contextmanager
def results_stdout(active: bool) -> Iterator[TextIO]:
    """The stream results are written to. While Ray runs (`active`), everything else this
    process writes to its stdout goes to stderr: Ray's own lines and those of the raylet and
    workers it starts, which inherit the descriptor (a worker that dies is reported there), so
    stdout holds nothing but the results and `--json` output always parses."""
    if not active:
        yield sys.stdout
        return
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    real = os.fdopen(os.dup(saved), "w", encoding="utf-8", buffering=1)
    before, sys.stdout = sys.stdout, sys.stderr
    try:
        yield real
    finally:
        real.flush()
        sys.stdout = before
        os.dup2(saved, 1)
        os.close(saved)
        real.close()


def show_tasks(p) -> None:
    """One line per change of a task (a TaskProgress, or an evaluation's EvalProgress of
    stage "tasks"): on a terminal it is redrawn in place."""
    name = getattr(p, "name", None) or getattr(p, "conversation", "")
    state = getattr(p, "state", "")
    took = getattr(p, "seconds", None)
    state += f" in {took:.1f} s" if took is not None and state in ("done", "failed") else ""
    line = (f"tasks: {p.done} done, {p.running} running, {p.failed} failed of {p.total}"
            + (f" ({name}{' ' + state if state else ''})" if name else ""))
    if sys.stderr.isatty():
        sys.stderr.write(f"\r{line}\033[K" + ("\n" if p.done + p.failed >= p.total else ""))
    else:
        sys.stderr.write(line + "\n")
    sys.stderr.flush()
