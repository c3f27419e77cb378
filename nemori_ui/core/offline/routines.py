"""Changes of what one person does or takes part in, said the way people say them.

Each rule compares two statements about the same person (the caller checks the who):

- **ended**: "gave up Spanish", "pulled out of the Berlin marathon", "broke up" against what the
  old statement held as ongoing ("is learning Spanish", "is training for the Berlin marathon")
  or as a habit ("goes to the gym every morning"), sharing a name or a word of it; something
  merely owned ("rides his new bike") is not ended by "sold his old bike";
- **switched**: "switched to day shifts" against "works night shifts": the same thing with
  another word before it; "will switch over to Home 900" against "is on Home 300": the same
  named plan or model with another number;
- **commute**: "cycles to work now" against "takes the bus to work": another way of getting to
  the same place, said as a change;
- **weekday**: "runs on Thursdays now" against "runs on Tuesdays": the same habit on another
  day of the week, said as a change;
- **new job**: "started a new job at Meta" against "works at Google": a post taken at another
  named employer;
- **lost job**: "was laid off", "lost her job", "handed in his notice" against "works at the
  bakery" (from the same employer, where the new statement names one);
- **single again** against "is married to Rosa";
- **diet**: "pescatarian now" or "eats fish again" against "is vegetarian".

Precision first: each needs the change said ("now", "switched", "gave up" ...), not inferred.
"""

from __future__ import annotations

import re

from .facts import stem
from .parts import GENERIC, Parts
from .resolve import ADVERBS
from .text import STOPWORDS, WEEKDAYS, body, words

_ENDED = re.compile(r"\b(quit|quitting|stopped|gave up|given up|giving up|no longer|pulled out of|"
                    r"dropped out of|dropped|broke up|split up|left|cancel(?:l)?ed|retired from|"
                    r"resigned from|moved out of|anymore|any more)\b(?! by\b)", re.I)
# what holds for a while: "is learning", "is training for", or a habit
_ONGOING = re.compile(r"\b(?:is|are|has been|have been) [a-z]+ing\b|\b(?:every|each|usually|"
                      r"always|daily|weekly|regularly|most days|on [A-Z][a-z]+days)\b")
_SAID_NOW = re.compile(r"\b(?:now|these days|instead|switched|started|starting|from now on|"
                       r"no longer|moved to)\b", re.I)
# a post taken somewhere new: "started a new job at Meta", "got a job as a nurse at St Mary's"
# an employer: a name ("Meta", "St Mary's") or a kind of place and where ("a hotel in Lisbon")
_EMPLOYER = r"((?:[A-Z][\w'’&-]*\s?)+|(?:a|an|the) [a-z]+(?: (?!in\b)[a-z]+)?(?: in [A-Z][a-z]+)?)"
_NEW_JOB = re.compile(r"\b(?:started|starts|starting|got|took|landed|accepted) (?:a |an |her |his "
                      r"|their )?(?:new )?(?:job|position|post|role)\b[^.;]*?\b(?:at|with|for) "
                      + _EMPLOYER + r"|\b(?:joined|now works (?:at|for)|hired by) "
                      r"((?:[A-Z][\w'’&-]*\s?)+)")
_WORKS_AT = re.compile(r"\b(?:works?|working|is employed|has a job|teaches|is a [a-z]+) "
                       r"(?:[a-z]+ ){0,4}?(?:at|for) " + _EMPLOYER)
# a job that ended, said of the one who held it ("fired up" is no dismissal)
_LOST_JOB = re.compile(r"\b(?:was|got|been|were|'s|'ve been) (?:laid off|fired(?! up)|let go|"
                       r"made redundant)\b|\blost (?:my|his|her|their) job\b|"
                       r"\bhanded in (?:my|his|her|their) notice\b", re.I)
_PARTNERED = re.compile(r"\b(?:married to|is dating|engaged to|'s dating|boyfriend|girlfriend|"
                        r"husband|wife)\b", re.I)
_SINGLE = re.compile(r"\b(?:is|'s) single(?: again| now)?\b|\bsplit up\b|\bseparated\b", re.I)
_SWITCHED = re.compile(r"\b(?:switch(?:ed|es|ing)?|chang(?:ed|es|ing)|swap(?:ped|s|ping)?|"
                       r"upgrad(?:ed|es|ing|e)|downgrad(?:ed|es|ing|e)|moved) (?:over )?to "
                       r"(?:the |a |an )?([a-z]+) ([a-z]+|\d+)", re.I)
# a plan or model named with a number: "Home 900", "iPhone 15", "Plan B" is a name, not this
_NUMBERED = re.compile(r"\b([a-z]?[A-Z][A-Za-z]+) (\d+)\b")
_PLACES = r"(?:to|into) (?:work|the office|school|uni|college|campus|the studio)"
_MODES = {"bus": "bus", "buses": "bus", "train": "train", "trains": "train", "tram": "tram",
          "tube": "tube", "metro": "metro", "ferry": "ferry", "drive": "car", "drives": "car",
          "driving": "car", "car": "car", "cycle": "bike", "cycles": "bike", "cycling": "bike",
          "bike": "bike", "bikes": "bike", "walk": "foot", "walks": "foot", "walking": "foot",
          "scooter": "scooter", "run": "foot", "runs": "foot", "taxi": "taxi", "carpool": "car"}
_ON_DAYS = re.compile(r"\b(?:on|to) (" + "|".join(d.capitalize() for d in WEEKDAYS) + r")s\b")


NEGATED_BEFORE = re.compile(r"\b(?:not|never|won't|wont|didn't|don't|doesn't|can't|cannot|"
                          r"wouldn't|isn't|aren't|wasn't|refuses? to)\s+(?:\w+\s+)?$", re.I)


def _words(text: str) -> set[str]:
    return {stem(w) for w in words(text) if w.lower() not in STOPWORDS and len(w) > 2
            and w.lower() not in ADVERBS} - GENERIC


# where a clause ends, for what a cessation cue ends
_CLAUSE_END = re.compile(r"[,;:.!?]|\s(?:and|but|because|so|since|as|while|when)\s")


def ended_scope(text: str, start: int, end: int, closing: bool) -> str:
    """What a cessation cue at text[start:end] ends: the rest of its clause ("quit the ceramics
    class, the night shifts made Thursdays impossible" ends the class, not the shifts), or the
    clause before it for a cue that closes it ("doesn't teach yoga anymore", "Kim and Alex
    broke up")."""
    stop = _CLAUSE_END.search(text[end:])
    after = text[end:end + stop.start()] if stop else text[end:]
    if closing or not words(after):
        starts = [m.end() for m in _CLAUSE_END.finditer(text[:start])]
        return text[starts[-1] if starts else 0:start]
    return after


_WHERE = frozenset("in at near from on to into around outside".split())


def ended_names(scope: str) -> set[str]:
    """Stems of the words an ending reaches, less those after "in" / "at": "sold his flat in
    Leeds" ends the flat, not Leeds."""
    said = words(scope)
    return {stem(w) for i, w in enumerate(said) if not (i and said[i - 1].lower() in _WHERE)}


def ended(a: Parts, b: Parts) -> str | None:
    cue = _ENDED.search(body(a.text))
    if not cue or b.negated or b.kind == "change" or not _ONGOING.search(body(b.text)):
        return None
    closing = cue.group(1).lower() in ("anymore", "any more")    # "doesn't teach yoga anymore"
    if not closing and NEGATED_BEFORE.search(body(a.text)[:cue.start()]):
        return None     # "won't quit", "never gave up" end nothing
    after = ended_scope(body(a.text), cue.start(), cue.end(), closing)
    shared = a.names & b.names & ended_names(after)
    if not shared and cue.group(1).lower() not in ("left", "dropped"):
        # "left" and "dropped" end a named thing only ("left The Foxes", not "left the party")
        shared = _words(after) & _words(body(b.text)) - {stem(cue.group(1))}
    if not shared:
        return None
    return f"{', '.join(sorted(shared))} ended ('{cue.group(1).lower()}')"


def _switch(a: Parts):
    found = _SWITCHED.search(body(a.text))
    if not found or NEGATED_BEFORE.search(body(a.text)[:found.start()]):
        return None, None
    return found, _NUMBERED.match(body(a.text), found.start(1))


def switched_plan(a: Parts, b: Parts) -> str | None:
    """"Switch over to Home 900" against "is on Home 300": the same named plan or model with
    another number, the cue and both values spelt out (the caller checks the who)."""
    found, numbered = _switch(a)
    if not numbered:
        return None
    name, number = numbered.groups()
    for old in _NUMBERED.finditer(body(b.text)):
        if old.group(1) == name and old.group(2) != number:
            return f"{name}: {old.group(2)} → {number}"
    return None


def switched(a: Parts, b: Parts) -> str | None:
    found, numbered = _switch(a)
    if not found:
        return None
    if numbered:
        return switched_plan(a, b)
    new_word, head = found.group(1).lower(), found.group(2).lower()
    if new_word in STOPWORDS or head in STOPWORDS:
        return None
    for old in re.finditer(r"\b([a-z]+) " + re.escape(head) + r"\b", body(b.text), re.I):
        old_word = old.group(1).lower()
        if old_word != new_word and old_word not in STOPWORDS:
            return f"{head}: {old_word} → {new_word}"
    return None


def _mode(text: str) -> str | None:
    if not re.search(_PLACES, text, re.I):
        return None
    found = {_MODES[w.lower()] for w in words(text) if w.lower() in _MODES}
    return found.pop() if len(found) == 1 else None


def commute(a: Parts, b: Parts) -> str | None:
    new, old = _mode(body(a.text)), _mode(body(b.text))
    if new and old and new != old and _SAID_NOW.search(body(a.text)):
        return f"gets there by {new} now, not {old}"
    return None


def weekday(a: Parts, b: Parts) -> str | None:
    new, old = _ON_DAYS.search(body(a.text)), _ON_DAYS.search(body(b.text))
    if not new or not old or new.group(1) == old.group(1) or not _SAID_NOW.search(body(a.text)):
        return None
    # the same habit: a word before the day, other than a name, said in both
    habit = {stem(w) for w in words(body(a.text)[:new.start()]) if w[:1].islower()} & \
        {stem(w) for w in words(body(b.text)[:old.start()]) if w[:1].islower()}
    habit -= set(STOPWORDS)
    # one person's habit, or a thing's ("book club") said with two of its words
    if not habit or (a.who != b.who and len(habit) < 2):
        return None
    return f"on {new.group(1)}s now, not {old.group(1)}s"


def new_job(a: Parts, b: Parts) -> str | None:
    """A post taken at another named employer than the one the old statement works at."""
    new, old = _NEW_JOB.search(body(a.text)), _WORKS_AT.search(body(b.text))
    if not new or not old:
        return None
    there, before = (new.group(1) or new.group(2)).strip(), old.group(1).strip()
    if _words(there) & _words(before) or not _words(there) or not _words(before):
        return None
    return f"works at {there} now, not {before}"


def lost_job(a: Parts, b: Parts) -> str | None:
    """A job ended ("was laid off", "lost her job", "handed in his notice") against the post
    the old statement works at; where the new one names the employer, it is the same one."""
    new, old = _LOST_JOB.search(body(a.text)), _WORKS_AT.search(body(b.text))
    if not new or not old or a.negated:
        return None
    before = old.group(1).strip()
    named = re.match(r"\s*(?:from|at|by|with) " + _EMPLOYER, body(a.text)[new.end():])
    if named and not _words(named.group(1)) & _words(before):
        return None
    return f"no longer works at {before} ('{new.group(0).lower()}')"


def single_again(a: Parts, b: Parts) -> str | None:
    if _SINGLE.search(body(a.text)) and _PARTNERED.search(body(b.text)) and not b.negated:
        return "single now, no longer with a partner"
    return None


_DIETS = ("vegan", "vegetarian", "pescatarian")
_EATS = re.compile(r"\b(?:eat|eats|eating|ate)\s+(?:some\s+)?(meat|fish|chicken|beef|pork|dairy|"
                   r"cheese|eggs)\b", re.I)


def _diet(text: str) -> str | None:
    said = {w.lower() for w in words(text)}
    found = [d for d in _DIETS if d in said]
    return found[0] if len(found) == 1 else None


def diet(a: Parts, b: Parts) -> str | None:
    """Another diet, or eating what the old one leaves out, said as a change."""
    new, old = _diet(body(a.text)), _diet(body(b.text))
    if not old or b.negated or not _SAID_NOW.search(body(a.text) + " " + (
            "now" if re.search(r"\bagain\b", body(a.text)) else "")):
        return None
    if new and new != old:
        return f"{new} now, not {old}"
    eats = _EATS.search(body(a.text))
    if not new and eats and not a.negated:
        return f"eats {eats.group(1).lower()} now, not {old}"
    return None


def routine_change(a: Parts, b: Parts) -> str | None:
    """Why `a` ends or changes what `b` said one person does, or None."""
    return ended(a, b) or switched(a, b) or commute(a, b) or weekday(a, b) or new_job(a, b) \
        or lost_job(a, b) or single_again(a, b) or diet(a, b)
