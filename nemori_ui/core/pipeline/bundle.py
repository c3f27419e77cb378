"""What every stage of one window works with, handed to each stage as one argument."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..config import PipelineConfig
from ..embed import Embedder
from ..models import Message
from .decisions import Decider
from .events import EventLog
from .state import MemoryState


@dataclass
class StageContext:
    """The decider and embedder a stage asks, the memory it reads and writes, the run's
    settings, the window's event log, and the run's messages by id."""
    decider: Decider
    embedder: Embedder
    state: MemoryState
    config: PipelineConfig
    log: EventLog
    by_id: dict[str, Message] = field(default_factory=dict)

    def messages(self, ids: list[str]) -> list[Message]:
        return [self.by_id[i] for i in ids]
