"""When a new statement means a stored one no longer holds: a comparison of parts, not a guess.

Each statement is read into parts: who it is about (the name it opens with, or "Nora's sister"
when it opens with someone's relative), the lasting attributes it speaks of (where someone
lives, works, what they eat...), what fills them (the names and key words), whether its main
clause is negated, and whether it is a state, a plan, a past event or a change ("moved to",
"sold", "no longer"). A conflict needs the same who and one of:

- a change of a lasting attribute the old statement held, to another value ("moved to York"
  against "lives in Leeds", not against "lives in York");
- the same value negated ("is not vegan anymore" against "is vegan", not "doesn't work
  weekends" against "works at the library");
- another named value of an attribute one holds once at a time (where one lives, whom one is
  married to, where one works), both said as current states;
- a plan of the same event moved to another date or time;
- a value the new statement says is no longer right ("Launch is April 5, not March 15"
  against "the launch is on March 15");
- the same arrangement at another clock time from some day on ("Standup is at ten from next
  Monday on" against "Daily standup is at 9:30");
- the one event named the same way on another day ("Marta's wedding is on 21 September"
  against "The wedding is on 14 June"): an event of one's own happens on one day.

Past events accumulate (two trips are two trips) and never conflict. Precision first: anything
else is no conflict, and a conflict replaces only the one memory it contradicts (the caller's
choice: the nearest that conflicts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .facts import (FAMILIES, PLAN, change_cue, families, key_words, negated, proper_names,
                    stem)
from .resolve import PAST_FORMS
from .text import MONTHS, STOPWORDS, body, quantities, words
from .when import clocks, dates

# attributes a person holds one value of at a time
SINGLE = frozenset({"residence", "relationship", "work"})
_FAMILY_WORDS = frozenset(stem(w) for members in FAMILIES.values() for w in members.split())
_TIME = re.compile(r"\b(\d{1,2}(?::\d{2})?\s*(?:am|pm)|\d{1,2}:\d{2}|\d{1,2} (?:" +
                   "|".join(m.capitalize() for m in MONTHS) + r")(?: \d{4})?|(?:" +
                   "|".join(m.capitalize() for m in MONTHS) + r") \d{1,2})\b")
# verbs of a lasting attribute that say nothing of its value ("works" in "works at the library")
_GENERIC = frozenset(stem(w) for w in "work works live lives job eat eats drink drinks drive "
                     "drives".split())
# a change that ends what the old statement held, rather than giving it another value
_CEASE = frozenset("sold quit stopped gave up no longer anymore any more cancelled canceled "
                   "broke up divorced retired".split(" "))
_RESCHEDULE = re.compile(r"\b(moved|pushed|postponed|rescheduled|brought forward|delayed|"
                         r"instead|not|no longer|now)\b", re.I)
# "is playing a concert on 16 March": a dated progressive is an arrangement
_PROGRESSIVE = re.compile(r"\b(?:is|are|'re|'s|am|'m) [a-z]+ing\b")


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


def kind(statement: str) -> str:
    said = body(statement)
    if change_cue(statement):
        return "change"
    if PLAN.search(said) or (_TIME.search(said) and _PROGRESSIVE.search(said)):
        return "plan"
    past = any(w.lower() in PAST_FORMS or (w.lower().endswith("ed") and not
                                          w.lower().endswith("eed")) for w in words(said)[1:4])
    return "event" if past else "state"


def parts(statement: str) -> Parts:
    person = who(statement)
    skip = set(person.split("'s ")) if person else set()
    return Parts(text=statement, who=person, attributes=frozenset(families(statement, change_cue(statement))),
                 names=frozenset(proper_names(body(statement), skip)),
                 keys=frozenset(key_words(statement)), negated=negated(statement),
                 kind=kind(statement), times=frozenset(_TIME.findall(body(statement))))


def conflict(new: str, old: str) -> str | None:
    """Why `new` means `old` no longer holds, or None when both can stand."""
    a, b = parts(new), parts(old)
    if b.kind == "event" or not a.who:
        return None
    if a.who == b.who:
        why = _state_conflict(a, b, change_cue(new) or "")
        if why:
            return f"{a.who}: {why}"
    why = _explicit(a, b)
    if why:
        return why
    if a.times and b.times and not a.times & b.times and b.kind == "plan" \
            and (a.kind in ("plan", "change") or _RESCHEDULE.search(body(new))):
        same = (a.value & b.value) - {stem(t) for t in a.times | b.times}
        if len(same) >= 2 or (same and a.who == b.who):
            return f"{', '.join(sorted(same))} moved from {', '.join(sorted(b.times))} to " \
                   f"{', '.join(sorted(a.times))}"
    return None


# "not March 15", "instead of Jira", "rather than at 9:30": the value the speaker takes back
_TAKEN_BACK = re.compile(r"\b(?:not|instead of|rather than|no longer)\s+(?:on |at |in |with )?(?:the )?"
                         r"(\d{1,2}(?:st|nd|rd|th)?(?: of)? [A-Z][a-z]+|[A-Z][a-z]+ \d{1,2}\b|"
                         r"\d{1,2}(?::\d{2})?\s*(?:am|pm)?|[A-Z][\w-]+(?: [A-Z][\w-]+)*|"
                         r"(?i:" + "|".join(sorted(MONTHS)) + r"))\b")
# moved to another day: "got pushed to 15 March", "I've moved your visit to Saturday 16 March"
_MOVED_TO = re.compile(r"\b(?:moved|pushed(?: back)?|postponed|rescheduled|brought forward|"
                       r"delayed|shifted)\b(?:\s+[\w']+){0,4}?\s+(?:to|until|till)\b", re.I)
# from when a new arrangement holds: "from next Monday on", "starting May", "as of today"
_FROM_ON = re.compile(r"\bfrom\b[^,.;]{1,30}?\bon(?:wards)?\b|\b(?:starting|as of|from now on|"
                      r"going forward|now|instead)\b", re.I)
# an arrangement's head noun before its time: "Daily standup is at", "The rota starts at"
_ARRANGED = re.compile(r"^(?:the |our |my |a |an )?(?:[A-Za-z]+ ){0,2}?([A-Za-z]+) (?:is|are|"
                       r"starts|start|begins|begin|will be|moves to|moved to) (?:now )?(?:at|from)\b")


def explicit_change(new: str, old: str) -> str | None:
    """Why `new` means `old` no longer holds, by the rules that need the change spelt out."""
    return _explicit(parts(new), parts(old))


def _explicit(a: Parts, b: Parts) -> str | None:
    return _corrected(a, b) or _moved(a, b) or _retimed(a, b) or _redated(a, b) \
        or _instead(a, b)


def _shared(a: Parts, b: Parts) -> set[str]:
    """The words both statements say of what they are about, their subjects included, besides
    names, numbers and dates: a word counts when one of them writes it in lower case, so
    "Launch is ..." shares "launch" with "the launch deadline", and "Maya ..." shares nothing
    with "Maya ..."."""
    def said(p: Parts) -> tuple[set[str], set[str]]:
        found = [w for w in words(body(p.text)) if w.lower() not in STOPWORDS and len(w) > 2
                 and w.lower() not in MONTHS and not w[:1].isdigit()]
        lower = {stem(w) for w in found if w[:1].islower()} - _GENERIC
        first = {stem(w) for w in found[:1] if w[:1].isupper()} - _GENERIC
        return lower, first
    (low_a, first_a), (low_b, first_b) = said(a), said(b)
    return (low_a & low_b) | (first_a & low_b) | (low_a & first_b)


def _corrected(a: Parts, b: Parts) -> str | None:
    """The new statement takes back a value the old one gives, about the same thing."""
    said = body(a.text)
    for found in _TAKEN_BACK.finditer(said):
        value = found.group(1)
        if said[found.end():found.end() + 2] in ("'s", "’s"):
            continue     # "not on Dev's router" takes back the router, not Dev
        when, hour = dates(value), clocks(value)
        held = (when and when <= dates(b.text)) or (hour and hour <= clocks(b.text)) or \
            (not when and not hour and re.search(rf"\b{re.escape(value)}\b", body(b.text),
                                                 re.I if value.lower() in MONTHS else 0))
        if held and _shared(a, b):
            return f"'{value}' taken back ({', '.join(sorted(_shared(a, b)))})"
    return None


def _moved(a: Parts, b: Parts) -> str | None:
    """The same plan moved to another day: both give a day, none in common, and they share
    two words of what is planned or the same time window."""
    new_days, old_days = dates(a.text), dates(b.text)
    if b.kind == "event" or not new_days or not old_days or new_days & old_days \
            or not _MOVED_TO.search(body(a.text)):
        return None
    shared, window = _shared(a, b), clocks(a.text) & clocks(b.text)
    if len(shared) >= 2 or len(window) >= 2 or (shared and window):
        what = ", ".join(sorted(shared)) or "the " + "-".join(sorted(window)) + " window"
        return f"{what} moved to another day"
    return None


def _retimed(a: Parts, b: Parts) -> str | None:
    """The same arrangement at another clock time from some day on."""
    new_head, old_head = _ARRANGED.match(body(a.text)), _ARRANGED.match(body(b.text))
    if not new_head or not old_head or stem(new_head.group(1)) != stem(old_head.group(1)) \
            or not _FROM_ON.search(body(a.text)[new_head.end():]):
        return None
    # the time the head is given, not others the statement goes on to name ("the 9:30 slot")
    new_time = clocks(body(a.text)[new_head.start(1):].split(",")[0])
    old_time = clocks(body(b.text)[old_head.start(1):].split(",")[0])
    if new_time and old_time and not new_time & old_time:
        return f"{new_head.group(1).lower()} now at {', '.join(sorted(new_time))}, " \
               f"not {', '.join(sorted(old_time))}"
    return None


def _state_conflict(a: Parts, b: Parts, cue: str) -> str | None:
    shared_attr = a.attributes & b.attributes
    if a.kind == "change" and cue in _CEASE and b.kind != "change" and not b.negated \
            and (a.names & b.names or (shared_attr and a.keys & b.keys)):
        return f"{', '.join(sorted(a.names & b.names or a.keys & b.keys))} ended ('{cue}')"
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
    held = b.keys - _GENERIC
    if a.negated != b.negated and held and len(held & a.keys) * 2 >= len(held) \
            and a.kind != "event" and (shared_attr or held <= a.keys):
        return f"'{' '.join(sorted(held & a.keys))}' negated"
    counts_a, counts_b = quantities(a.text), quantities(b.text)
    clash = sorted(k for k in counts_a.keys() & counts_b.keys() if counts_a[k] != counts_b[k]
                   and k != "year" and k not in MONTHS and k[:1].isalpha())
    if clash and a.kind == b.kind == "state":
        # "has three cats" against "has two cats": a count held now
        return "; ".join(f"{counts_a[k]} {k}, not {counts_b[k]}" for k in clash)
    if single and a.kind in ("state", "change") and b.kind == "state" and a.names and b.names \
            and not a.names & b.names and not a.negated and not b.negated:
        return f"{', '.join(sorted(single))} is {', '.join(sorted(a.names))}, " \
               f"not {', '.join(sorted(b.names))}"
    return None


def same_party(a: str, b: str) -> bool:
    """Both statements speak of the same person or named thing: the one either opens with
    ("Maya's long run" and "Maya runs"), or a name both hold ("the apartment in Alfama")."""
    def opener(s: str) -> set[str]:
        return {stem(w) for w in words(body(s))[:1] if w[:1].isupper()}
    return bool(opener(a) & opener(b)) or bool(proper_names(body(a)) & proper_names(body(b)))


def same_subject(a: str, b: str) -> bool:
    """Both statements are about the same person or thing."""
    wa = who(a)
    return bool(wa) and wa == who(b)


# the one event whose day is given: "The wedding is on", "Marta's wedding is now on"
_EVENT_ON = re.compile(r"^(?:[Tt]he |([A-Z][a-z]+)(?:'s|’s) )((?:[a-z]+ ){0,2}?[a-z]+) "
                       r"(?:is|will be) (?:now |still )?(?:on|set for|planned for)\b")


def _redated(a: Parts, b: Parts) -> str | None:
    """The same event (same words, the same owner or one left unsaid) on another day."""
    new_event, old_event = _EVENT_ON.match(body(a.text)), _EVENT_ON.match(body(b.text))
    if not new_event or not old_event or a.negated or b.negated \
            or new_event.group(2) != old_event.group(2):
        return None
    owners = {o for o in (new_event.group(1), old_event.group(1)) if o}
    new_days = dates(body(a.text)[new_event.end():].split(",")[0])
    old_days = dates(body(b.text)[old_event.end():].split(",")[0])
    if len(owners) > 1 or not new_days or not old_days or new_days & old_days:
        return None
    return f"the {new_event.group(2)} is on another day"


_INSTEAD = re.compile(r"\binstead\b(?! of)", re.I)


def _instead(a: Parts, b: Parts) -> str | None:
    """A plan given another day "instead": the place or thing the old plan named, on days
    it did not give ("Madrid is April 22 to 24 instead" against a trip to Madrid April 15)."""
    if b.kind != "plan" or not _INSTEAD.search(body(a.text)):
        return None
    new_days, old_days = dates(a.text), dates(b.text)
    named = (a.names | {a.who}) & b.names
    if not named or not new_days or not old_days or new_days & old_days:
        return None
    return f"{', '.join(sorted(named))} on another day instead"
