"""Offline partition, narration and integration rules."""

from __future__ import annotations

import numpy as np

from ..config import OfflineThresholds
from ..models import Episode, Message
from .dates import absolutize, day
from .text import sentences, words


def cut_points(window: list[Message], vectors: np.ndarray,
               limits: OfflineThresholds) -> dict[int, str]:
    """Indices i where a new episode starts at message i, with the reason for each cut.

    A new session or a long silence always cuts. Otherwise a cut goes where the topic drifts:
    TextTiling's depth score on the similarity of the messages either side of each gap.
    """
    cuts: dict[int, str] = {}
    for i in range(1, len(window)):
        prev, cur = window[i - 1], window[i]
        if cur.session != prev.session:
            cuts[i] = f"new session {cur.session}"
        elif prev.timestamp and cur.timestamp:
            gap = (cur.timestamp - prev.timestamp).total_seconds() / 60
            if gap >= limits.time_gap_minutes:
                cuts[i] = f"time gap of {gap / 60:.1f} h"
    gaps = _gap_similarities(vectors)
    for i, depth in _valleys(gaps):
        # a cut needs at least two messages on each side, or it shreds a dialogue exchange
        near = [c for c in cuts if abs(c - i) < 2]
        if depth >= limits.boundary_depth and i >= 2 and len(window) - i >= 2 and not near:
            cuts[i] = f"topic shift (similarity valley {gaps[i - 1]:.2f}, depth {depth:.2f})"
    return dict(sorted(cuts.items()))


def _gap_similarities(vectors: np.ndarray, block: int = 3) -> list[float]:
    """sims[i-1] = cosine of the mean of messages before gap i and after it."""
    sims = []
    for i in range(1, len(vectors)):
        left = vectors[max(0, i - block):i].mean(axis=0)
        right = vectors[i:i + block].mean(axis=0)
        denom = float(np.linalg.norm(left) * np.linalg.norm(right)) or 1.0
        sims.append(float(left @ right) / denom)
    return sims


def _valleys(sims: list[float]) -> list[tuple[int, float]]:
    """(gap index, depth) at each local minimum; depth = rise to the peaks on both sides."""
    found = []
    for g, s in enumerate(sims):
        if (g > 0 and sims[g - 1] < s) or (g + 1 < len(sims) and sims[g + 1] < s):
            continue
        left = max(sims[:g + 1])
        right = max(sims[g:])
        found.append((g + 1, (left - s) + (right - s)))
    return found


def group_indices(n: int, cuts: dict[int, str]) -> tuple[list[list[int]], list[str]]:
    starts = [0] + list(cuts)
    ends = list(cuts) + [n]
    groups = [list(range(s + 1, e + 1)) for s, e in zip(starts, ends)]
    reasons = ["window start"] + list(cuts.values())
    return groups, reasons


def title(messages: list[Message], vectors: np.ndarray) -> str:
    """A searchable 10-20 word title: who, when, and the most central sentence."""
    centroid = vectors.mean(axis=0)
    best = int(np.argmax(vectors @ centroid))
    key = " ".join(words(messages[best].text)[:12]) or messages[best].text[:60]
    who = _speakers(messages)
    when = messages[0].timestamp
    return f"{who}{' on ' + day(when) if when else ''}: {key}"


def narrative(messages: list[Message]) -> str:
    """Third-person account in order, with relative dates made absolute."""
    first = messages[0].timestamp
    lead = (f"On {first:%A} {day(first)} at {first:%H:%M}, " if first else "") + \
        f"{_speakers(messages)} talked."
    lines = [lead]
    for m in messages:
        said = " ".join(absolutize(s, m.timestamp) for s in sentences(m.text)) or m.text
        lines.append(f'{m.speaker} said: "{said}"')
    return " ".join(lines)


def _speakers(messages: list[Message]) -> str:
    names = list(dict.fromkeys(m.speaker for m in messages))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def continuation(new: Episode, candidates: list[tuple[Episode, float]],
                 limits: OfflineThresholds) -> tuple[int, str]:
    """The candidate `new` continues: similar enough and close enough in time."""
    reasons = []
    for idx, (old, score) in enumerate(candidates, start=1):
        if score < limits.integrate_min_sim:
            reasons.append(f"{old.id}: similarity {score:.2f} < {limits.integrate_min_sim:.2f}")
            continue
        if old.end and new.start:
            gap_h = abs((new.start - old.end).total_seconds()) / 3600
            if gap_h > limits.integrate_max_gap_hours:
                reasons.append(f"{old.id}: {gap_h:.0f} h apart > {limits.integrate_max_gap_hours:g} h")
                continue
        return idx, f"continues {old.id}: similarity {score:.2f}, close in time"
    return -1, "; ".join(reasons) or "no candidate"
