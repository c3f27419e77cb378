"""Offline partition, narration and integration rules."""

from __future__ import annotations

import numpy as np

from ..config import OfflineThresholds
from ..models import Episode, Message
from .dates import day


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
    # deepest valleys first; a cut must leave every episode at least min_episode messages long,
    # or it shreds a dialogue exchange into fragments no narrative can stand on
    for i, depth in sorted(_valleys(gaps), key=lambda v: -v[1]):
        if depth < limits.boundary_depth:
            break
        if i in cuts:
            continue
        if i > 1 and _asks(window[i - 1], window[i]) and i - 1 not in cuts:
            i -= 1     # a question opens the topic its answer is about: keep them together
        edges = [0, len(window), *cuts]
        before = max(e for e in edges if e < i)
        after = min(e for e in edges if e > i)
        if i - before >= limits.min_episode and after - i >= limits.min_episode:
            cuts[i] = f"topic shift (similarity valley {gaps[i - 1]:.2f}, depth {depth:.2f})"
    return dict(sorted(cuts.items()))


def _asks(before: Message, after: Message) -> bool:
    return before.text.rstrip().endswith("?") and before.speaker != after.speaker


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


def title(messages: list[Message], lines: list[str], vectors: np.ndarray) -> str:
    """A searchable title: who, when, and the line closest to the centre of what was said."""
    centroid = vectors.mean(axis=0)
    best = int(np.argmax(vectors @ centroid))
    tokens = lines[best].split()
    key = " ".join(tokens[:16]) + (" …" if len(tokens) > 16 else "")
    when = messages[0].timestamp
    return f"{_speakers(messages)}{', ' + day(when) if when else ''}: {key}"


NARRATIVE_SENTENCES = 12  # an episode told in a few sentences, not the transcript again
TOLD_AS_SAID = 2          # lines quoted for an episode in which nothing was read as a fact


def narrative(messages: list[Message], statements: list[str],
              vectors: np.ndarray | None = None,
              quoted: list[tuple[str, str]] | None = None) -> str:
    """Who talked, when, and what was said of lasting interest, in a few sentences.

    The statements are the episode's standalone facts (relative dates already absolute); when
    there are more than a few, the ones nearest the centre of what was said are kept, in the
    order they were said. Then what was said of substance in words no memory could stand on
    (`quoted`: speaker and clause), in quotes per speaker. Greetings, reactions and questions
    are left out (the raw messages keep them). An episode with nothing read as a fact is told
    by its longest lines, as said: what was talked about, never a claim that nothing was.
    """
    first = messages[0].timestamp
    head = f"On {first:%A} {day(first)} at {first:%H:%M}, " if first else ""
    said = _quotes(quoted or [])
    if not statements and not said:
        longest = sorted(messages, key=lambda m: -len(m.text.split()))[:TOLD_AS_SAID]
        lines = [f"{m.speaker}: \"{m.text.strip()}\"" for m in messages
                 if m in longest and len(m.text.split()) >= 5]
        return " ".join([f"{head}{_speakers(messages)} chatted.", *lines])
    kept = list(range(len(statements)))
    if len(statements) > NARRATIVE_SENTENCES and vectors is not None:
        centre = vectors.mean(axis=0)
        kept = sorted(np.argsort(-(vectors @ centre))[:NARRATIVE_SENTENCES].tolist())
    told = " ".join(statements[i] for i in kept[:NARRATIVE_SENTENCES])
    return " ".join(p for p in (f"{head}{_speakers(messages)} talked.", told, said) if p)


def _quotes(quoted: list[tuple[str, str]]) -> str:
    by: dict[str, list[str]] = {}
    for who, clause in quoted:
        by.setdefault(who, []).append(clause.rstrip(" .!,;"))
    return " ".join(f"{who} said: \"{'; '.join(lines)}.\"" for who, lines in by.items())


def _speakers(messages: list[Message]) -> str:
    names = list(dict.fromkeys(m.speaker for m in messages))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def continuation(new: Episode, candidates: list[tuple[Episode, float]],
                 limits: OfflineThresholds) -> tuple[int, str]:
    """The candidate `new` continues: from an earlier window, similar, and in the same sitting.

    Episodes of the same window were just told apart by the partition, so only a window edge
    can have cut an episode in two.
    """
    reasons = []
    for idx, (old, score) in enumerate(candidates, start=1):
        if old.window == new.window:
            reasons.append(f"{old.id}: same window, already judged a different episode")
        elif score < limits.integrate_min_sim:
            reasons.append(f"{old.id}: similarity {score:.2f} < {limits.integrate_min_sim:.2f}")
        elif old.end and new.start and \
                (gap := abs((new.start - old.end).total_seconds()) / 60) > limits.integrate_max_gap_minutes:
            reasons.append(f"{old.id}: {_span(gap)} apart > {limits.integrate_max_gap_minutes:g} min")
        else:
            return idx, f"continues {old.id}: similarity {score:.2f}, same sitting across a window edge"
    return -1, "; ".join(reasons) or "no candidate"


def _span(minutes: float) -> str:
    return f"{minutes:.0f} min" if minutes < 120 else f"{minutes / 60:.0f} h" if minutes < 2880 \
        else f"{minutes / 1440:.0f} days"
