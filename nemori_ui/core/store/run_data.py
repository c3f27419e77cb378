"""Everything one run holds, loaded at once for the inspector's pages."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable, TypeVar

from ..models import Episode, LLMCallRecord, Message, SemanticMemory, StageEvent
from ..stage_events import EpisodeText
from . import records, runs
from .db import Store
from .runs import RunInfo


@dataclass
class RunData:
    info: RunInfo
    messages: list[Message]
    episodes: list[Episode]
    memories: list[SemanticMemory]
    events: list[StageEvent]
    calls: list[LLMCallRecord]
    message_by_id: dict[str, Message] = field(init=False)
    episode_by_id: dict[str, Episode] = field(init=False)
    memory_by_id: dict[str, SemanticMemory] = field(init=False)
    # tables worked out from the records (see `derived`), kept while this load is shown
    views: dict[str, object] = field(init=False, default_factory=dict, repr=False,
                                     compare=False)

    def __post_init__(self):
        self.message_by_id = {m.id: m for m in self.messages}
        self.episode_by_id = {e.id: e for e in self.episodes}
        self.memory_by_id = {m.id: m for m in self.memories}

    def stage(self, name: str) -> list[StageEvent]:
        return [e for e in self.events if e.stage == name]

    def memory_text(self, memory_id: str | None, recorded: str = "") -> str:
        """A memory's text: as an event recorded it (runs stored before events kept ids only),
        else the stored memory's."""
        if recorded or not memory_id:
            return recorded
        memory = self.memory_by_id.get(memory_id)
        return memory.text if memory else ""

    def episode_text(self, episode_id: str | None,
                     recorded: EpisodeText | None = None) -> EpisodeText | None:
        """An episode's cue and narrative, as an event recorded them or as stored."""
        if recorded is not None or not episode_id:
            return recorded
        episode = self.episode_by_id.get(episode_id)
        return EpisodeText(cue=episode.cue, narrative=episode.narrative) if episode else None

    @property
    def run_id(self) -> str:
        return self.info.id

    @property
    def is_offline(self) -> bool:
        return self.info.config.backend == "offline"


T = TypeVar("T")


def derived(build: Callable[[RunData], T]) -> Callable[[RunData], T]:
    """A table worked out from a run's records once per load, not on every rerun of every page
    that shows it: a loaded RunData never changes (a run that changes is loaded afresh), and
    the pages ask for the same tables on each rerun. Each caller gets its own copy to change."""
    key = f"{build.__module__}.{build.__qualname__}"

    @functools.wraps(build)
    def view(data: RunData) -> T:
        if key not in data.views:
            data.views[key] = build(data)
        return data.views[key].copy()
    return view


def load_run_data(store: Store, run_id: str, *, with_vectors: bool = True) -> RunData:
    return RunData(info=runs.get_run(store, run_id),
                   messages=records.load_messages(store, run_id),
                   episodes=records.load_episodes(store, run_id, with_vectors=with_vectors),
                   memories=records.load_memories(store, run_id, with_vectors=with_vectors),
                   events=records.load_events(store, run_id),
                   calls=records.load_calls(store, run_id))
