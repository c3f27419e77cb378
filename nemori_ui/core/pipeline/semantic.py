"""Semantic stages (§3.3 and Appendix A): anticipate, distill, consolidate.

The management variant decides how knowledge is evoked and consolidated:
native (threshold-filtered search; new / merge / conflict), naive (top-K_s search; append),
summary (one running summary, rewritten with each episode's insights).
"""

from __future__ import annotations

import numpy as np

from ..config import PipelineConfig
from ..models import Episode, Message, SemanticMemory
from ..stage_events import (AnticipatePayload, ConsolidatePayload, DistillPayload,
                            EvokedMemory, MemoryCandidate, SummaryPayload)
from .bundle import StageContext
from .consolidation_gate import why_ask
from .decisions import Insight
from .state import MemoryState
from .statement_bound import bounded_statement
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


def consolidate(c: StageContext, episode: Episode, insights: list[Insight]) -> None:
    if not insights:
        return
    if c.config.management == "summary":
        _rewrite_summary(c, episode, insights)
        return
    vectors = c.embedder.embed([i.text for i in insights])
    for insight, vector in zip(insights, vectors):
        _consolidate_one(c, episode, insight, vector)


def _consolidate_one(c: StageContext, episode: Episode, insight: Insight,
                     vector: np.ndarray) -> None:
    decider, state, config, embedder = c.decider, c.state, c.config, c.embedder
    candidates = [] if config.management == "naive" else state.search_memories(vector, config.k_m)
    # ids and scores only: the texts are the stored memories', which the pages look up
    listed = [MemoryCandidate(id=m.id, score=round(s, 4)) for m, s in candidates]
    # the action is known once decided; "new" until then, set again below either way
    payload = ConsolidatePayload(action="new", episode_id=episode.id, insight=insight.text,
                                 source_message_ids=insight.source_message_ids,
                                 candidates=listed)
    call_ids: list[str] = []
    gated = config.consolidation == "gated" and getattr(decider, "makes_calls", True)
    why = why_ask(insight.text, candidates, config.consolidation_gate,
                  config.offline) if gated else None
    # no memory holds more than one bounded statement, whatever a decider replied
    action, targets, text = "new", [], bounded_statement(insight.text, insight.text)
    if config.management == "naive":
        payload.skipped = "naive management appends every insight"
    elif config.consolidation == "off":
        payload.skipped = "consolidation off: every statement is stored, as in the v1 code"
    elif not candidates:
        payload.skipped = "no existing memory to compare with"
    elif gated and why is None:
        # retrieval first (§3.3.3): nothing stored is the same fact or read as contradicted
        payload.skipped = f"no memory above the consolidation gate {config.consolidation_gate:g}" \
                          f" (nearest {candidates[0][1]:.2f}) and none it contradicts: stored" \
                          f" as new without a call"
    else:
        if why:
            payload.asked = why
        directive = decider.consolidate(insight.text, candidates, insight.elaborates)
        call_ids = directive.call_ids
        payload.reason, payload.fallback = directive.reason, directive.fallback
        valid = sorted({t for t in directive.targets if 1 <= t <= len(candidates)})
        repairs = []
        if len(valid) != len(set(directive.targets)):
            repairs.append(f"targets {directive.targets} not all candidates: kept {valid}")
        action = directive.action
        if action != "new" and not valid:
            repairs.append(f"{action} without a valid target: stored as new")
            action = "new"
        targets = [candidates[t - 1][0] for t in valid] if action != "new" else []
        if action == "merge":
            text = (directive.merged_text or "").strip()
            if not text:
                # a merge that names no text must not lose what the targets held
                text = " ".join(dict.fromkeys([t.text for t in targets] + [insight.text]))
                repairs.append("merge without merged text: joined the targets and the insight")
        if repairs:
            payload.repair = "; ".join(repairs)
        text = bounded_statement(text, insight.text)
        if action == "merge" and len(targets) == 1 and text == targets[0].text:
            # superseding a memory with an identical copy would only add a version
            payload.action, payload.targets, payload.unchanged = "merge", [targets[0].id], True
            payload.result_id = targets[0].id
            c.log.emit(payload, episode_ids=[episode.id],
                       message_ids=insight.source_message_ids, memory_ids=[targets[0].id],
                       call_ids=call_ids)
            return
    memory = SemanticMemory(
        id=state.next_memory_id(), text=text,
        origin="append" if config.management == "naive" else action,
        supersedes=[t.id for t in targets], window=episode.window,
        source_episode_ids=_union([episode.id], *(t.source_episode_ids for t in targets)),
        source_message_ids=_union(insight.source_message_ids,
                                  *(t.source_message_ids for t in targets)),
        embedding=(vector if text == insight.text else embedder.embed([text])[0]).tolist())
    state.add_memory(memory)
    for target in targets:
        state.supersede_memory(target.id, memory.id)
    payload.action, payload.targets = action, [t.id for t in targets]
    payload.result_id = memory.id
    c.log.emit(payload, episode_ids=[episode.id],
               message_ids=insight.source_message_ids,
               memory_ids=[memory.id] + [t.id for t in targets], call_ids=call_ids)


def _rewrite_summary(c: StageContext, episode: Episode, insights: list[Insight]) -> None:
    """Flat-summary management (Appendix A.1): each rewrite is a new version of one memory."""
    state = c.state
    previous = state.active_memories()
    old_text = previous[0].text if previous else ""
    result = c.decider.summarize(old_text, [i.text for i in insights])
    memory = SemanticMemory(
        id=state.next_memory_id(), text=result.summary, origin="summary",
        supersedes=[m.id for m in previous], window=episode.window,
        source_episode_ids=_union([episode.id], *(m.source_episode_ids for m in previous)),
        source_message_ids=_union(*(i.source_message_ids for i in insights),
                                  *(m.source_message_ids for m in previous)),
        embedding=c.embedder.embed([result.summary])[0].tolist())
    state.add_memory(memory)
    for old in previous:
        state.supersede_memory(old.id, memory.id)
    c.log.emit(SummaryPayload(episode_id=episode.id, action="summary",
                              insights=[i.text for i in insights], before=old_text,
                              result_id=memory.id, result_text=memory.text,
                              fallback=result.fallback),
               episode_ids=[episode.id], memory_ids=[memory.id] + [m.id for m in previous],
               call_ids=result.call_ids)


def _union(*lists: list[str]) -> list[str]:
    seen: dict[str, None] = {}
    for items in lists:
        for item in items:
            seen.setdefault(item, None)
    return list(seen)
