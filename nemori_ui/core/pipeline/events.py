"""Collects the stage events of one window, numbered in the order the decisions were made."""

from __future__ import annotations

from typing import Any

from ..models import StageEvent


class EventLog:
    def __init__(self, window: int, first_seq: int):
        self.window = window
        self._next = first_seq
        self.events: list[StageEvent] = []

    def emit(self, stage: str, payload: dict[str, Any], *, message_ids=(), episode_ids=(),
             memory_ids=(), call_ids=()) -> StageEvent:
        event = StageEvent(stage=stage, window=self.window, seq=self._next, payload=payload,
                           message_ids=list(message_ids), episode_ids=list(episode_ids),
                           memory_ids=list(memory_ids), call_ids=list(call_ids))
        self._next += 1
        self.events.append(event)
        return event
