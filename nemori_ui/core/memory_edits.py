"""A caller's own changes to a run's memory: `update` writes a new version that supersedes the
old one (the chain `history` follows), `delete` takes an entry out of memory and keeps its
row. Messages are the record memory was built from: they are neither rewritten nor deleted.

Edits take the run lock, as window processing does: a new version's id is counted from the
entries the run holds, so no window may be adding entries meanwhile.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from .errors import InputError, StoreError
from .memory_items import find, kind_of
from .memory_live import LiveRun
from .memory_models import Item
from .models import Episode, SemanticMemory
from .pipeline.state import MemoryState
from .run_lock import run_lock
from .store import records


def _editable(live: LiveRun, item_id: str, verb: str) -> Episode | SemanticMemory:
    kind = kind_of(item_id)
    if kind == "message":
        raise InputError(f"{item_id} is a message, the record the memory was built from, and "
                         f"cannot be {verb}; {verb.rstrip('d')} one of its episodes (ep...) or "
                         "semantic memories (sm...)", field="id")
    table = live.state.episodes if kind == "episode" else live.state.memories
    if item_id not in table:
        raise InputError(f"run {live.run_id} holds no {item_id}", field="id")
    entry = table[item_id]
    if entry.status != "active":
        after = f", by {entry.superseded_by}" if entry.superseded_by else ""
        raise InputError(f"{item_id} is {entry.status}{after}: only an active entry can be "
                         f"{verb}", field="id")
    return entry


@contextmanager
def _turn(live: LiveRun, timeout_s: float) -> Iterator[MemoryState]:
    """The run's memory, current and held against every other processor and editor."""
    with run_lock(live.store.path, live.run_id, timeout_s=timeout_s) as held:
        if not held:
            raise StoreError(f"run {live.run_id}: another process kept processing it for "
                             f"{timeout_s:g} s; nothing was changed, try again")
        live.catch_up()
        with live.state_lock:
            yield live.state


def update(live: LiveRun, item_id: str, text: str, *, timeout_s: float) -> Item:
    """The new version of episode or memory `item_id`, saying `text`."""
    with _turn(live, timeout_s) as state:
        old = _editable(live, item_id, "updated")
        vector = live.clients.embedder.embed([text])[0].tolist()
        if isinstance(old, Episode):
            new = old.model_copy(update={"id": state.next_episode_id(), "narrative": text,
                                         "embedding": vector, "supersedes": [old.id],
                                         "status": "active", "superseded_by": None})
            state.add_episode(new)
            state.supersede_episode(old.id, new.id)
            if state.lines is not None:
                state.lines.drop(old.id)
                state.lines.add([new], live.by_id)
            _save(live, episodes=[old, new])
        else:
            new = old.model_copy(update={"id": state.next_memory_id(), "text": text,
                                         "embedding": vector, "supersedes": [old.id],
                                         "origin": "update", "status": "active",
                                         "superseded_by": None})
            state.add_memory(new)
            state.supersede_memory(old.id, new.id)
            _save(live, memories=[old, new])
        return find(state, live.by_id, new.id)


def delete(live: LiveRun, item_id: str, *, timeout_s: float) -> Item:
    """Take episode or memory `item_id` out of memory: search no longer finds it."""
    with _turn(live, timeout_s) as state:
        entry = _editable(live, item_id, "deleted")
        episode = isinstance(entry, Episode)
        index = state.episode_index if episode else state.memory_index
        if entry.id in index:
            index.remove(entry.id)
        entry.status = "deleted"
        if episode and state.lines is not None:
            state.lines.drop(entry.id)
        _save(live, **{"episodes" if episode else "memories": [entry]})
        return find(state, live.by_id, entry.id)


def _save(live: LiveRun, **changed) -> None:
    live.state.take_dirty()          # saved here, not by the next window
    try:
        records.save_edits(live.store, live.run_id, **changed)
    except BaseException:
        live.reload_state()          # what is held must not differ from what is stored
        raise
