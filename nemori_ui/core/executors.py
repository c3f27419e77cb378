"""Where the tasks of an evaluation or a sweep run: in this process, or elsewhere (Ray).

Evaluation and sweep define their tasks (a typed model and a function `fn(task, place)`) and
run them on the executor their caller chose, in its run environment (clients.RunEnvironment).
A task reads and writes the store of the `Place` it is handed and asks it for its clients, so
the same function runs against the home's store in this process and against a store of its own
on a worker, whose rows the driver then lands. A task run elsewhere starts from `seed`, what the
home already holds that it needs, because it cannot read the home's store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from .config import PipelineConfig
from .store import Store
from .store.transfer import StoreRows
from .counts import plural

MAX_RETRIES = 2          # the retries of a task run elsewhere before it counts as failed
# A sweep's points after the first reuse most of what it embedded and asked (a point of conv-26
# 36 s cold, 4-9 s after another), so fanned out each worker's first point is a cold one and
# Ray's start (5-15 s here) comes on top: with fewer than two points left per worker that costs
# more than it saves, so such a sweep runs in this process unless the caller insists.
MIN_POINTS_PER_WORKER = 2


class Task(BaseModel):
    """What every task carries besides its own fields."""
    name: str
    seed: StoreRows | None = None   # filled only for an executor that runs tasks elsewhere


@dataclass
class Place:
    """What a task runs against. `judge` builds an evaluation's judge (None: from the
    settings and the key of the process it runs in); `progress` hears a task's own steps, in
    this process only."""
    store: Store
    clients: Callable[[PipelineConfig], Any]
    judge: Callable[[PipelineConfig, str, str], Any] | None = None
    progress: Callable | None = None
    key: str | None = None          # the API key the tasks need, for workers to hold
    # done in this process once before the first task starts (elsewhere: while Ray starts),
    # filling the caches every task reads
    prepare: Callable[[], None] | None = None


@dataclass
class TaskProgress:
    done: int
    running: int
    failed: int
    total: int
    name: str = ""          # the task whose state just changed
    state: str = ""         # "started", "done" or "failed"
    seconds: float | None = None   # done or failed: its wall time since it was sent, retries in


class TasksFailed(RuntimeError):
    """Some tasks failed after their retries; every other task's results have landed."""

    def __init__(self, failures: dict[str, str], landed: str | None = None,
                 results: list | None = None):
        self.failures = failures
        self.landed = landed          # the evaluation stored with the others' results
        self.results = results or []  # a sweep's points that landed
        names = "; ".join(f"{name}: {why}" for name, why in failures.items())
        where = f" (the others are stored{', as ' + landed if landed else ''})"
        super().__init__(f"{plural(len(failures), 'task')} failed after {MAX_RETRIES} retries: "
                         f"{names}{where}; run the same command again to do only what is left")


class Executor(Protocol):
    remote: bool     # tasks run elsewhere: they need a seed, and what is done is not redone
    workers: int     # how many tasks it runs at once
    forced: bool     # the caller insists on it however few the tasks (a cluster named, or told)

    def run(self, fn: Callable[[Any, Place], Any], tasks: list[Task], place: Place, *,
            on_done: Callable[[str, Any], None],
            progress: Callable[[TaskProgress], None] | None = None) -> dict[str, str]:
        """Run `fn(task, place)` for every task, handing each result to `on_done` as it
        arrives; returns {task name: why} for the tasks that failed."""


class InProcess:
    """One task after another in this process, against the caller's place. A failure is
    raised as it happens, as a loop would; tasks report their own progress through the
    place, so no TaskProgress is sent."""
    remote = False
    workers = 1
    forced = False

    def run(self, fn, tasks, place, *, on_done, progress=None) -> dict[str, str]:
        if tasks and place.prepare:
            place.prepare()
        for task in tasks:
            on_done(task.name, fn(task, place))
        return {}


IN_PROCESS = InProcess()


def too_few(points: int, workers: int) -> bool:
    """Too few sweep points left to pay for starting Ray (see MIN_POINTS_PER_WORKER)."""
    return points < MIN_POINTS_PER_WORKER * workers


def too_few_note(points: int, workers: int, where: str = "this process") -> str:
    return (f"{plural(points, 'point')} to run: too few to pay for starting Ray over {workers} "
            f"workers (fewer than {MIN_POINTS_PER_WORKER} each), so they run one after another in "
            f"{where}")


def for_points(executor: Executor, points: int,
               notice: Callable[[str], None] | None = None) -> Executor:
    """The executor a sweep with `points` points left to run uses: `executor`, or this process
    when they are too few to pay for fanning out and the caller did not insist (said to
    `notice`). Points already stored are not counted: they are not run."""
    if not executor.remote or executor.forced or not points \
            or not too_few(points, executor.workers):
        return executor
    if notice:
        notice(too_few_note(points, executor.workers))
    return IN_PROCESS

