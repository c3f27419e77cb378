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
from .decisions import DistillDecision, Insight, Recall
from .skipped import classify, unread
from .state import MemoryState
from .tau_rule import passes_tau


def evoke(state: MemoryState, episode: Episode, config: PipelineConfig,
          recall: Recall | None = None
          ) -> tuple[list[tuple[SemanticMemory, float]], list[EvokedMemory]]:
    """Knowledge the episode calls up, and every candidate looked at (for the τ view).

    The cue calls up the top K_s memories above τ (§3.3.1). Memories learnt from the episode
    this one continues are known whatever τ says. Under native management a decider that
    reads statements (`Recall`) also calls up, for each statement of the episode's unread
    messages, those of its top K_s memories above τ: a memory is reminded by what is said, not
    only by the episode's title. Every listed score is the cue's, so the τ view reads alike; a
    recalled memory also keeps its statement and that statement's similarity.
    """
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
    # memory -> (the statement nearest to it, their similarity), of every statement's top K_s
    # whatever their score, so what-if τ on the record knows what another τ would call up
    recalled: dict[str, tuple[str, float]] = {}
    if recall is not None and config.management == "native":
        for text, vector in zip(recall.statements, recall.vectors):
            for m, sim in state.search_memories(vector, config.k_s):
                if m.id not in recalled or sim > recalled[m.id][1]:
                    recalled[m.id] = (text, sim)
    seen = {x.id for x, _ in looked}
    extra = []
    for m in told + [state.memories[i] for i in recalled]:
        if m.id not in seen:
            seen.add(m.id)
            extra.append((m, float(np.dot(query, np.asarray(m.embedding, dtype=np.float32)))))
    cued = {x.id for x, _ in looked}
    passed, listing = [], []
    for m, s in looked + extra:
        # decided on the score as recorded, so what-if τ on the record gives the same answer
        said = recalled.get(m.id)
        ok = threshold is None or bool(passes_tau(round(s, 4), m.id in told_ids, threshold,
                                                  round(said[1], 4) if said else None))
        entry = EvokedMemory(id=m.id, score=round(s, 4), passed=ok)
        if m.id in told_ids:
            entry.continued = True
        if said:
            entry.recalled_by, entry.recall_score = said[0], round(said[1], 4)
            if m.id not in cued and m.id not in told_ids:
                entry.by_cue = False
        if ok:
            passed.append((m, s))
        listing.append(entry)
    return passed, listing


def anticipate_and_distill(c: StageContext, episode: Episode,
                           messages: list[Message]) -> list[Insight]:
    """Predict the episode from what is known, then keep what the prediction missed (§3.3.1-2).

    Only the messages no distillation has read are distilled (`skipped.unread`): an episode
    that continues an earlier one is not distilled twice. Nemori-s skips the prediction and
    distils them directly.
    """
    decider, config, log = c.decider, c.config, c.log
    fresh, carried = unread(messages, c.state.distilled)
    c.state.distilled.update(m.id for m in fresh)
    extra = {"carried_message_ids": carried} if carried else {}
    if config.variant == "nemori-s":
        result = decider.distill_direct(fresh) if fresh else DistillDecision(insights=[])
        log.emit(DistillPayload(episode_id=episode.id, mode="direct", prediction=None,
                                insights=result.insights, lines=result.lines,
                                raw_messages=len(fresh), fallback=result.fallback, **extra),
                 episode_ids=[episode.id], message_ids=episode.message_ids,
                 call_ids=result.call_ids)
        return result.insights
    reads = getattr(decider, "recall", None)
    evoked, listing = evoke(c.state, episode, config, reads(fresh) if reads else None)
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
    if not fresh:
        result = DistillDecision(insights=[])
    elif narrated:
        result = decider.distill_cold(episode, fresh)
    else:
        result = decider.distill(fresh, prediction)
    covered = classify(result.covered, {m.text.strip(): m for m, _ in evoked},
                       episode.message_ids, c.by_id, c.embedder.embed)
    insights = _details_of_cued(result.insights, evoked, listing)
    log.emit(DistillPayload(episode_id=episode.id, mode="prediction-error",
                            prediction=prediction, cold_start=not evoked,
                            **({"read": "narrative"} if narrated else {}),
                            insights=insights, covered=covered, lines=result.lines,
                            raw_messages=len(fresh), fallback=result.fallback, **extra),
             episode_ids=[episode.id], message_ids=episode.message_ids, call_ids=result.call_ids)
    return insights


def _details_of_cued(insights: list[Insight], evoked: list[tuple[SemanticMemory, float]],
                     listing: list[EvokedMemory]) -> list[Insight]:
    """An insight adds a detail (`elaborates`) only to a fact the episode's own prediction
    held in part: one its cue evoked, or the episode it continues taught. A memory that only
    a statement called up is there to recognise what is already known; a detail attached to
    it would glue another event onto a fact the episode is not about."""
    said_only = {e.id for e in listing if not e.by_cue}
    lines = {m.text.strip() for m, _ in evoked if m.id in said_only}
    cued = {m.text.strip() for m, _ in evoked if m.id not in said_only}
    return [i.model_copy(update={"elaborates": None})
            if i.elaborates and i.elaborates.strip() in lines - cued else i for i in insights]
