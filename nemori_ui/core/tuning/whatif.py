"""What-if τ on a finished run, from the similarities it stored: no call, no embedding.

Each anticipation event lists every memory the episode looked at (top K_s) with its score, so
the memories that would pass another τ are known exactly for that memory state. The first
episode whose evoked set changes would get another prediction; every later episode may then
see another memory state, so it is marked as downstream rather than claimed unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..pipeline.tau_rule import passes_tau
from ..views.run_data import RunData


@dataclass(frozen=True)
class EpisodeAtTau:
    """What an episode evoked in the run and would evoke at another τ (memory ids)."""
    episode_id: str
    window: int
    cue: str
    evoked_now: list[str]
    evoked_then: list[str]
    gained: list[str]
    lost: list[str]
    # its prediction changes; or a change before it may have changed its memory state; or not
    changes: Literal["prediction", "downstream", "same"]


def what_if_tau(data: RunData, tau: float) -> list[EpisodeAtTau]:
    rows, changed_seen = [], False
    for event in data.stage("anticipate"):
        p = event.payload
        now = [e.id for e in p.evoked if e.passed]
        # only native management filters by τ; the others' evoked sets do not depend on it
        native = (p.management or data.info.config.management) == "native"
        then = [e.id for e in p.evoked
                if (passes_tau(e.score, e.continued, tau, e.recall_score) if native
                    else e.passed)]
        changed = set(now) != set(then)
        rows.append(EpisodeAtTau(
            episode_id=p.episode_id, window=event.window,
            cue=p.cue, evoked_now=now, evoked_then=then,
            gained=[i for i in then if i not in now], lost=[i for i in now if i not in then],
            changes="prediction" if changed else ("downstream" if changed_seen else "same"),
        ))
        changed_seen = changed_seen or changed
    return rows


def first_changed_window(rows: list[EpisodeAtTau]) -> int | None:
    """The window a re-run at the new τ would first differ in (earlier windows come from cache)."""
    return next((r.window for r in rows if r.changes == "prediction"), None)
