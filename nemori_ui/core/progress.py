"""A run's report as it goes: the windows done and the stage it is in. The runner sends it; a
job keeps the last one for its page."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Progress:
    run_id: str
    window: int                # windows completed so far
    windows_total: int
    stage: str
    episode: int = 0           # episodes of the current window done / total
    episodes_in_window: int = 0
    llm: dict = field(default_factory=dict)
