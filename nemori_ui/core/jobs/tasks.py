"""The work of the jobs a page starts besides a run: a sweep and an evaluation.

Each returns `work(job)` for `JobRegistry.submit`: it reports its progress on the job (where a
cancel takes effect, between points or between questions) and returns what the page shows when
it ends. The points or conversations run where the run environment's executor runs them: on
Ray, or one after another in this process.
"""

from __future__ import annotations

from typing import Callable

from ..clients import DEFAULT_ENV, RunEnvironment
from ..config import PipelineConfig
from ..counts import plural
from ..eval.harness import EvalOptions, EvalProgress, evaluate
from ..models import Conversation, Transcript
from ..store import Store
from ..tuning.across import SweepSpec, sweep_across
from ..tuning.records import SweepPoint
from ..tuning.sweep import points, sweep
from .registry import Job


def sweep_work(store: Store, conv: Conversation, base: PipelineConfig, grid: dict[str, list],
               make_clients: Callable[[PipelineConfig], object], *, source: str, fmt: str,
               env: RunEnvironment = DEFAULT_ENV) -> Callable[[Job], list[SweepPoint]]:
    """A sweep of `grid` around `base`; the job's result is the list of points."""
    total = len(points(base, grid))

    def work(job: Job) -> list[SweepPoint]:
        done: list[SweepPoint] = []
        job.step(0.0, f"0 of {total} points")

        def on_point(point: SweepPoint) -> None:
            done.append(point)
            job.step(len(done) / total, f"{len(done)} of {total} points; last τ = "
                                        f"{point.params.tau:g}, w = {point.params.window}")

        def clients_for(config: PipelineConfig):
            job.check()     # a cancel stops the sweep before its next point starts
            return make_clients(config)

        return sweep(store, conv, base, grid, clients_for, source=source, fmt=fmt,
                     on_point=on_point, env=env)
    return work


def across_work(store: Store, spec: SweepSpec, base: PipelineConfig,
                make_clients: Callable[[PipelineConfig], object],
                env: RunEnvironment = DEFAULT_ENV) -> Callable[[Job], str]:
    """A named sweep over several conversations; the job's result is the sweep's id."""
    def work(job: Job) -> str:
        total = spec.total(base)
        job.step(0.0, f"0 of {total} points")

        def clients_for(config: PipelineConfig):
            job.check()     # a cancel stops the sweep before its next point starts
            return make_clients(config)

        info = sweep_across(store, spec, base, clients_for, env=env,
                            on_point=lambda done, total: job.step(
                                done / total, f"{done} of {total} points"))
        return info.id
    return work


def eval_work(store: Store, transcript: Transcript, config: PipelineConfig,
              options: list[EvalOptions], *, source: str, env: RunEnvironment = DEFAULT_ENV
              ) -> Callable[[Job], list[str]]:
    """One evaluation per options (one per variant); the job's result is their ids."""

    def work(job: Job) -> list[str]:
        ids = []
        for n, opts in enumerate(options):
            def progress(p: EvalProgress, n=n, opts=opts) -> None:
                within = p.done / max(1, p.total) * (0.5 if p.stage == "build" else 1.0)
                if p.stage == "answer":
                    within = 0.5 + within / 2
                what = "building the memory" if p.stage == "build" else "answering"
                job.step((n + within) / len(options),
                         f"{opts.variant} ({n + 1} of {len(options)}): {what} of "
                         f"{p.conversation}, {p.done} of {p.total}")

            job.step(n / len(options), f"{opts.variant} ({n + 1} of {len(options)}): starting")
            run = evaluate(store, transcript, config, opts, source=source, env=env,
                           progress=progress)
            ids.append(run.id)
        job.step(1.0, f"{plural(len(ids), 'evaluation')} stored")
        return ids
    return work
