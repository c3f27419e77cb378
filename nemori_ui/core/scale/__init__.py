"""Evaluations and sweeps fanned out on Ray: one task per conversation or grid point, run in a
store of its own, whose rows the driver alone lands in the home's store.

Importing this package does not import Ray; connecting to it happens when tasks are run."""

from __future__ import annotations

from ..executors import IN_PROCESS, Executor


def executor_for(workers: int = 1, address: str | None = None, force: bool = False
                 ) -> Executor:
    """In this process for one worker and no cluster, else Ray. `force`: Ray even for a sweep
    with too few points to pay for it (executors.for_points), as a cluster's address is."""
    if workers <= 1 and not address:
        return IN_PROCESS
    from .ray_executor import RayExecutor
    return RayExecutor(workers, address, force)
