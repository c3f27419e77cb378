"""What a sweep reports of a point: the run's settings and figures, how long it took, and its
evidence recall.

A point run on a Ray worker travels back to the driver as the task's result, and `sweep
--json` prints each point, so these are pydantic models: they pickle by name on any worker
that has the package, and their dump is the JSON the command has always printed.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True)


class PointParams(_Record):
    """The settings a sweep may vary, as the point's run was made with them."""
    tau: float
    window: int
    variant: str
    management: str
    k_e: int
    k_s: int
    k_m: int


class StoredSize(_Record):
    """What the memory holds once built: active memories and episodes."""
    memories: int
    memory_chars: int
    memory_tokens: int
    episode_chars: int
    episode_tokens: int


class PointCalls(_Record):
    """The run's LLM calls: made, or answered from the shared cache."""
    calls_made: int
    calls_reused: int
    failed: int
    input_tokens: int       # of the calls made
    output_tokens: int


class EvidenceRecall(_Record):
    """Of the conversation's checkable questions, the share whose evidence is all among the
    messages of the top-k episodes retrieved for it."""
    questions: int
    k: int
    recall_at_k: float


class PointFigures(_Record):
    """The figures a sweep reports for one finished run."""
    run_id: str
    params: PointParams
    episodes: int
    integrated: int
    insights: int
    active_memories: int
    merges: int
    conflicts: int
    stored: StoredSize
    llm: PointCalls


class SweepPoint(PointFigures):
    """A point of a sweep: its run's figures, and how it came to be."""
    seconds: float | None = None        # None: a finished run read back, never timed here
    reused: bool = False                # found finished in the store, not run again
    qa: EvidenceRecall | None = None    # None: the conversation came without questions

    @classmethod
    def of(cls, figures: PointFigures, **more) -> "SweepPoint":
        return cls(**dict(figures), **more)

    def as_json(self) -> dict:
        """The point as `sweep --json` prints it: `reused` only on a point found in the store,
        as the JSON read by scripts has always had it."""
        out = self.model_dump()
        if not self.reused:
            del out["reused"]
        return out
