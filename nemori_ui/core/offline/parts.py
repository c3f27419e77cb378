"""A statement read into parts, so that whether two can both hold is a comparison.

Who it is about (the name it opens with, or "Nora's sister" when it opens with someone's
relative), the lasting attributes it speaks of (where someone lives, works, what they eat...),
what fills them (the names and key words), whether its main clause is negated, its clock times
and dates, and whether it is a state, a plan, a past event or a change ("moved to", "sold",
"no longer").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .facts import FAMILIES, PLAN, change_cue, families, key_words, negated, proper_names, stem
from .resolve import PAST_FORMS
from .text import MONTHS, body, words

_FAMILY_WORDS = frozenset(stem(w) for members in FAMILIES.values() for w in members.split())
_TIME = re.compile(r"\b(\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|\d{1,2} (?:" +
                   "|".join(m.capitalize() for m in MONTHS) + r")(?: \d{4})?|(?:" +
                   "|".join(m.capitalize() for m in MONTHS) + r") \d{1,2})\b")
# "is playing a concert on 16 March": a dated progressive is an arrangement
_PROGRESSIVE = re.compile(r"\b(?:is|are|'re|'s|am|'m) [a-z]+ing\b")

# verbs of a lasting attribute that say nothing of its value ("works" in "works at the library")
GENERIC = frozenset(stem(w) for w in "work works live lives job eat eats drink drinks drive "
                     "drives".split())


@dataclass(frozen=True)
class Parts:
    text: str
    who: str
    attributes: frozenset[str]
    names: frozenset[str]
    keys: frozenset[str]
    negated: bool
    kind: str            # "state", "plan", "event" or "change"
    times: frozenset[str]

    @property
    def value(self) -> frozenset[str]:
        """What fills the attribute: key words that are not the attribute's own words."""
        return frozenset(k for k in self.keys if k not in _FAMILY_WORDS)


def who(statement: str) -> str:
    """Who the statement is about: "nora", or "nora's sister" for a relative of Nora's."""
    said = words(body(statement))
    if not said:
        return ""
    if said[0].lower() in ("the", "a", "an", "this", "that", "these", "those") and len(said) > 2:
        # a thing: "the cathedral concert"; its words up to the verb name it
        head = [w for w in said[1:4] if w[:1].islower() and not w.endswith("ed")
                and w.lower() not in ("is", "was", "are", "were", "has", "will")]
        return " ".join(stem(w) for w in head[:2])
    first = said[0]
    if first.lower().endswith(("'s", "’s")) and len(said) > 1:
        owner = stem(first)
        # "Nora's sister Ana ..." is about Ana
        if len(said) > 2 and said[2][:1].isupper():
            return stem(said[2])
        return f"{owner}'s {said[1].lower()}"
    return stem(first) if first[:1].isupper() else ""


_PRESENT_BE = frozenset("is are am 's 're 'm".split())


def kind(statement: str) -> str:
    said = body(statement)
    if change_cue(statement):
        return "change"
    if PLAN.search(said) or (_TIME.search(said) and _PROGRESSIVE.search(said)):
        return "plan"
    said_words = words(said)
    # "is married", "are based": a participle after a present "be" says what holds now
    past = any((w.lower() in PAST_FORMS or (w.lower().endswith("ed") and not
                                            w.lower().endswith("eed")))
               and said_words[i - 1].lower() not in _PRESENT_BE
               for i, w in enumerate(said_words[1:4], start=1))
    return "event" if past else "state"


def parts(statement: str) -> Parts:
    person = who(statement)
    skip = set(person.split("'s ")) if person else set()
    return Parts(text=statement, who=person, attributes=frozenset(families(statement, change_cue(statement))),
                 names=frozenset(proper_names(body(statement), skip)),
                 keys=frozenset(key_words(statement)), negated=negated(statement),
                 kind=kind(statement), times=frozenset(_TIME.findall(body(statement))))
