"""The Prediction demo's headline: where prediction's saving shows (fewer insights to
consolidate, fewer consolidation decisions) and why memories differ by little (Nemori-s's
consolidation merges the repeats it distilled into memories it already holds)."""

from __future__ import annotations

from dataclasses import dataclass

from .knowledge import decision_table
from .run_data import RunData
from .wording import plural


def consolidation_outcomes(data: RunData) -> dict[str, int]:
    """Consolidation decisions of a run: all, new, merged, and merges that changed nothing."""
    table = decision_table(data)
    unchanged = table["note"].str.contains("changed nothing", regex=False)
    return {"decisions": len(table), "new": int((table["action"] == "new").sum()),
            "merge": int((table["action"] == "merge").sum()),
            "already known": int(((table["action"] == "merge") & unchanged).sum()),
            "conflict": int((table["action"] == "conflict").sum())}


@dataclass(frozen=True)
class DemoHeadline:
    """The saving in words, and Nemori's figures less Nemori-s's (fewer is the saving)."""
    title: str
    why: str
    fewer_insights: int
    fewer_decisions: int
    fewer_memories: int
    known_again: int            # merges that changed nothing: Nemori-s's less Nemori's
    fewer_tokens: int


def demo_headline(demo: dict, ours: dict[str, int], theirs: dict[str, int]) -> DemoHeadline:
    """The saving in words and figures. `ours`, `theirs`: consolidation_outcomes of Nemori and
    Nemori-s."""
    n, s = demo["nemori"], demo["nemori_s"]
    fewer = s["insights"] - n["insights"]
    saved_memories = s["memories"] - n["memories"]
    known = theirs["already known"] - ours["already known"]
    title = (f"Prediction kept {plural(fewer, 'repeated fact')} out of consolidation"
             if fewer > 0 else "Prediction saved no insight on this transcript")
    why = (f"Nemori-s distilled {plural(s['insights'], 'insight')}, {fewer} more than Nemori's "
           f"{n['insights']}. Its consolidation then merged {theirs['merge']} of them into "
           f"memories it already held, {theirs['already known']} changing nothing (the fact "
           f"was already known), so it stores only "
           f"{plural(saved_memories, 'memory', 'memories')} more ({s['memories']} against "
           f"{n['memories']}). Consolidation catches a repeat after it is distilled; prediction "
           f"keeps it from being distilled at all: Nemori made "
           f"{plural(theirs['decisions'] - ours['decisions'], 'fewer consolidation decision')}"
           f" (with an LLM, one call each), and the memory ends up nearly the same.")
    return DemoHeadline(title=title, why=why, fewer_insights=fewer,
                        fewer_decisions=theirs["decisions"] - ours["decisions"],
                        fewer_memories=saved_memories, known_again=known,
                        fewer_tokens=s["tokens"] - n["tokens"])
