"""Offline prediction error, consolidation, summary and answer rules."""

from __future__ import annotations

import numpy as np

from ..config import OfflineThresholds
from ..models import Message, SemanticMemory
from .dates import absolutize
from .text import content_words, disagreement, is_informative, sentences


def statements(messages: list[Message]) -> list[tuple[str, str]]:
    """(message id, 'Speaker: sentence') for every informative sentence of the episode."""
    found = []
    for m in messages:
        for s in sentences(m.text):
            if is_informative(s):
                found.append((m.id, f"{m.speaker}: {absolutize(s, m.timestamp)}"))
    return found


def prediction_gaps(candidates: list[str], cand_vecs: np.ndarray, predicted: list[str],
                    pred_vecs: np.ndarray, limits: OfflineThresholds) -> list[tuple[str, float] | None]:
    """For each candidate statement, the prediction line that already holds it (with the
    similarity), or None when the prediction missed it or got it wrong."""
    if not predicted:
        return [None] * len(candidates)
    sims = cand_vecs @ pred_vecs.T
    found: list[tuple[str, float] | None] = []
    for i, text in enumerate(candidates):
        j = int(np.argmax(sims[i]))
        held = sims[i, j] >= limits.covered_sim and disagreement(text, predicted[j]) is None
        found.append((predicted[j], float(sims[i, j])) if held else None)
    return found


def consolidation_rule(insight: str, candidates: list[tuple[SemanticMemory, float]],
                       limits: OfflineThresholds) -> tuple[str, list[int], str]:
    """(action, 1-based targets, reason) for an insight against its nearest memories."""
    conflicts, merges = [], []
    for idx, (memory, score) in enumerate(candidates, start=1):
        if score < limits.conflict_sim:
            continue
        why = disagreement(insight, memory.text)
        if why:
            conflicts.append((idx, f"{memory.id} ({score:.2f}): {why}"))
        elif score >= limits.merge_sim:
            merges.append((idx, f"{memory.id} ({score:.2f})"))
    if conflicts:
        return "conflict", [i for i, _ in conflicts], "contradicts " + "; ".join(r for _, r in conflicts)
    if merges:
        return "merge", [i for i, _ in merges], "same fact as " + ", ".join(r for _, r in merges)
    best = max((s for _, s in candidates), default=0.0)
    return "new", [], f"nearest memory at {best:.2f}: nothing close enough to merge or contradict"


def merged_text(insight: str, targets: list[str]) -> str:
    """Keep every distinct sentence once, the existing memory first."""
    parts: list[str] = []
    for text in targets + [insight]:
        speaker, _, body = text.partition(": ")
        for s in sentences(body if body else text):
            if s.lower() not in (p.lower() for p in parts):
                parts.append(s)
    speaker = insight.partition(": ")[0] if ": " in insight else ""
    joined = " ".join(parts)
    return f"{speaker}: {joined}" if speaker else joined


def best_sentence(question: str, question_vec: np.ndarray, lines: list[str],
                  vecs: np.ndarray, current: list[bool] | None = None) -> str:
    """The retrieved sentence that best answers: similar in meaning and sharing its words.

    Lines from semantic memory get a small edge: consolidation has already replaced what
    conflicting later statements made outdated, which raw messages and narratives still hold.
    """
    if not lines:
        return "I don't know: nothing relevant is in memory."
    asked = set(content_words(question))
    overlap = np.array([len(asked & set(content_words(line))) for line in lines], dtype=np.float32)
    edge = np.array(current or [False] * len(lines), dtype=np.float32)
    return lines[int(np.argmax(vecs @ question_vec + 0.1 * overlap + 0.05 * edge))]
