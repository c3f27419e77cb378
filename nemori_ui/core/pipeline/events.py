"""Collects the stage events of one window, numbered in the order the decisions were made."""

from __future__ import annotations

from ..stage_events import Payload, StageEvent, event_of


class EventLog:
    def __init__(self, window: int, first_seq: int):
        self.window = window
        self._next = first_seq
        self.events: list[StageEvent] = []

    def emit(self, payload: Payload, *, message_ids=(), episode_ids=(), memory_ids=(),
             call_ids=()) -> StageEvent:
        """Record `payload` as the next event of its stage in this window."""
        event = event_of(payload, window=self.window, seq=self._next,
                         message_ids=list(message_ids), episode_ids=list(episode_ids),
                         memory_ids=list(memory_ids), call_ids=list(call_ids))
        self._next += 1
        self.events.append(event)
        return event
