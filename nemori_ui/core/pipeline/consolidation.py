"""Consolidation (§3.3.3 and Appendix A): each insight of an episode becomes a new memory, is
merged into one, or replaces one it contradicts.

Native management retrieves each insight's candidates first. Under `gated`, an insight with no
candidate at the gate and none it may contradict is stored as new without a call; the rest are
asked about one call each (`consolidation_unit = "insight"`) or together in one call for the
episode (`"episode"`), each against the candidates it had before any of the episode's insights
was stored. Naive management appends; summary management rewrites one running summary.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..models import Episode, SemanticMemory
from ..stage_events import ConsolidatePayload, MemoryCandidate, SummaryPayload
from .bundle import StageContext
from .consolidation_gate import why_ask
from .decisions import ConsolidationDecision, Insight
from .statement_bound import bounded_statement


@dataclass
class _Pending:
    """An insight with its candidates, and whether a decider is to be asked about it."""
    insight: Insight
    vector: np.ndarray
    candidates: list[tuple[SemanticMemory, float]]
    payload: ConsolidatePayload
    ask: bool


def consolidate(c: StageContext, episode: Episode, insights: list[Insight]) -> None:
    if not insights:
        return
    if c.config.management == "summary":
        _rewrite_summary(c, episode, insights)
        return
    vectors = c.embedder.embed([i.text for i in insights])
    if _per_episode(c):
        pending = [_prepare(c, episode, i, v) for i, v in zip(insights, vectors)]
        asked = [p for p in pending if p.ask]
        decided = iter(c.decider.consolidate_episode(
            [(p.insight.text, p.candidates, p.insight.elaborates) for p in asked])
            if asked else [])
        for p in pending:
            _apply(c, episode, p, next(decided) if p.ask else None)
        return
    for insight, vector in zip(insights, vectors):
        p = _prepare(c, episode, insight, vector)
        _apply(c, episode, p, c.decider.consolidate(insight.text, p.candidates,
                                                    insight.elaborates) if p.ask else None)


def _per_episode(c: StageContext) -> bool:
    # a decider that asks per episode: only the LLM decider has a call to save
    return (c.config.consolidation == "gated" and c.config.consolidation_unit == "episode"
            and c.config.management == "native" and getattr(c.decider, "makes_calls", True)
            and hasattr(c.decider, "consolidate_episode"))


def _prepare(c: StageContext, episode: Episode, insight: Insight,
             vector: np.ndarray) -> _Pending:
    decider, state, config = c.decider, c.state, c.config
    candidates = [] if config.management == "naive" else state.search_memories(vector, config.k_m)
    # ids and scores only: the texts are the stored memories', which the pages look up
    listed = [MemoryCandidate(id=m.id, score=round(s, 4)) for m, s in candidates]
    # the action is known once decided; "new" until then, set again on applying either way
    payload = ConsolidatePayload(action="new", episode_id=episode.id, insight=insight.text,
                                 source_message_ids=insight.source_message_ids,
                                 candidates=listed)
    gated = config.consolidation == "gated" and getattr(decider, "makes_calls", True)
    why = why_ask(insight.text, candidates, config.consolidation_gate,
                  config.offline) if gated else None
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
        return _Pending(insight, vector, candidates, payload, ask=True)
    return _Pending(insight, vector, candidates, payload, ask=False)


def _apply(c: StageContext, episode: Episode, p: _Pending,
           directive: ConsolidationDecision | None) -> None:
    """Store the insight as `directive` says (None: new, as it stands) and record why."""
    state, config, payload, insight = c.state, c.config, p.payload, p.insight
    call_ids: list[str] = []
    # no memory holds more than one bounded statement, whatever a decider replied
    action, targets, text = "new", [], bounded_statement(insight.text, insight.text)
    if directive is not None:
        call_ids = directive.call_ids
        payload.reason, payload.fallback = directive.reason, directive.fallback
        valid = sorted({t for t in directive.targets if 1 <= t <= len(p.candidates)})
        repairs = []
        if len(valid) != len(set(directive.targets)):
            repairs.append(f"targets {directive.targets} not all candidates: kept {valid}")
        # asked per episode, a target may have been replaced by an earlier insight of it
        gone = [t for t in valid if state.memories[p.candidates[t - 1][0].id].status != "active"]
        if gone:
            repairs.append(f"{', '.join(p.candidates[t - 1][0].id for t in gone)} already "
                           f"replaced by an earlier insight of this episode: left out")
            valid = [t for t in valid if t not in gone]
        action = directive.action
        if action != "new" and not valid:
            repairs.append(f"{action} without a valid target: stored as new")
            action = "new"
        targets = [p.candidates[t - 1][0] for t in valid] if action != "new" else []
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
        embedding=(p.vector if text == insight.text else c.embedder.embed([text])[0]).tolist())
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
