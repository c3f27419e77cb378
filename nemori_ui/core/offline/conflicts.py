"""When a new statement means a stored one no longer holds: a comparison of parts, not a guess.

Each statement is read into parts (`parts.py`). A conflict needs the same who and one of:

- a change of a lasting attribute the old statement held, to another value ("moved to York"
  against "lives in Leeds", not against "lives in York");
- the same value negated ("is not vegan anymore" against "is vegan", not "doesn't work
  weekends" against "works at the library");
- another named value of an attribute one holds once at a time (where one lives, whom one is
  married to, where one works), both said as current states;
- a plan of the same event moved to another date or time;

or one of the changes a statement spells out itself (`spelt_out.py`), whoever it names.

Past events accumulate (two trips are two trips) and never conflict. Precision first: anything
else is no conflict, and a conflict replaces only the one memory it contradicts (the caller's
choice: the nearest that conflicts).
"""

from __future__ import annotations

import re

from .facts import change_cue, key_words, proper_names, stem
from .parts import GENERIC, Parts, parts, who
from .routines import NEGATED_BEFORE, ended_names, ended_scope, routine_change
from .spelt_out import explicit, rechosen
from .text import DURATION_UNITS, MONTHS, STOPWORDS, body, quantities, words
from .when import clocks, dates

# attributes a person holds one value of at a time
SINGLE = frozenset({"residence", "relationship", "work"})
# a change that ends what the old statement held, rather than giving it another value
_CEASE = frozenset(["sold", "quit", "stopped", "gave up", "no longer", "anymore", "any more",
                    "cancelled", "canceled", "broke up", "divorced", "retired"])
_RESCHEDULE = re.compile(r"\b(moved|pushed|postponed|rescheduled|brought forward|delayed|"
                         r"instead|not|no longer|now)\b", re.I)


def conflict(new: str, old: str) -> str | None:
    """Why `new` means `old` no longer holds, or None when both can stand."""
    a, b = parts(new), parts(old)
    if not a.who:
        return None
    if b.kind == "event":
        return rechosen(a, b)     # past events accumulate; a choice made holds until remade
    if a.who == b.who:
        why = _state_conflict(a, b, change_cue(new) or "") or routine_change(a, b)
        if why:
            return f"{a.who}: {why}"
    why = explicit(a, b)
    if why:
        return why
    if a.times and b.times and not _moments(a.times) & _moments(b.times) and b.kind == "plan" \
            and (a.kind in ("plan", "change") or _RESCHEDULE.search(body(new))):
        same = (a.value & b.value) - {stem(t) for t in a.times | b.times}
        if len(same) >= 2 or (same and _same_thing(a.who, b.who)):
            return f"{', '.join(sorted(same))} moved from {', '.join(sorted(b.times))} to " \
                   f"{', '.join(sorted(a.times))}"
    return None


def _moments(times) -> set[tuple]:
    """The times a statement gives, read so that two ways of saying one are one ("7pm" and
    "7 pm", "19:00"); a time read as neither a clock time nor a date stays as said."""
    out: set[tuple] = set()
    for t in times:
        read = {("clock", c) for c in clocks(t)} | {("date", d) for d in dates(t)}
        out |= read or {("said", t.lower())}
    return out


def _same_thing(a: str, b: str) -> bool:
    """Two statements' subjects are one: the same, or one thing with and without its owner
    ("ben's housewarming" and "the housewarming"; not Ben's and Iris's)."""
    if a == b:
        return True
    if "'s " in a and "'s " in b:
        return False
    def thing(who_: str) -> str:
        return " ".join(stem(w) for w in who_.split("'s ")[-1].split())
    return bool(a) and bool(b) and thing(a) == thing(b)


def _state_conflict(a: Parts, b: Parts, cue: str) -> str | None:
    shared_attr = a.attributes & b.attributes
    said = body(a.text).lower()
    ended = cue in _CEASE and not NEGATED_BEFORE.search(said[:max(0, said.find(cue))])
    # "drives a blue Fiat now" is a state said as new: what "sold" can end
    holds = b.kind != "change" or change_cue(b.text) == "now"
    if a.kind == "change" and ended and holds and not b.negated:
        # what the cue ends is in its own clause: "quit the ceramics class, the night shifts
        # made Thursdays impossible" ends the class, not the night shifts
        at = said.find(cue)
        scope = ended_scope(body(a.text), at, at + len(cue), cue in ("anymore", "any more"))
        names = a.names & b.names & ended_names(scope)
        keys = a.keys & b.keys & key_words(scope)
        if names or (shared_attr and keys):
            return f"{', '.join(sorted(names or keys))} ended ('{cue}')"
    if a.kind == "change" and shared_attr and b.names and a.names - b.names \
            and (not a.names & b.names or shared_attr & SINGLE):
        # moved to another place (again), or took a post of the one attribute held at a time
        # somewhere new ("head pastry chef at the new Lisbon shop")
        return f"{', '.join(sorted(shared_attr))} changed " \
               f"({', '.join(sorted(b.names))} → {', '.join(sorted(a.names))})"
    single = shared_attr & SINGLE
    if a.kind == "change" and single and b.kind == "state" and not (a.names & b.names) \
            and len(a.value - b.value) >= 2 and len(b.value - a.value) >= 2:
        # "now works for a village pharmacy" against "works at a hospital in the centre"
        return f"{', '.join(sorted(single))} changed ('{cue}')"
    held = b.keys - GENERIC
    if a.negated != b.negated and held and len(held & a.keys) * 2 >= len(held) \
            and a.kind != "event" and (shared_attr or held <= a.keys):
        return f"'{' '.join(sorted(held & a.keys))}' negated"
    counts_a, counts_b = quantities(a.text), quantities(b.text)
    clash = sorted(k for k in counts_a.keys() & counts_b.keys() if counts_a[k] != counts_b[k]
                   and k not in DURATION_UNITS and k not in MONTHS and k[:1].isalpha())
    if clash and a.kind in ("state", "change") and b.kind == "state":
        # "has three cats" against "has two cats": a count held now (how long something has
        # lasted is no count: "had her two years" says nothing against "together three years")
        return "; ".join(f"{counts_a[k]} {k}, not {counts_b[k]}" for k in clash)
    if single and a.kind in ("state", "change") and b.kind == "state" and a.names and b.names \
            and not a.names & b.names and not a.negated and not b.negated:
        return f"{', '.join(sorted(single))} is {', '.join(sorted(a.names))}, " \
               f"not {', '.join(sorted(b.names))}"
    return None


def same_party(a: str, b: str) -> bool:
    """Both statements speak of the same person or named thing: the one either opens with
    ("Maya's long run" and "Maya runs"), or a name both hold ("the apartment in Alfama").
    Two that open with different names are about different people, whoever else they name
    ("Ben switched to soy milk" is nothing of "Iris drinks oat milk if Ben makes coffee")."""
    def opener(s: str) -> set[str]:
        return {stem(w) for w in words(body(s))[:1] if w[:1].isupper()
                and w.lower() not in STOPWORDS}
    first_a, first_b = opener(a), opener(b)
    if first_a and first_b:
        return bool(first_a & first_b)
    return bool(proper_names(body(a)) & proper_names(body(b)))


def same_subject(a: str, b: str) -> bool:
    """Both statements are about the same person or thing."""
    wa = who(a)
    return bool(wa) and wa == who(b)
