"""Background jobs of the serving process: the registry that runs and keeps them (`registry`)
and the work of the jobs besides a run, a sweep and an evaluation (`tasks`).

Only the registry's names are re-exported: the tasks pull in evaluation and tuning, which a
caller that only runs or follows a run (the live feed, the command line) should not load.
"""

from .registry import Cancelled, Job, JobRegistry

__all__ = ["Cancelled", "Job", "JobRegistry"]
