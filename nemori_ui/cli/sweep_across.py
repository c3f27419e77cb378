"""`sweep` over several conversations (several files, or --conversation given more than once):
a named sweep, as the Tuning page runs it, read back as each point's mean ± sd across them."""

from __future__ import annotations

import sys

from pydantic import ValidationError

from ..core.clients import RunEnvironment, build_clients
from ..core.config import PipelineConfig
from ..core.errors import InputError
from ..core.store import Store, runs
from ..core.transcripts import load_transcript
from ..core.tuning.across import SweepInput, SweepSpec, sweep_across, sweep_rows
from ..core.tuning.point import point_figures
from ..core.tuning.records import SweepPoint
from ..core.tuning.spread import SHOWN, shown_figures, spread, spread_table
from ..core.tuning.sweep import ORDER, stored_recall
from .common import print_json
from .workers import on_ray, results_stdout, show_tasks


def sweep_inputs(files: list[str], fmt: str | None, wanted: list[str] | None
                 ) -> list[SweepInput]:
    """The conversations to sweep: those named (looked for in every file), else each file's
    first, as a sweep of one file takes."""
    inputs, found = [], set()
    for name in files:
        transcript = load_transcript(name, format=fmt)
        picked = ([c for c in transcript.conversations if c.id in wanted] if wanted
                  else transcript.conversations[:1])
        found |= {c.id for c in picked}
        inputs += [SweepInput(conversation=c, source=str(name), fmt=transcript.format)
                   for c in picked]
    missing = [w for w in wanted or [] if w not in found]
    if missing:
        raise KeyError(f"no conversation {', '.join(repr(m) for m in missing)} in "
                       f"{', '.join(files)}")
    return inputs


def default_name(grid: dict[str, list]) -> str:
    return "sweep " + (" ".join(f"{k}={','.join(str(v) for v in vs)}" for k, vs in grid.items())
                       or "of the defaults")


def run_across(args, grid: dict[str, list], base: PipelineConfig, store: Store,
               inputs: list[SweepInput], env: RunEnvironment) -> int:
    try:
        spec = SweepSpec(name=args.name or default_name(grid), grid=grid, inputs=inputs)
    except ValidationError as exc:      # no name, or a conversation given twice
        raise InputError("; ".join(e["msg"].removeprefix("Value error, ")
                                   for e in exc.errors())) from None
    total = spec.total(base)
    print(f"sweep «{spec.name}»: {total} runs ({total // len(inputs)} points × "
          f"{len(inputs)} conversations)", file=sys.stderr, flush=True)
    with results_stdout(on_ray(args)) as out:
        info = sweep_across(
            store, spec, base, lambda c: build_clients(c, store), env=env,
            on_point=lambda done, of: print(f"{done} of {of} runs stored", file=sys.stderr,
                                            flush=True),
            progress=show_tasks)
        embedders: dict[str, object] = {}

        def figures_of(run: runs.RunInfo) -> SweepPoint:
            # the same figures the Tuning page reads back, evidence recall included
            key = run.config.embedder
            if key not in embedders:
                embedders[key] = build_clients(run.config, store).embedder
            return SweepPoint.of(point_figures(store, run.id),
                                 qa=stored_recall(store, run.id, embedders[key]))

        rows = sweep_rows(store, info.id, figures_of)
        params = [p for p in ORDER if p in grid and p in rows]
        points = spread(rows, params, SHOWN)
        figures = shown_figures(points)
        if args.json:
            print_json({"sweep": info.name, "sweep_id": info.id,
                        "conversations": sorted(rows["conversation"].unique().tolist()),
                        "points": points.to_dict(orient="records")}, out)
            return 0
        table = spread_table(points, params, figures)
        print(table.to_string(index=False), file=out)
        print(f"\n{len(points)} points over {rows['conversation'].nunique()} conversations "
              f"(sweep «{info.name}», {info.id}): each figure is the mean ± sd (sample sd) "
              "across the conversations a point ran on.", file=out, flush=True)
    return 0
