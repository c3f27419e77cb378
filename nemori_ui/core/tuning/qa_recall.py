"""Evidence recall@k of a finished run, for sweeps: a QA figure that needs no LLM.

A question counts as found when all its evidence turns are among the raw messages of the top-k
episodes retrieved for it, as the evaluation harness defines it.
"""

from __future__ import annotations

from ..eval import qa
from ..eval.evidence import all_found, evidence_found
from ..models import Conversation
from ..episode_lines import find_episodes
from ..retrieval import load_memory
from ..store import Store, runs
from .records import EvidenceRecall


def evidence_recall(store: Store, run_id: str, conv: Conversation, embedder, k: int = 10
                    ) -> EvidenceRecall | None:
    """Recall@k of the run's episodes, or None when the conversation has no LoCoMo questions."""
    if not conv.extra.get("qa"):
        return None
    items = [i for i in qa.locomo_items(conv).items if i.checkable]
    if not items:
        return None
    state, _ = load_memory(store, run_id, embedder, runs.config_of(store, run_id))
    vectors = embedder.embed([i.question for i in items])
    found = 0
    for item, vector in zip(items, vectors):
        held = {mid for episode, _ in find_episodes(state, vector, k) for mid in episode.message_ids}
        # credited as the evaluation credits a question's evidence (episodes only here)
        marks = evidence_found([e.message_id for e in item.evidence], held, set())
        found += all_found(marks, "in_episodes")
    return EvidenceRecall(questions=len(items), k=k, recall_at_k=round(found / len(items), 4))
