"""What the memory predicted an episode would hold, what it really held, and what it learnt.

An episode's surprise is the number of insights its distillation stored per raw message it
holds: 0 when the prediction already held everything, about 1 when every message taught
something new. It needs nothing the LLM does not report, so it reads the same for every engine.
"""

from __future__ import annotations

import pandas as pd

from ..models import StageEvent
from ..pipeline.skipped import classify
from ..pipeline.tau_rule import passes_tau
from ..stage_events import ConsolidatePayload, CoveredStatement
from .episodes import fmt_time, message_span
from .prediction_records import (Admitted, CitedMessage, ComparedMessage, Comparison, Evoked,
                                 Outcome, PredictionLine, ProducedInsight)
from .run_data import RunData, derived

SURPRISE_DEFINITION = ("surprise = insights that changed memory ÷ raw messages in the episode "
                       "(0: the prediction held everything; 1: one new fact per message); an "
                       "insight merged into an identical memory was already known")
LEARNT, PREDICTED, CARRIED, PLAIN = ("learnt", "predicted, not stored",
                                     "carried: known from the part it continues", "plain")
# why a looked-at memory was or was not evoked (the τ rule); the charts colour by these
ABOVE_TAU, CONTINUED, RECALLED, BELOW_TAU = ("above τ", "from the episode it continues",
                                             "called up by what the episode says", "below τ")


def _distill_events(data: RunData) -> list[StageEvent]:
    return sorted(data.stage("distill"), key=lambda ev: ev.seq)


def _event_for(data: RunData, stage: str, episode_id: str) -> StageEvent | None:
    for ev in data.stage(stage):
        if ev.payload.episode_id == episode_id:
            return ev
    return None


def classed(data: RunData, ev: StageEvent) -> list[CoveredStatement]:
    """The distill event's skipped statements, each with its one class (pipeline/skipped.py):
    as recorded, or, for a run stored before statements were classed, by the memory whose
    text is the prediction line that held it (the earliest of that text)."""
    covered = ev.payload.covered
    if all(c.kind for c in covered):
        return list(covered)
    by_text: dict[str, object] = {}
    for m in sorted(data.memories, key=lambda m: (len(m.id), m.id)):
        by_text.setdefault(m.text.strip(), m)
    return classify(covered, by_text, ev.message_ids)   # earliest source: no embedder here


def predicted(data: RunData, ev: StageEvent) -> list[CoveredStatement]:
    """What prediction saved in one distillation: the statements an earlier episode's
    knowledge held. The one count every page, banner and figure shows."""
    return [c for c in classed(data, ev) if c.kind == "predicted"]


def _cue(data: RunData, episode_id: str) -> str:
    episode = data.episode_by_id.get(episode_id)
    return episode.cue if episode else ""


@derived
def surprise_table(data: RunData) -> pd.DataFrame:
    """One row per distilled episode, in the order the memory met them. `covered`: the
    statements a prediction from earlier episodes held (`predicted`); `messages`: those the
    distillation read (not the part of the episode an earlier one read)."""
    pos = {m.id: i for i, m in enumerate(data.messages, start=1)}
    # one consolidation event per insight (or per episode for the flat summary)
    known: dict[str, int] = {}
    for ev in data.stage("consolidate"):
        if isinstance(ev.payload, ConsolidatePayload) and ev.payload.unchanged:
            eid = ev.payload.episode_id
            known[eid] = known.get(eid, 0) + 1
    rows = []
    for order, ev in enumerate(_distill_events(data), start=1):
        p = ev.payload
        eid = p.episode_id
        n = p.raw_messages or len(ev.message_ids)
        insights = len(p.insights) - known.get(eid, 0)
        places = sorted(pos[i] for i in ev.message_ids if i in pos)
        rows.append({"order": order, "episode": eid, "cue": _cue(data, eid),
                     "window": ev.window + 1, "mode": p.mode, "messages": n,
                     "insights": insights, "covered": len(predicted(data, ev)),
                     "surprise": round(insights / n, 3) if n else 0.0,
                     "first": places[0] if places else None,
                     "last": places[-1] if places else None,
                     "span": message_span(data, ev.message_ids)})
    return pd.DataFrame(rows, columns=["order", "episode", "cue", "window", "mode", "messages",
                                       "insights", "covered", "surprise", "first", "last",
                                       "span"])


def most_surprising(table: pd.DataFrame) -> str | None:
    """The episode with the highest surprise; more insights, then the earlier one, break ties."""
    if table.empty:
        return None
    ranked = table.sort_values(["surprise", "insights", "order"], ascending=[False, False, True])
    return str(ranked.iloc[0]["episode"])


def most_predicted(data: RunData, table: pd.DataFrame) -> str | None:
    """The episode to open on: where the prediction held the most (the offline engine counts
    the statements it held), else the first with a prediction at all; None when nothing was
    predicted (Nemori-s, or a memory that never evoked anything)."""
    held = table[table["covered"] > 0]
    if not held.empty:
        return str(held.sort_values(["covered", "order"], ascending=[False, True])
                   .iloc[0]["episode"])
    for ev in _distill_events(data):
        if ev.payload.prediction:
            return ev.payload.episode_id
    return None


def evoked(data: RunData, episode_id: str) -> Evoked | None:
    """What the episode's cue called up from semantic memory, against τ. None in Nemori-s."""
    ev = _event_for(data, "anticipate", episode_id)
    if ev is None:
        return None
    p = ev.payload
    frame = pd.DataFrame(
        [{"rank": i, "memory": e.id, "text": data.memory_text(e.id, e.text), "score": e.score,
          "passed": e.passed, "continued": e.continued, "recall score": e.recall_score,
          "recalled by": e.recalled_by, "by cue": e.by_cue}
         for i, e in enumerate(p.evoked, start=1)],
        columns=["rank", "memory", "text", "score", "passed", "continued", "recall score",
                 "recalled by", "by cue"])
    return Evoked(tau=data.info.config.tau if p.tau is None else p.tau,
                  cold_start=p.cold_start,
                  management=p.management or data.info.config.management,
                  prediction=p.prediction, frame=frame,
                  passed=int(frame["passed"].sum()) if not frame.empty else 0)


def _outcomes(data: RunData, episode_id: str) -> dict[str, list[Outcome]]:
    """Insight text -> what consolidation did with it, in order (one text may repeat)."""
    found: dict[str, list[Outcome]] = {}
    for ev in sorted(data.stage("consolidate"), key=lambda e: e.seq):
        p = ev.payload
        if p.episode_id != episode_id:
            continue
        merge = isinstance(p, ConsolidatePayload)
        for text in p.insight_texts:
            found.setdefault(text, []).append(Outcome(
                action=p.action, result_id=p.result_id, targets=p.targets if merge else [],
                unchanged=merge and p.unchanged))
    return found


def comparison(data: RunData, episode_id: str) -> Comparison | None:
    """The predicted episode beside the real one, each raw message marked by what became of it.

    A message is `learnt` when an insight cites it, `predicted, not stored` when the engine
    found that a prediction from earlier episodes already held what it said (only the offline
    engine reports this), `carried` when it belongs to the part of the episode an earlier
    distillation read (or what it said was known only from that part), and `plain`
    otherwise. Insights come with the raw lines they cite and their consolidation.
    """
    ev = _event_for(data, "distill", episode_id)
    if ev is None:
        return None
    p = ev.payload
    insights, covered = p.insights, classed(data, ev)
    learnt: dict[str, list[str]] = {}
    for ins in insights:
        for mid in ins.source_message_ids:
            learnt.setdefault(mid, []).append(ins.text)
    held: dict[str | None, list[CoveredStatement]] = {}
    for c in covered:
        held.setdefault(c.message_id, []).append(c)
    carried = set(p.carried_message_ids)
    wanted = set(ev.message_ids)
    rows = []
    for m in data.messages:
        if m.id not in wanted:
            continue
        kinds = {c.kind for c in held.get(m.id, [])}
        status = LEARNT if m.id in learnt else PREDICTED if "predicted" in kinds else \
            CARRIED if m.id in carried or kinds else PLAIN
        rows.append(ComparedMessage(message=m.id, time=fmt_time(m.timestamp),
                                    speaker=m.speaker, text=m.text, status=status,
                                    learnt=learnt.get(m.id, []), covered=held.get(m.id, [])))
    prediction = p.prediction or ""
    lines = [PredictionLine(text=line, held=[c.text for c in covered if c.predicted_by == line])
             for line in prediction.splitlines() if line.strip()]
    outcomes = _outcomes(data, episode_id)
    produced = []
    for ins in insights:
        queue = outcomes.get(ins.text) or []
        sources = [data.message_by_id[mid] for mid in ins.source_message_ids
                   if mid in data.message_by_id]
        produced.append(ProducedInsight(
            text=ins.text, source_message_ids=ins.source_message_ids,
            sources=[CitedMessage(message=s.id, speaker=s.speaker, text=s.text)
                     for s in sources],
            outcome=queue.pop(0) if queue else None))
    return Comparison(episode_id=episode_id, cue=_cue(data, episode_id), mode=p.mode,
                      read=p.read, prediction_lines=lines, rows=rows, insights=produced,
                      covered=covered, statements_checked=data.is_offline, fallback=p.fallback,
                      counts={status: sum(r.status == status for r in rows)
                              for status in (LEARNT, PREDICTED, CARRIED, PLAIN)})


def charted(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of an evoked frame its chart draws: the cue's top K_s and every memory evoked
    otherwise; a statement's near misses are counted in the τ histogram, not charted."""
    return frame[frame["by cue"] | frame["passed"]] if "by cue" in frame else frame


def evocation(score: float, continued: bool, tau: float,
              recall_score: float | None = None) -> str:
    """Why the τ rule evoked a memory or not: the cue above τ; known because it was learnt
    from the episode this one continues; a statement of the episode above τ to it (the
    offline engine's recall); or below τ and ignored."""
    if score > tau:
        return ABOVE_TAU
    if continued:
        return CONTINUED
    return RECALLED if recall_score is not None and recall_score > tau else BELOW_TAU


def evocations(frame: pd.DataFrame, tau: float) -> list[str]:
    """`evocation` of every row of an evoked frame."""
    said = frame["recall score"] if "recall score" in frame else [None] * len(frame)
    return [evocation(float(s), bool(c), tau, None if r is None or pd.isna(r) else float(r))
            for s, c, r in zip(frame["score"], frame["continued"], said)]


def evoked_counts(frame: pd.DataFrame, tau: float) -> dict[str, int]:
    """How many looked-at memories each reason covers, so a count and a legend agree."""
    counts = {ABOVE_TAU: 0, CONTINUED: 0, RECALLED: 0, BELOW_TAU: 0}
    for why in evocations(frame, tau):
        counts[why] += 1
    return counts


def evoked_caption(frame: pd.DataFrame, tau: float) -> str:
    """The evoked chart's legend in words, with the counts the metric above it shows."""
    n = evoked_counts(frame, tau)
    used = n[ABOVE_TAU] + n[CONTINUED] + n[RECALLED]
    text = (f"{used} of {len(frame)} evoked, used for the prediction. Green: similarity above "
            f"τ = {tau:.2f} ({n[ABOVE_TAU]})")
    if n[CONTINUED]:
        text += (f"; hatched teal: below τ but learnt from the episode this one continues, so "
                 f"already known and evoked whatever τ says ({n[CONTINUED]})")
    if n[RECALLED]:
        text += (f"; dotted blue: below τ for the cue, but a statement of the episode is "
                 f"above τ to it, so it is called up by what was said ({n[RECALLED]})")
    return text + f"; grey: looked at, below τ, ignored ({n[BELOW_TAU]})."


def looked_similarities(data: RunData) -> pd.DataFrame:
    """Every similarity an episode's evocation looked at, with whether it passed τ."""
    rows = [{"episode": ev.payload.episode_id, "memory": e.id, "score": e.score,
             "passed": e.passed, "continued": e.continued, "recall score": e.recall_score}
            for ev in data.stage("anticipate") for e in ev.payload.evoked]
    return pd.DataFrame(rows, columns=["episode", "memory", "score", "passed", "continued",
                                       "recall score"]).astype({"recall score": float})


def admitted(frame: pd.DataFrame, tau: float) -> Admitted:
    """What τ lets through of the looked-at similarities: pairs, and episodes evoking any."""
    if frame.empty:
        return Admitted(pairs=0, passing=0, episodes=0, evoking=0)
    passing = passes_tau(frame["score"], frame["continued"], tau, frame["recall score"])
    return Admitted(pairs=int(len(frame)), passing=int(passing.sum()),
                    episodes=int(frame["episode"].nunique()),
                    evoking=int(frame[passing]["episode"].nunique()))


def line_decisions(data: RunData, episode_id: str) -> pd.DataFrame:
    """How the engine read each raw clause of the episode: knowledge or talk, and why."""
    ev = _event_for(data, "distill", episode_id)
    lines = ev.payload.lines if ev else []
    return pd.DataFrame([{"message": line.message_id, "clause": line.text,
                          "read as": line.kind, "statement": line.statement,
                          "why": line.reason, "phatic score": line.score}
                         for line in lines],
                        columns=["message", "clause", "read as", "statement", "why",
                                 "phatic score"])
