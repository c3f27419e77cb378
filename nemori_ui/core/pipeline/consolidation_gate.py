"""Which insights a model is asked to consolidate (§3.3.3: retrieval first, then P_con).

Two statements that say the same fact sit high in an embedder's range (MiniLM: 0.83 and up
for 96 % of the reworded pairs of tests/fixtures/gate_pairs.json), but a statement that gives
an attribute another value ("Lena's favourite film is 'Paddington 2'" against "... is
'Spirited Away'") scores anywhere from 0.59 to 0.96, among other facts about the same person
(0.26 to 0.76): no similarity admits the contradictions without admitting most of what is
merely on the same person. So the gate asks for a call on either of two grounds: the nearest
memory is close enough to be the same fact, or the offline engine's reading of parts (same
person, the attribute changed, ended or negated) says the insight may contradict a candidate.
Anything else can only be new, and is stored as new without a call.
"""

from __future__ import annotations

from ..config import OfflineThresholds
from ..models import SemanticMemory
from ..offline.conflicts import conflict
from ..offline.spelt_out import explicit_change


def why_ask(insight: str, candidates: list[tuple[SemanticMemory, float]], gate: float,
            limits: OfflineThresholds) -> str | None:
    """Why a model is asked how `insight` relates to its candidates (best first), or None
    when it can only be new. The reading of parts looks as far as the offline engine does:
    a change the insight spells out ("not March 15") further than one read from attributes."""
    if not candidates:
        return None
    if candidates[0][1] >= gate:
        return f"nearest memory {candidates[0][1]:.2f}, at the gate {gate:g} or above"
    for memory, score in candidates:
        why = conflict(insight, memory.text) if score >= limits.conflict_sim else \
            explicit_change(insight, memory.text) if score >= limits.explicit_change_sim else None
        if why:
            return f"may contradict {memory.id} ({why})"
    return None
