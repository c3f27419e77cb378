"""The Prediction demo's headline: the facts told again that prediction held (one number for
the title, the metrics and the banners), what Nemori-s did with the same facts, and where the
saving shows (fewer insights to consolidate, fewer consolidation decisions, fewer memories)."""

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
    """The saving in words, and Nemori's figures less Nemori-s's (fewer is the saving).
    `predicted` is the one number the title, the first metric and the banners share."""
    title: str
    why: str
    predicted: int
    fewer_insights: int
    fewer_decisions: int
    fewer_memories: int
    known_again: int            # merges that changed nothing: Nemori-s's less Nemori's
    fewer_tokens: int


def demo_headline(demo: dict, ours: dict[str, int], theirs: dict[str, int]) -> DemoHeadline:
    """The saving in words and figures. `demo`: the `PredictionDemo` as a dict; `ours`,
    `theirs`: consolidation_outcomes of Nemori and Nemori-s."""
    n, s = demo["nemori"], demo["nemori_s"]
    skipped = demo.get("skipped_as_predicted") or []
    did = demo.get("nemori_s_did") or {}
    told = len(skipped)
    fewer = s["insights"] - n["insights"]
    saved_memories = s["memories"] - n["memories"]
    fewer_decisions = theirs["decisions"] - ours["decisions"]
    known = theirs["already known"] - ours["already known"]
    if demo.get("inferred"):
        title = (f"Nemori-s stored {plural(told, 'insight')} Nemori's prediction held "
                 "(inferred: a model run does not record what its prediction held)")
    elif told:
        title = f"Prediction held {plural(told, 'fact')} told again: not stored"
    else:
        title = "Prediction held no fact told again on this transcript"
    parts = []
    if told and not demo.get("inferred"):
        parts.append(f"Each was told in an earlier session and predicted from the memory it "
                     f"left there. Nemori-s, which does not predict, distilled "
                     f"{'it' if told == 1 else f'all {told}'} again: "
                     + ", ".join(f"{v} {k}" for k, v in did.items()) + ".")
    parts.append(f"Nemori distilled {plural(n['insights'], 'insight')} against Nemori-s's "
                 f"{s['insights']} and made "
                 f"{plural(fewer_decisions, 'fewer consolidation decision')} (with an LLM, one "
                 f"call each).")
    if saved_memories > 0:
        parts.append(f"It stores {plural(saved_memories, 'memory', 'memories')} fewer "
                     f"({n['memories']} against {s['memories']}): Nemori-s's consolidation "
                     f"caught {theirs['already known']} repeats only after distilling them.")
    else:
        parts.append(f"The stored memories end up nearly the same ({n['memories']} against "
                     f"{s['memories']}): Nemori-s's consolidation caught "
                     f"{theirs['already known']} repeats after distilling them, where "
                     "prediction keeps them from being distilled at all.")
    return DemoHeadline(title=title, why=" ".join(parts), predicted=told,
                        fewer_insights=fewer, fewer_decisions=fewer_decisions,
                        fewer_memories=saved_memories, known_again=known,
                        fewer_tokens=s["tokens"] - n["tokens"])
