"""Semantic stages (§3.3 and Appendix A): anticipate and distill; consolidation is in
`consolidation.py`.

The management variant decides how knowledge is evoked and consolidated:
native (threshold-filtered search; new / merge / conflict), naive (top-K_s search; append),
summary (one running summary, rewritten with each episode's insights).
"""

from __future__ import annotations

import numpy as np

from ..config import PipelineConfig
from ..models import Episode, Message, SemanticMemory
from ..stage_events import AnticipatePayload, DistillPayload, EvokedMemory
from .bundle import StageContext
from .decisions import Insight
from .state import MemoryState
from .tau_rule import passes_tau


def evoke(state: MemoryState, episode: Episode,
          config: PipelineConfig) -> tuple[list[tuple[SemanticMemory, float]], list[EvokedMemory]]:
    """Knowledge the episode calls up, and every candidate looked at (for the τ view)."""
    if config.management == "summary":
        current = state.active_memories()
        return [(m, 1.0) for m in current], [
            EvokedMemory(id=m.id, score=1.0, passed=True) for m in current]
    query = np.asarray(episode.embedding, dtype=np.float32)
    looked = state.search_memories(query, config.k_s)
    threshold = config.tau if config.management == "native" else None
    # an episode that continues an earlier one already told what was learnt from that one:
    # it is known, however far the merged episode's vector has moved from each memory
    told = [m for m in state.active_memories()
            if set(m.source_episode_ids) & set(episode.supersedes)]
    told_ids = {m.id for m in told}
    extra = [(m, float(np.dot(query, np.asarray(m.embedding, dtype=np.float32))))
             for m in told if m.id not in {x.id for x, _ in looked}]
    passed, listing = [], []
    for m, s in looked + extra:
        # decided on the score as recorded, so what-if τ on the record gives the same answer
        ok = threshold is None or bool(passes_tau(round(s, 4), m.id in told_ids, threshold))
        entry = EvokedMemory(id=m.id, score=round(s, 4), passed=ok)
        if m.id in told_ids:
            entry.continued = True
        if ok:
            passed.append((m, s))
        listing.append(entry)
    return passed, listing


def anticipate_and_distill(c: StageContext, episode: Episode,
                           messages: list[Message]) -> list[Insight]:
    """Predict the episode from what is known, then keep what the prediction missed (§3.3.1-2).

    Nemori-s skips the prediction and distils the raw episode directly.
    """
    decider, config, log = c.decider, c.config, c.log
    if config.variant == "nemori-s":
        result = decider.distill_direct(messages)
        log.emit(DistillPayload(episode_id=episode.id, mode="direct", prediction=None,
                                insights=result.insights, lines=result.lines,
                                raw_messages=len(messages), fallback=result.fallback),
                 episode_ids=[episode.id], message_ids=episode.message_ids,
                 call_ids=result.call_ids)
        return result.insights
    evoked, listing = evoke(c.state, episode, config)
    payload = AnticipatePayload(episode_id=episode.id, cue=episode.cue, tau=config.tau,
                                management=config.management, evoked=listing)
    if evoked:
        guess = decider.anticipate(episode.cue, evoked)
        prediction, call_ids = guess.prediction, guess.call_ids
        payload.prediction, payload.fallback = prediction, guess.fallback
    else:
        # nothing known is close enough to predict from: as in the official code, no call is
        # made, and a prediction from the cue alone would count the cue's own facts as known
        prediction, call_ids = "", []
        payload.prediction, payload.fallback, payload.cold_start = "", None, True
    log.emit(payload, episode_ids=[episode.id],
             memory_ids=[m.id for m, _ in evoked], call_ids=call_ids)
    # the v1 code's cold start reads the narrative, and only when nothing at all is stored
    narrated = config.cold_start == "narrative" and not c.state.active_memories()
    if narrated:
        result = decider.distill_cold(episode, messages)
    else:
        result = decider.distill(messages, prediction)
    log.emit(DistillPayload(episode_id=episode.id, mode="prediction-error",
                            prediction=prediction, cold_start=not evoked,
                            **({"read": "narrative"} if narrated else {}),
                            insights=result.insights, covered=result.covered, lines=result.lines,
                            raw_messages=len(messages), fallback=result.fallback),
             episode_ids=[episode.id], message_ids=episode.message_ids, call_ids=result.call_ids)
    return result.insights
