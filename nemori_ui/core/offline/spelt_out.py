"""Changes a new statement spells out itself, which need no shared attribute to be seen.

- a value taken back ("Launch is April 5, not March 15" against the launch on March 15; a
  numbered thing, "year 6 instead of year 4", only by the one who holds it);
- a plan moved to another day sharing two of its words or its time window ("the flood
  barrier deadline got pushed to 15 March");
- the same arrangement at another clock time from some day on ("Standup is at ten from next
  Monday on" against "Daily standup is at 9:30");
- the one event named the same way on another day ("Marta's wedding is on 21 September"
  against "The wedding is on 14 June"): an event of one's own happens on one day;
- a plan given other days "instead" ("Madrid is April 22 to 24 instead" against a trip to
  Madrid on April 15);
- a new value of something of someone's ("Kai's new number is ..." against "Kai's number
  is ...", "Ivy's boss is Marta now" against "Ivy's boss is Helen");
- another choice for the same purpose ("picked RabbitMQ for the payment events" against
  "agreed to go with Kafka for the payment events"): a decision taken again replaces the old.
- a switch to the same named plan or model with another number, by the one who holds it
  ("will switch over to Home 900" against "is on Home 300, the 300 Mbps plan").

Their cue and values carry them, so the caller checks them against memories less close in
meaning than other conflicts (`OfflineThresholds.explicit_change_sim`).
"""

from __future__ import annotations

import re

from .facts import stem
from .parts import GENERIC, Parts, parts
from .routines import switched_plan, weekday
from .text import MONTHS, STOPWORDS, body, words
from .when import clocks, dates

# "not March 15", "instead of Jira", "rather than at 9:30": the value the speaker takes back
_TAKEN_BACK = re.compile(r"\b(?:not|instead of|rather than|no longer)\s+(?:on |at |in |with )?(?:the )?"
                         r"(\d{1,2}(?:st|nd|rd|th)?(?: of)? [A-Z][a-z]+|[A-Z][a-z]+ \d{1,2}\b|"
                         r"\d{1,2}(?::\d{2})?\s*(?:am|pm)?|[A-Z][\w-]+(?: [A-Z][\w-]+)*|"
                         r"[a-z]+ \d{1,3}\b|"
                         r"(?i:" + "|".join(sorted(MONTHS)) + r"))\b")
# moved to another day: "got pushed to 15 March", "I've moved your visit to Saturday 16 March"
_MOVED_TO = re.compile(r"\b(?:moved|pushed(?: back)?|postponed|rescheduled|brought forward|"
                       r"delayed|shifted)\b(?:\s+[\w']+){0,4}?\s+(?:to|until|till)\b", re.I)
# from when a new arrangement holds: "from next Monday on", "starting May", "as of today"
_FROM_ON = re.compile(r"\bfrom\b[^,.;]{1,30}?\bon(?:wards)?\b|\b(?:starting|as of|from now on|"
                      r"going forward|now|instead)\b", re.I)
# an arrangement's head noun before its time: "Daily standup is at", "The rota starts at"
_ARRANGED = re.compile(r"^(?:the |our |my |a |an |[A-Z][a-z]+(?:'s|’s) )?(?:[A-Za-z]+ ){0,2}?([A-Za-z]+) (?:is|are|"
                       r"starts|start|begins|begin|opens|open|closes|close|finishes|ends|"
                       r"will be|moves to|moved to) (?:now )?(?:at|from)\b")


def explicit_change(new: str, old: str) -> str | None:
    """Why `new` means `old` no longer holds, by the rules that need the change spelt out."""
    return explicit(parts(new), parts(old))


def explicit(a: Parts, b: Parts) -> str | None:
    return _corrected(a, b) or _moved(a, b) or _retimed(a, b) or _redated(a, b) \
        or _instead(a, b) or rechosen(a, b) or _renewed(a, b) or weekday(a, b) \
        or (switched_plan(a, b) if a.who and a.who == b.who else None)


def _shared(a: Parts, b: Parts) -> set[str]:
    """The words both statements say of what they are about, their subjects included, besides
    names, numbers and dates: a word counts when one of them writes it in lower case, so
    "Launch is ..." shares "launch" with "the launch deadline", and "Maya ..." shares nothing
    with "Maya ..."."""
    def said(p: Parts) -> tuple[set[str], set[str]]:
        found = [w for w in words(body(p.text)) if w.lower() not in STOPWORDS and len(w) > 2
                 and w.lower() not in MONTHS and not w[:1].isdigit()]
        lower = {stem(w) for w in found if w[:1].islower()} - GENERIC
        first = {stem(w) for w in found[:1] if w[:1].isupper()} - GENERIC
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
        # a numbered thing ("year 4", "room 12") is anyone's: the same person must hold it
        own = value[:1].isupper() or when or hour or _opener(a) == _opener(b)
        if held and _shared(a, b) and own:
            return f"'{value}' taken back ({', '.join(sorted(_shared(a, b)))})"
    return None


def _opener(p: Parts) -> str:
    """Whose statement it is: the name it opens with, without a possessive."""
    first = (words(body(p.text))[:1] or [""])[0]
    return stem(first.removesuffix("'s").removesuffix("’s")) if first[:1].isupper() else ""


_OWNER = re.compile(r"^[A-Z][a-z]+(?:'s|’s) ")


def _moved(a: Parts, b: Parts) -> str | None:
    """The same plan moved to another day: both give a day, none in common, and they share
    two words of what is planned, the same time window, or one word and whose it is ("Sara's
    wedding got moved to 2 August" against "Sara's wedding is on 14 June")."""
    new_days, old_days = dates(a.text), dates(b.text)
    if b.kind == "event" or not new_days or not old_days or new_days & old_days \
            or not _MOVED_TO.search(body(a.text)):
        return None
    shared, window = _shared(a, b), clocks(a.text) & clocks(b.text)
    owner = _OWNER.match(body(a.text))
    same_owner = bool(owner) and body(b.text).startswith(owner.group(0))
    if len(shared) >= 2 or len(window) >= 2 or (shared and (window or same_owner)):
        what = ", ".join(sorted(shared)) or "the " + "-".join(sorted(window)) + " window"
        return f"{what} moved to another day"
    return None


def _retimed(a: Parts, b: Parts) -> str | None:
    """The same arrangement at another clock time from some day on."""
    new_head, old_head = _ARRANGED.match(body(a.text)), _ARRANGED.match(body(b.text))
    if not new_head or not old_head or not _FROM_ON.search(body(a.text)[new_head.end():]):
        return None

    def named(m: re.Match, text: str) -> set[str]:     # "yoga class" of "Ana's yoga class is"
        return {stem(w) for w in words(text[:m.end(1)]) if w[:1].islower() or w is words(
            text[:m.end(1)])[0]} - {stem(w) for w in STOPWORDS}
    # the same head ("standup"), or one's head named in the other ("Yoga" / "yoga class")
    if stem(new_head.group(1)) not in named(old_head, body(b.text)) and \
            stem(old_head.group(1)) not in named(new_head, body(a.text)):
        return None
    # the time the head is given, not others the statement goes on to name ("the 9:30 slot")
    new_time = clocks(body(a.text)[new_head.start(1):].split(",")[0])
    old_time = clocks(body(b.text)[old_head.start(1):].split(",")[0])
    if new_time and old_time and not new_time & old_time:
        return f"{new_head.group(1).lower()} now at {', '.join(sorted(new_time))}, " \
               f"not {', '.join(sorted(old_time))}"
    return None


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


# a choice and what it is for: "picked RabbitMQ for the payment events", "went with Kafka for"
_CHOSE = re.compile(r"\b(?:picked|chose|chosen|choose|went with|go with|going with|decided on|"
                    r"settled on|opted for|switched to|switching to|agreed on)\s+(?:the\s+)?"
                    r"([A-Z][\w.+-]*(?:\s[A-Z][\w.+-]*)?)\s+(?:for|as)\s+([^,.;]+)")


def rechosen(a: Parts, b: Parts) -> str | None:
    """Another named choice for what the old one was chosen for (two of its words)."""
    new, old = _CHOSE.search(body(a.text)), _CHOSE.search(body(b.text))
    if not new or not old or new.group(1).lower() == old.group(1).lower():
        return None
    purpose = {stem(w) for w in words(new.group(2)) if w.lower() not in STOPWORDS} & \
        {stem(w) for w in words(old.group(2)) if w.lower() not in STOPWORDS}
    if len(purpose) < 2:
        return None
    return f"{new.group(1)} chosen for {' '.join(sorted(purpose))}, not {old.group(1)}"


# "Kai's new number is ...", "Nico's band is called The Owls now"
_OWNED_VALUE = re.compile(r"^([A-Z][a-z]+(?:'s|’s)) (new )?((?:[a-z]+ )?[a-z]+) (?:is|are) (?:now )?"
                          r"(?:called |named )?(.+?)(?:,? now)?\.?$")


def _renewed(a: Parts, b: Parts) -> str | None:
    """Someone's one thing given a new value, said as new ("new", "now")."""
    new, old = _OWNED_VALUE.match(body(a.text)), _OWNED_VALUE.match(body(b.text))
    if not new or not old or old.group(2) or new.group(1) != old.group(1) \
            or new.group(3) != old.group(3) or new.group(4).lower() == old.group(4).lower():
        return None
    if not new.group(2) and not re.search(r"\bnow\b", body(a.text)):
        return None
    return f"{new.group(1)} {new.group(3)} is {new.group(4)} now, not {old.group(4)}"
