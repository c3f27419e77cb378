"""Comparing two runs: where they cut the transcript, what they know, what they cost."""

from __future__ import annotations

from dataclasses import astuple, dataclass
from typing import Any

import numpy as np

from ..eval import qa
from ..eval.evidence import memory_only_recall
from ..models import Conversation
from ..offline.conflicts import conflict as disagreement
from ..run_figures import RunFigures
from ..views.prediction import predicted
from ..views.run_data import RunData

SAME, REWORDED = 0.95, 0.80


def segment_labels(data: RunData) -> list[int]:
    """For each message in order, the number of the raw episode it was partitioned into."""
    label = {}
    for n, group in enumerate(g for e in data.stage("partition") for g in e.payload.groups):
        for mid in group:
            label[mid] = n
    return [label.get(m.id, -1) for m in data.messages]


def boundaries(labels: list[int]) -> set[int]:
    return {i for i in range(1, len(labels)) if labels[i] != labels[i - 1]}


def window_diff(ref: list[int], hyp: list[int], k: int | None = None) -> float:
    """WindowDiff (Pevzner & Hearst): share of windows of width k whose boundary counts differ."""
    n = min(len(ref), len(hyp))
    if n < 2:
        return 0.0
    rb, hb = boundaries(ref[:n]), boundaries(hyp[:n])
    if k is None:
        k = max(1, round(n / (2 * (len(rb) + 1))))
    k = min(k, n - 1)
    diffs = sum(len([b for b in rb if i < b <= i + k]) != len([b for b in hb if i < b <= i + k])
                for i in range(n - k))
    return diffs / (n - k)


@dataclass(frozen=True)
class PartitionAgreement:
    """Where B cuts the transcript against where A does: precision is B's cuts A also made."""
    boundaries_a: int
    boundaries_b: int
    shared: int
    precision: float
    recall: float
    window_diff: float
    same_messages: bool         # only then do the cuts line up


def partition_agreement(a: RunData, b: RunData) -> PartitionAgreement:
    la, lb = segment_labels(a), segment_labels(b)
    ba, bb = boundaries(la), boundaries(lb)
    both = len(ba & bb)
    return PartitionAgreement(
        boundaries_a=len(ba), boundaries_b=len(bb), shared=both,
        precision=both / len(bb) if bb else 1.0, recall=both / len(ba) if ba else 1.0,
        window_diff=round(window_diff(la, lb), 4),
        same_messages=[m.id for m in a.messages] == [m.id for m in b.messages])


@dataclass(frozen=True)
class MemoryPair:
    """An active memory of A matched with one of B, and their similarity."""
    a: str
    b: str
    text_a: str
    text_b: str
    score: float


@dataclass(frozen=True)
class Contradiction(MemoryPair):
    why: str


@dataclass(frozen=True)
class LoneMemory:
    """An active memory matched with none of the other run's."""
    id: str
    text: str


@dataclass(frozen=True)
class KnowledgeDiff:
    same: list[MemoryPair]
    reworded: list[MemoryPair]
    contradicted: list[Contradiction]
    only_a: list[LoneMemory]
    only_b: list[LoneMemory]


def knowledge_diff(a: RunData, b: RunData) -> KnowledgeDiff:
    """Active memories matched by embedding similarity, greedily from the closest pair."""
    ma = [m for m in a.memories if m.status == "active" and m.embedding]
    mb = [m for m in b.memories if m.status == "active" and m.embedding]
    same, reworded, contradicted = [], [], []
    if ma and mb and len(ma[0].embedding) == len(mb[0].embedding):
        sims = np.asarray([m.embedding for m in ma]) @ np.asarray([m.embedding for m in mb]).T
    else:
        sims = np.zeros((len(ma), len(mb)))
    used_a, used_b = set(), set()
    for flat in np.argsort(-sims, axis=None):
        i, j = divmod(int(flat), sims.shape[1])
        score = float(sims[i, j])
        if score < REWORDED:
            break
        if i in used_a or j in used_b:
            continue
        used_a.add(i)
        used_b.add(j)
        pair = dict(a=ma[i].id, b=mb[j].id, text_a=ma[i].text, text_b=mb[j].text,
                    score=round(score, 4))
        why = disagreement(ma[i].text, mb[j].text)
        if why:
            contradicted.append(Contradiction(**pair, why=why))
        else:
            (same if score >= SAME else reworded).append(MemoryPair(**pair))
    return KnowledgeDiff(
        same=same, reworded=reworded, contradicted=contradicted,
        only_a=[LoneMemory(m.id, m.text) for i, m in enumerate(ma) if i not in used_a],
        only_b=[LoneMemory(m.id, m.text) for j, m in enumerate(mb) if j not in used_b])


@dataclass(frozen=True)
class CountDeltas:
    """B's counts and LLM cost minus A's."""
    episodes: int
    integrated: int
    insights: int
    semantic_memories: int
    llm_calls: int
    llm_input_tokens: int
    llm_output_tokens: int


@dataclass(frozen=True)
class RunComparison:
    a: str
    b: str
    config_changes: dict[str, tuple[Any, Any]]     # setting → (A's value, B's value)
    partition: PartitionAgreement
    knowledge: KnowledgeDiff
    deltas: CountDeltas
    identical: bool                                 # both hold the same memory


def compare_runs(a: RunData, b: RunData, figures_a: RunFigures, figures_b: RunFigures
                 ) -> RunComparison:
    counts = ("episodes", "integrated", "insights", "semantic_memories")
    deltas = CountDeltas(**{k: getattr(figures_b, k) - getattr(figures_a, k) for k in counts},
                         **{f"llm_{k}": getattr(figures_b.llm, k) - getattr(figures_a.llm, k)
                            for k in ("calls", "input_tokens", "output_tokens")})
    knowledge = knowledge_diff(a, b)
    config_a, config_b = a.info.config.model_dump(), b.info.config.model_dump()
    return RunComparison(
        a=a.run_id, b=b.run_id,
        config_changes={k: (config_a[k], config_b[k]) for k in config_a
                        if config_a[k] != config_b[k]},
        partition=partition_agreement(a, b), knowledge=knowledge, deltas=deltas,
        identical=not any(astuple(deltas)) and not any(
            (knowledge.reworded, knowledge.contradicted, knowledge.only_a, knowledge.only_b)))


def partner_runs(runs_listed, run_id: str, hash_of) -> list[str]:
    """Other runs of the very conversation `run_id` ran on (same id, same messages), newest
    first: the runs whose partitions and knowledge can be compared with it."""
    by_id = {r.id: r for r in runs_listed}
    me = by_id[run_id]
    mine = hash_of(run_id)
    return [r.id for r in runs_listed if r.id != run_id
            and r.conversation_id == me.conversation_id and hash_of(r.id) == mine]


EVIDENCE_TOKENS = 400     # the memory a question may read, for evidence recall at equal tokens


@dataclass(frozen=True)
class PredictionChange:
    """What prediction changes: a run that predicts (Nemori) beside one that does not
    (Nemori-s) on the same conversation. Evidence recall is memory-only, each question reading
    its most similar memories within the same `tokens` (the paper's "w/o e" against
    Nemori-s); None when the conversation carries no questions with evidence."""
    nemori: str
    nemori_s: str
    predicted: int                  # statements Nemori's prediction held: never distilled
    insights: tuple[int, int]       # (Nemori, Nemori-s): distilled
    decisions: tuple[int, int]      # consolidation decisions (with a model, one call each)
    memories: tuple[int, int]       # active memories
    differ: int                     # memories reworded, or held by one run only
    evidence: tuple[float, float] | None
    tokens: int
    verdict: str


def prediction_change(a: RunData, b: RunData, conv: Conversation, embed,
                      tokens: int = EVIDENCE_TOKENS) -> PredictionChange | None:
    """Nemori beside Nemori-s, whichever of `a` and `b` is which; None unless one predicts and
    the other does not."""
    runs = {d.info.config.variant: d for d in (a, b)}
    if set(runs) != {"nemori", "nemori-s"}:
        return None
    ours, theirs = runs["nemori"], runs["nemori-s"]
    told = sum(len(predicted(ours, ev)) for ev in ours.stage("distill"))
    insights = tuple(sum(len(ev.payload.insights) for ev in d.stage("distill"))
                     for d in (ours, theirs))
    decisions = tuple(len(d.stage("consolidate")) for d in (ours, theirs))
    active = [[m for m in d.memories if m.status == "active"] for d in (ours, theirs)]
    diff = knowledge_diff(ours, theirs)
    items = [i for i in qa.locomo_items(conv).items if i.evidence] if conv.extra.get("qa") \
        else []
    evidence = None
    if items:
        questions = embed([i.question for i in items])
        said = {m.id: m for m in conv.messages}
        evidence = tuple(round(memory_only_recall(
            mems, np.asarray([m.embedding for m in mems], dtype=np.float32), said, items,
            questions, tokens), 4) for mems in active)
    saved = insights[1] - insights[0]
    verdict = (f"Prediction held {told} statements told again: Nemori distilled {saved} fewer "
               f"insights and made {decisions[1] - decisions[0]} fewer consolidation "
               f"decisions.")
    if evidence is not None:
        gain = evidence[0] - evidence[1]
        verdict += (f" Memory-only evidence recall within {tokens} tokens: "
                    f"{evidence[0]:.1%} against {evidence[1]:.1%}"
                    + (": no gain from prediction on this conversation." if gain <= 0.005
                       else f", {gain:+.1%}."))
    return PredictionChange(
        nemori=ours.run_id, nemori_s=theirs.run_id, predicted=told, insights=insights,
        decisions=decisions, memories=(len(active[0]), len(active[1])),
        differ=len(diff.reworded) + len(diff.only_a) + len(diff.only_b) + len(diff.contradicted),
        evidence=evidence, tokens=tokens, verdict=verdict)
