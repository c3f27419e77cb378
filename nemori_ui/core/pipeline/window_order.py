"""The official v1 code's order of the semantic stages: a window's episodes predicted at once.

Under `semantic_order = "window"` every episode of a window is predicted and distilled from the
store as it stood before the window, in parallel (at most `concurrency` at a time), and only
then are the insights consolidated, episode by episode. Prediction and distillation only read
the store, so running them side by side changes nothing but what each can know: an episode no
longer sees what the window's earlier episodes taught. Their events are kept aside while they
run and recorded in episode order, so a run's history reads the same however the threads
finished.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

from ..models import Episode
from ..stage_events import Payload
from .bundle import StageContext
from .decisions import Insight
from .semantic import anticipate_and_distill


class HeldEvents:
    """An event log that keeps what is emitted, to be recorded later in the window's log."""

    def __init__(self) -> None:
        self.held: list[tuple[Payload, dict]] = []

    def emit(self, payload: Payload, **ids) -> None:
        self.held.append((payload, ids))

    def record(self, log) -> None:
        for payload, ids in self.held:
            log.emit(payload, **ids)


def distill_window(c: StageContext,
                   episodes: list[Episode]) -> list[tuple[Episode, list[Insight]]]:
    """Each episode with its insights, all predicted from the store before the window."""
    def one(episode: Episode) -> tuple[HeldEvents, list[Insight]]:
        held = HeldEvents()
        return held, anticipate_and_distill(replace(c, log=held), episode,
                                            c.messages(episode.message_ids))

    workers = min(c.config.concurrency, len(episodes))
    if workers <= 1:
        done = [one(e) for e in episodes]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            done = list(pool.map(one, episodes))
    for held, _ in done:
        held.record(c.log)
    return [(e, insights) for e, (_, insights) in zip(episodes, done)]
