"""Memory over time: what was active after any message, from the windows that had committed."""

from __future__ import annotations

from dataclasses import dataclass

from ..views.run_data import RunData


def windows_done_after(data: RunData, message_index: int) -> int:
    """Windows fully processed once message `message_index` (0-based) has arrived.

    The buffer is partitioned only when it is full (or closed early by a flush, an append or
    the end of a run), so a message changes memory only when the last message of its window
    arrives: window k is done once its last message, the latest in any of its episodes, is in.
    """
    pos = {m.id: i for i, m in enumerate(data.messages)}
    last: dict[int, int] = {}
    for e in data.episodes:
        for mid in e.message_ids:
            if mid in pos:
                last[e.window] = max(last.get(e.window, -1), pos[mid])
    done = 0
    while done in last and last[done] <= message_index:
        done += 1
    return done


def processed_through(data: RunData, windows_done: int) -> int:
    """How many messages the first `windows_done` windows hold."""
    held = {mid for e in data.episodes if e.window < windows_done for mid in e.message_ids}
    return sum(m.id in held for m in data.messages)


@dataclass(frozen=True)
class MemoryState:
    """The memory as it stood after a message: ids of its active episodes and memories."""
    windows_done: int
    episodes: list[str]
    memories: list[str]
    processed_through: int      # messages the windows done hold; later ones wait in the buffer


def state_after(data: RunData, message_index: int) -> MemoryState:
    """Ids of episodes and memories active after the message, and what had been superseded."""
    done = windows_done_after(data, message_index)

    def alive(item, by_id) -> bool:
        if item.window >= done:
            return False
        successor = by_id.get(item.superseded_by) if item.superseded_by else None
        return successor is None or successor.window >= done

    episodes = [e.id for e in data.episodes if alive(e, data.episode_by_id)
                and not _never_indexed(e, data)]
    memories = [m.id for m in data.memories if alive(m, data.memory_by_id)]
    return MemoryState(windows_done=done, episodes=episodes, memories=memories,
                       processed_through=processed_through(data, done))


def _never_indexed(episode, data: RunData) -> bool:
    """An incoming episode merged into another at once was never an active memory on its own."""
    if not episode.superseded_by:
        return False
    successor = data.episode_by_id.get(episode.superseded_by)
    return successor is not None and successor.window == episode.window and \
        episode.id in successor.supersedes and successor.supersedes[-1] == episode.id
