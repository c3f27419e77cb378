"""Memory over time: what was active after any message, from the windows that had committed."""

from __future__ import annotations

from ..views.run_data import RunData


def windows_done_after(data: RunData, message_index: int) -> int:
    """Windows fully processed once message `message_index` (0-based) has arrived.

    The buffer is partitioned only when it is full, so a message changes memory only when the
    last message of its window arrives.
    """
    w = data.info.config.window
    total = len(data.messages)
    done = (message_index + 1) // w
    if message_index + 1 == total and total % w:
        done += 1  # the last, shorter window is flushed at the end of the conversation
    return done


def state_after(data: RunData, message_index: int) -> dict:
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
    return {"windows_done": done, "episodes": episodes, "memories": memories}


def _never_indexed(episode, data: RunData) -> bool:
    """An incoming episode merged into another at once was never an active memory on its own."""
    if not episode.superseded_by:
        return False
    successor = data.episode_by_id.get(episode.superseded_by)
    return successor is not None and successor.window == episode.window and \
        episode.id in successor.supersedes and successor.supersedes[-1] == episode.id
