"""Where the tasks of an evaluation or a sweep run: in this process, or elsewhere (Ray).

Evaluation and sweep define their tasks (a typed model and a function `fn(task, place)`) and
take an executor chosen by their caller. A task reads and writes the store of the `Place` it is
handed and asks it for its clients, so the same function runs against the home's store in this
process and against a store of its own on a worker, whose rows the driver then lands. A task
run elsewhere starts from `seed`, what the home already holds that it needs, because it cannot
read the home's store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from .config import PipelineConfig
from .store import Store
from .store.transfer import StoreRows

MAX_RETRIES = 2          # the retries of a task run elsewhere before it counts as failed


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
        super().__init__(f"{len(failures)} task(s) failed after {MAX_RETRIES} retries: "
                         f"{names}{where}; run the same command again to do only what is left")


class Executor(Protocol):
    remote: bool     # tasks run elsewhere: they need a seed, and what is done is not redone

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

    def run(self, fn, tasks, place, *, on_done, progress=None) -> dict[str, str]:
        for task in tasks:
            on_done(task.name, fn(task, place))
        return {}


IN_PROCESS = InProcess()


def worker_key(config: PipelineConfig, api_key: str | None, secrets, base_url: str | None
               ) -> str | None:
    """The key workers must hold: the one this process would use, if the work needs one."""
    if config.backend == "offline" and config.embedder != "openai":
        return None
    from .llm.openai_backend import PLACEHOLDER_KEY, resolve_openai_settings
    key, _ = resolve_openai_settings(api_key, base_url or config.base_url, secrets)
    return None if key in (None, PLACEHOLDER_KEY) else key
