"""The Ray executor: each task on a worker in a store of its own, its rows landed in the home's
store by the driver as each task arrives."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..executors import Place, Task, TaskProgress
from ..store import transfer
from .fanout import connect, fan_out, slots_of
from .lookup import start_home_caches
from .worker import TaskOutput, run_task


class RayExecutor:
    """A local Ray with `workers` CPUs, or the cluster at `address`; Ray starts (or is joined)
    only when there is a task to run."""
    remote = True

    def __init__(self, workers: int = 2, address: str | None = None, force: bool = False):
        self.workers = workers
        self.address = address
        self.forced = force or bool(address)

    def run(self, fn: Callable[[Task, Place], Any], tasks: list[Task], place: Place, *,
            on_done: Callable[[str, Any], None],
            progress: Callable[[TaskProgress], None] | None = None) -> dict[str, str]:
        if not tasks:
            return {}
        with ThreadPoolExecutor(1) as pool:
            # the driver's own preparation runs while Ray starts; tasks go out once both are done
            prepared = pool.submit(place.prepare or (lambda: None))
            ray = connect(self.workers, self.address, place.key)
            prepared.result()

        def land(name: str, out: TaskOutput) -> None:
            transfer.land(place.store, out.rows)
            on_done(name, out.result)

        home = start_home_caches(ray, str(place.store.path))
        try:
            return fan_out(ray, run_task, [(t.name, t) for t in tasks],
                           slots=slots_of(ray, self.workers, self.address), on_done=land,
                           progress=progress, shared=(fn, home))
        finally:
            if home is not None:
                ray.kill(home)
