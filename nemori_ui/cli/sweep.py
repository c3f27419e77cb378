"""`sweep`: one run per grid point over τ, window length, variant and the other knobs, on one
conversation or across several (sweep_across)."""

from __future__ import annotations

import sys

from ..core.clients import RunEnvironment, build_clients
from ..core.scale import executor_for
from ..core.tuning.records import SweepPoint
from ..core.tuning.sweep import SWEEPABLE, parse_grid, sweep
from ..core.executors import MIN_POINTS_PER_WORKER
from .commands import COMMANDS
from .common import add_home, make_config, print_json, store_from
from .sweep_across import run_across, sweep_inputs
from .workers import add_worker_options, check_workers, on_ray, results_stdout, show_tasks


def add_parser(sub) -> None:
    p = sub.add_parser("sweep", help=COMMANDS["sweep"])
    p.add_argument("files", nargs="+", metavar="file",
                   help="a transcript; several, or --conversation given more than once, make "
                        "a named sweep across the conversations (mean ± sd per point)")
    p.add_argument("--format")
    p.add_argument("--conversation", action="append",
                   help="a conversation's id (the file's first by default); again for more")
    p.add_argument("--name", help="the sweep's name across conversations (a sweep of this "
                                  "name is widened); by default named by its grid")
    p.add_argument("--backend", choices=["offline", "openai"], default="offline")
    p.add_argument("--model", default="gpt-4o-mini")
    p.add_argument("--base-url")
    p.add_argument("--embedder", choices=["minilm", "openai"], default="minilm")
    for name in SWEEPABLE:
        p.add_argument(f"--{name.replace('_', '-')}", help="comma-separated values")
    p.add_argument("--json", action="store_true", help="one JSON object per grid point")
    add_worker_options(p)
    p.add_argument("--force-workers", action="store_true",
                   help=f"fan out over --workers even with fewer than {MIN_POINTS_PER_WORKER} "
                        "points left to run per worker, which otherwise run in this process "
                        "(starting Ray costs more than they save)")
    add_home(p)


def run(args) -> int:
    try:
        grid = parse_grid({name: getattr(args, name) for name in SWEEPABLE})
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    settings = dict(backend=args.backend, model=args.model, base_url=args.base_url,
                    embedder=args.embedder)
    base = make_config(**settings)
    for name, values in grid.items():     # grid points are copies, which pydantic never checks
        for value in values:
            make_config(**settings, **{name: value})
    check_workers(args)
    inputs = sweep_inputs(args.files, args.format, args.conversation)
    store = store_from(args)
    if len(inputs) > 1 or args.name:
        return run_across(args, grid, base, store, inputs, sweep_environment(args))
    conv, source, fmt = inputs[0].conversation, inputs[0].source, inputs[0].fmt

    def show(point: SweepPoint) -> None:
        if args.json:
            print_json(point.as_json(), out)
            return
        params = " ".join(f"{k}={getattr(point.params, k)}" for k in grid) or "defaults"
        llm, qa = point.llm, point.qa
        print(f"{params}: {point.episodes} episodes, {point.insights} insights, "
              f"{point.active_memories} memories ({point.merges} merges, "
              f"{point.conflicts} conflicts), {point.stored.memory_tokens} tokens stored; "
              f"LLM calls {llm.calls_made} made, {llm.calls_reused} reused"
              + (f", evidence recall@{qa.k} {qa.recall_at_k:.2f}" if qa else "")
              + f"  [{point.run_id}]", file=out, flush=True)

    with results_stdout(on_ray(args)) as out:
        sweep(store, conv, base, grid, lambda c: build_clients(c, store), source=source,
              fmt=fmt, on_point=show, progress=show_tasks, env=sweep_environment(args))
    return 0


def sweep_environment(args) -> RunEnvironment:
    """Where a sweep's points run, and who hears that too few are left to fan out."""
    return RunEnvironment(
        executor=executor_for(args.workers, args.ray_address, args.force_workers),
        notice=lambda text: print(f"{text} (--force-workers fans them out anyway)",
                                  file=sys.stderr))
