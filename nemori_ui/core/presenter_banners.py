"""What a presenter's banner says at the moments worth stopping on: statements a prediction
already held, so they were not stored ("predicted, not stored"), and memories a window
contradicted (a conflict). Decided here from the stored run, so the Live page and the demo
never disagree with the Prediction error and Knowledge pages about which moment is which.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from .live_view import EpisodeStory
from .tuning.demo import SkippedFact
from .views.knowledge import decision_table
from .views.run_data import RunData

QUOTE = 140      # a banner line quotes at most this many characters of a statement
TOLD = 90        # ... and of a message, where the demo's banner quotes both tellings


BANNER_LINES = 3  # lines a banner shows: more would push the decisions below it off the screen


class Banner(BaseModel):
    kind: Literal["predicted", "conflict"]
    title: str          # short, read from across a room
    note: str           # what the moment means, in a sentence
    lines: list[str]

    def lines_to_show(self, most: int = BANNER_LINES) -> list[str]:
        """The first `most` lines, and how many more there are, where there are more: a
        banner stays short enough for the window's decisions to stay in sight beneath it."""
        if len(self.lines) <= most:
            return list(self.lines)
        rest = len(self.lines) - (most - 1)
        where = "Prediction error" if self.kind == "predicted" else "Knowledge"
        return self.lines[:most - 1] + [f"… and {rest} more: the {where} page lists every one"]


def _quote(text: str, most: int = QUOTE) -> str:
    text = " ".join((text or "").split())
    return f"“{text[:most]}{'…' if len(text) > most else ''}”"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _conflict_line(data: RunData, r) -> str:
    old = [t.strip() for t in str(r.targets or "").split(",") if t.strip()]
    replaced = "; ".join(f"{t} {_quote(data.memory_text(t))}" for t in old)
    return f"{r.result_id} {_quote(r.insight)}" + (f" replaces {replaced}" if replaced else "")


def _told_where(data: RunData, message_id: str | None) -> str:
    m = data.message_by_id.get(message_id or "")
    return f"session {m.session} ({m.id})" if m else "an earlier session"


def window_banners(data: RunData, window: int, story: list[EpisodeStory]) -> list[Banner]:
    """The banners of one processed window (1-based), from its story (`window_story`):
    one for the statements a prediction from earlier episodes held, each with where it was
    first told and where again, one for the memories it contradicted; none for a window
    that did neither. What an episode only carried over from its own earlier part is no
    prediction and has no banner."""
    held, conflicts = [], []
    for s in story:
        comp = s.comparison
        for row in comp.rows if comp else []:
            for c in row.covered:
                if c.kind != "predicted":
                    continue
                held.append(f"{row.speaker}: {_quote(c.text)}, said in "
                            f"{_told_where(data, c.learnt_from)}, again in "
                            f"{_told_where(data, c.message_id)}"
                            + (f" (similarity {c.score:.2f})" if c.score is not None else ""))
        conflicts += [_conflict_line(data, r) for r in s.decisions.itertuples()
                      if r.action == "conflict"]
    banners = []
    if held:
        banners.append(Banner(
            kind="predicted", title=f"Window {window}: predicted, not stored",
            note=f"{_plural(len(held), 'fact', 'facts')} told again: the memory predicted "
                 f"{'it' if len(held) == 1 else 'them'} from what it learnt the first time, "
                 f"so {'it was' if len(held) == 1 else 'they were'} not stored again.",
            lines=held))
    if conflicts:
        banners.append(Banner(
            kind="conflict", title=f"Window {window}: conflict",
            note=f"What was just said contradicts "
                 f"{_plural(len(conflicts), 'memory', 'memories')}: the newer fact replaces "
                 "the older.", lines=conflicts))
    return banners


def _skipped_lines(fact: SkippedFact) -> list[str]:
    """Where the fact was told, where again, and what each memory did with it: three lines,
    all that a banner shows."""
    if not fact.first_message_id:
        # inferred from Nemori-s (a model run): no message of its own to point at
        return [_quote(fact.text) + " · " + fact.episode_id,
                "Nemori-s stored it; Nemori's prediction already held it."]
    score = f" (similarity {fact.score:.2f})" if fact.score is not None else ""
    if fact.predicted_by and fact.predicted_by.strip() != fact.text.strip():
        held = f"Nemori's memory {_quote(fact.predicted_by, TOLD)} held it{score}"
    else:
        held = f"Nemori's memory said it in the very same words{score}"
    return [f"Said in session {fact.first_session} ({fact.first_message_id}): "
            f"{_quote(fact.first_said, TOLD)}",
            f"Again in session {fact.again_session} ({fact.message_id}): "
            f"{_quote(fact.again_said, TOLD)}",
            held + (f"; Nemori-s, which does not predict: {fact.nemori_s}." if fact.nemori_s
                    else ".")]


SKIPPED_NOTE = "Told again, and not stored: Nemori predicted it from what it learnt the first time."


def skipped_banner(skipped: list[SkippedFact], index: int) -> Banner | None:
    """The demo's banner for its `index`-th fact that Nemori skipped because it predicted it
    (of `prediction_demo`'s `skipped_as_predicted`); None when there is none."""
    if not skipped:
        return None
    index = index % len(skipped)
    return Banner(kind="predicted",
                  title=f"Predicted, not stored ({index + 1} of {len(skipped)})",
                  note=SKIPPED_NOTE, lines=_skipped_lines(skipped[index]))


def demo_banners(data: RunData, skipped: list[SkippedFact]) -> list[Banner]:
    """The demo's moments in the transcript's order, one banner each: every fact Nemori
    skipped because it predicted it, and every memory Nemori's run saw contradicted, each
    kind counted on its own (the predicted ones are the headline's number). `data`: Nemori's
    run."""
    conflicts = decision_table(data, ["conflict"])
    moments = sorted([(str(fact.message_id or fact.episode_id or ""), 0, fact)
                      for fact in skipped]
                     + [(_first_message(data, r), 1, r) for r in conflicts.itertuples()],
                     key=lambda m: (len(m[0]), m[0], m[1]))
    out, seen = [], {0: 0, 1: 0}
    for _, kind, item in moments:
        seen[kind] += 1
        if kind == 0:
            out.append(Banner(kind="predicted",
                              title=f"Predicted, not stored ({seen[0]} of {len(skipped)})",
                              note=SKIPPED_NOTE, lines=_skipped_lines(item)))
        else:
            out.append(Banner(kind="conflict",
                              title=f"Conflict ({seen[1]} of {len(conflicts)})",
                              note=f"In {item.episode}, what was said contradicts a memory: "
                                   "the newer fact replaces the older.",
                              lines=[_conflict_line(data, item)]))
    return out


def _first_message(data: RunData, row) -> str:
    """Where a conflict was said: the first message of its episode."""
    episode = data.episode_by_id.get(str(row.episode))
    return episode.message_ids[0] if episode and episode.message_ids else str(row.episode)
