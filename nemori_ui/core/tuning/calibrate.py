"""Deriving τ for an embedder from how similar an episode is to the memories about it.

τ decides which memories an episode evokes, so it depends on the embedder: a cosine of 0.6 is
close for MiniLM and far for text-embedding-3-small. On a conversation with LoCoMo questions,
an earlier memory is *about* a later episode when both hold evidence of the same question
(the question asks about one thing, and both speak of it). Every other earlier memory is not.
Memories come from a Nemori-s run, whose store does not depend on τ.

The two distributions overlap (a question's evidence is sparse, and many pairs it does not
link are still about the same thing), so τ is set where chance stops explaining a match: the
95th percentile of the unrelated similarities, so that at most one unrelated memory in twenty
passes. The τ of Youden's J (most related admitted for fewest unrelated) is reported beside
it; on MiniLM it sits in the bulk of the unrelated pairs and would evoke nearly everything.

Per episode (`episode_chance`, reported beside and not used for the default): an episode is
compared with every memory stored before it, so a pair's one chance in twenty is, over a store
of a hundred memories, an unrelated memory evoked for nearly every episode. Reported: how many
episodes that is at the default τ, and the τ that would keep it to one episode in twenty.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..eval import qa
from ..models import Conversation
from ..views.run_data import RunData


def episode_pairs(conv: Conversation, data: RunData) -> list[tuple[list[float], list[float]]]:
    """Per episode, the similarities of the memories stored before it: related, unrelated."""
    items = [i for i in qa.locomo_items(conv).items if i.checkable]
    topics: dict[str, set[int]] = {}
    for n, item in enumerate(items):
        for e in item.evidence:
            topics.setdefault(e.message_id, set()).add(n)
    order = {m.id: i for i, m in enumerate(data.messages)}
    episodes = [e for e in data.episodes if not e.supersedes and e.embedding is not None]
    memories = [m for m in data.memories if m.embedding is not None and m.source_message_ids]
    if not episodes or not memories:
        return []
    sims = np.asarray([e.embedding for e in episodes], np.float32) @ \
        np.asarray([m.embedding for m in memories], np.float32).T
    per_episode = []
    for i, ep in enumerate(episodes):
        start = min(order[x] for x in ep.message_ids)
        about = set().union(*(topics.get(x, set()) for x in ep.message_ids))
        related, unrelated = [], []
        for j, mem in enumerate(memories):
            if max(order[x] for x in mem.source_message_ids) >= start:
                continue    # only what was known before the episode can be evoked by it
            said = set().union(*(topics.get(x, set()) for x in mem.source_message_ids))
            (related if about & said else unrelated).append(float(sims[i, j]))
        per_episode.append((related, unrelated))
    return per_episode


CHANCE = 0.05    # the share of unrelated memories τ may let through


@dataclass(frozen=True)
class Threshold:
    """τ for an embedder, the share of each kind of pair it admits, and Youden's τ beside it."""
    tau: float
    related_admitted: float
    unrelated_admitted: float
    youden_tau: float
    j: float                    # Youden's J at youden_tau
    related: int                # pairs of each kind
    unrelated: int
    related_quartiles: list[float]
    unrelated_quartiles: list[float]


def best_threshold(related: list[float], unrelated: list[float]) -> Threshold:
    """τ (the unrelated pairs' 95th percentile), what it admits of each kind, and Youden's τ."""
    if not related or not unrelated:
        raise ValueError("need related and unrelated pairs to calibrate")
    pos, neg = np.sort(related), np.sort(unrelated)
    tau = round(float(np.quantile(neg, 1 - CHANCE)), 2)
    youden_tau, best_j = 0.0, -1.0
    for t in np.round(np.arange(0.20, 0.951, 0.01), 2):
        j = float((pos > t).mean()) - float((neg > t).mean())
        if j > best_j:
            youden_tau, best_j = float(t), round(j, 4)
    return Threshold(
        tau=tau, related_admitted=round(float((pos > tau).mean()), 4),
        unrelated_admitted=round(float((neg > tau).mean()), 4), youden_tau=youden_tau,
        j=best_j, related=len(pos), unrelated=len(neg),
        related_quartiles=[round(float(q), 3) for q in np.quantile(pos, [.25, .5, .75])],
        unrelated_quartiles=[round(float(q), 3) for q in np.quantile(neg, [.25, .5, .75])])


@dataclass(frozen=True)
class EpisodeChance:
    """What τ means for a whole episode rather than one pair: an episode is compared with every
    memory stored before it, so a pair's one chance in twenty adds up over a large store."""
    tau: float
    episodes: int               # episodes with an unrelated memory stored before them
    evoking_unrelated: float    # share of them with one above `tau`
    tau_for_chance: float       # the τ at which only CHANCE of them have one
    with_related: int           # episodes with a related memory stored before them
    evoking_related: float      # share of them with one above `tau`
    related_at_chance: float    # and above `tau_for_chance`


def episode_chance(per_episode: list[tuple[list[float], list[float]]],
                   tau: float) -> EpisodeChance:
    """How often an episode evokes at least one unrelated memory at `tau`, and the τ that keeps
    that to CHANCE of episodes (the 95th percentile of each episode's closest unrelated one)."""
    closest = np.asarray([max(unrel) for _, unrel in per_episode if unrel], np.float32)
    related = np.asarray([max(rel) for rel, _ in per_episode if rel], np.float32)
    if not len(closest) or not len(related):
        raise ValueError("need episodes with related and unrelated memories before them")
    at_chance = round(float(np.quantile(closest, 1 - CHANCE)), 2)
    return EpisodeChance(tau=tau, episodes=len(closest),
                         evoking_unrelated=round(float((closest > tau).mean()), 4),
                         tau_for_chance=at_chance, with_related=len(related),
                         evoking_related=round(float((related > tau).mean()), 4),
                         related_at_chance=round(float((related > at_chance).mean()), 4))
