"""When two statements are about the same thing, and when they cannot both hold.

A conflict needs three things: the same subject (the person or thing the statement is about),
the same attribute (shared key words or names, or one lasting attribute such as where someone
lives), and a disagreement in the statement's own main clause: its predicate negated, a change
of state ("moved to", "sold", "no longer"), or another value in the same slot (a count, a place,
the date of a plan). Events in the past accumulate: two trips on two dates are two trips.
Negations inside idioms ("can't wait") or subordinate clauses ("... that they're not alone")
say nothing about the subject.
"""

from __future__ import annotations

import re

from .phatic import IDIOMS
from .resolve import PAST_FORMS
from .text import MONTHS, NUMBER_WORDS, STOPWORDS, body, quantities, words

NEGATIONS = frozenset("""not no never cannot can't don't doesn't didn't isn't wasn't aren't
weren't won't wouldn't haven't hasn't hadn't""".split())
MAIN_CLAUSE = 5     # a negation or change this many words into the statement is its own
CHANGE = re.compile(r"\b(moved|moving|relocated|switched|changed|sold|quit|stopped|gave up|"
                    r"no longer|anymore|any more|instead|rescheduled|postponed|pushed back|"
                    r"brought forward|replaced|cancel(?:l)?ed|broke up|divorced|retired|now)\b",
                    re.I)
_AFTERTHOUGHT = ("anymore", "any more", "no longer", "instead", "now")   # may close the clause
_NOT_A_CHANGE = re.compile(r"\b(stopped by|moved by|moved me|changed my life|right now|for now|"
                           r"now and then|just now|until now|by now|never quit|won't quit|"
                           r"not just|isn't just|not only|not so long|not alone|don't forget|"
                           r"not going to stop|no matter|not much|no cakewalk)\b", re.I)
PLAN = re.compile(r"\b(will|'ll|going to|plan(?:s|ned|ning)?|scheduled|booked|signed up|"
                  r"registered|is on|are on|set for|upcoming|coming up)\b", re.I)
# words that say little about what a statement is about
_EMPTY = frozenset("""is was are were be been has have had do does did done get gets got make
makes made take takes took say says said tell told feel feels felt think thinks thought want
wants wanted need needs needed try tries tried lot since even yet still ever maybe gonna wanna
anyone someone everyone something whole kind""".split())
FAMILIES = {
    "residence": "live lives living lived home house flat apartment neighbourhood neighborhood "
                 "based rent renting",
    "work": "work works worked job jobs career employer company office hired position role "
            "promoted promotion",
    "diet": "vegetarian vegan pescatarian meat fish eat eats eating diet",
    "drink": "coffee tea espresso caffeine decaf drink drinks drinking alcohol",
    "vehicle": "car cars drive drives driving bike bicycle cycle cycles cycling motorbike "
               "scooter van truck",
    "relationship": "married marry wedding dating partner boyfriend girlfriend husband wife "
                    "engaged divorced single",
    "schedule": "shift shifts schedule rota",
}
_MONTH_NAMES = ("January|February|March|April|May|June|July|August|September|October|November|"
                "December")
_MOVED_HOME = re.compile(r"\bmov(?:ed|ing|e)? (?:(?:to|into) (?!(?:" + _MONTH_NAMES + r")\b)[A-Z]|"
                         r"(?:house|home|in with|out)\b)")


def stem(word: str) -> str:
    w = word.lower().strip("'’").removesuffix("'s").removesuffix("’s")
    for suffix in ("ing", "ed", "es", "s"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[:-len(suffix)]
            break
    return w[:-1] if w.endswith("e") and len(w) > 3 else w


_FAMILY_OF: dict[str, set[str]] = {}
for _name, _members in FAMILIES.items():
    for _w in _members.split():
        _FAMILY_OF.setdefault(stem(_w), set()).add(_name)
_WEEKDAYS = frozenset(stem(d) for d in "monday tuesday wednesday thursday friday saturday sunday "
                                       "mondays tuesdays wednesdays thursdays fridays saturdays "
                                       "sundays".split())


def _clean(statement: str) -> str:
    return _NOT_A_CHANGE.sub(" ", IDIOMS.sub(" ", body(statement)))


def subject(statement: str) -> str:
    """Who or what the statement is about: a name it opens with, else the speaker it is
    attributed to ('Maya: the office is ...')."""
    head, sep, rest = statement.partition(": ")
    text = rest if sep and len(head.split()) <= 3 else statement
    first = (words(text) or [""])[0]
    if first[:1].isupper() and first.lower() not in STOPWORDS and first.lower() not in MONTHS:
        return stem(first)
    return stem(head) if sep and len(head.split()) <= 3 else ""


def _names(text: str, skip: set[str] = frozenset()) -> set[str]:
    """Proper names inside the statement (not its first word): the places, people and things
    a value can be. Days of the week are times, not values."""
    found = set()
    for i, t in enumerate(words(text)):
        s = stem(t)
        if i and t[:1].isupper() and t.lower() not in STOPWORDS and t.lower() not in MONTHS \
                and t != "I" and s not in _WEEKDAYS and s not in skip:
            found.add(s)
    return found


def key_words(statement: str) -> set[str]:
    """Stems of what is said about the subject: no names, numbers, dates or empty words."""
    text = _clean(statement)
    skip = _names(text) | {subject(statement)}
    found = set()
    for w in words(text):
        low = w.lower()
        if low in STOPWORDS or low in _EMPTY or low in MONTHS or low in NUMBER_WORDS \
                or low in NEGATIONS or w[0].isdigit() or len(low) < 3:
            continue
        s = stem(low)
        if s not in skip and low.removesuffix("'s") not in skip:
            found.add(s)
    return found


def _keys(statement: str) -> set[str]:
    """Key words and the names of things (not of the people the statement is about)."""
    return key_words(statement) | _names(body(statement), {subject(statement)})


def details(statement: str) -> set[str]:
    """Everything a statement tells: key words, names, numbers and dates."""
    extra = {w.lower() for w in words(body(statement))
             if w[0].isdigit() or w.lower() in MONTHS or w.lower() in NUMBER_WORDS}
    return _keys(statement) | extra


def families(statement: str, without: str | None = None) -> set[str]:
    """Lasting attributes the statement speaks of ("moved to" a place is where one lives)."""
    cue = stem(without) if without else None
    found = {f for k in key_words(statement) if k != cue for f in _FAMILY_OF.get(k, ())}
    return found | ({"residence"} if _MOVED_HOME.search(body(statement)) else set())


def _main_clause(statement: str) -> list[str]:
    return [w.lower() for w in words(_clean(statement))]


def negated(statement: str) -> bool:
    """The statement's own predicate is negated (not one inside an idiom or a later clause)."""
    return any(w in NEGATIONS for w in _main_clause(statement)[:MAIN_CLAUSE + 1])


def change_cue(statement: str) -> str | None:
    """The word that says the statement replaces an earlier state, if its main clause has one."""
    text = _clean(statement)
    for found in CHANGE.finditer(text):
        cue = found.group(0).lower()
        at = len(words(text[:found.start()]))
        if at <= MAIN_CLAUSE or cue in _AFTERTHOUGHT:
            return cue
    return None


def _past_event(statement: str) -> bool:
    said = body(statement)
    past = any(w.lower() in PAST_FORMS or (w.lower().endswith("ed") and not w.lower().endswith("eed"))
               for w in words(said))
    return past and not PLAN.search(said)


def _dates(statement: str) -> set[str]:
    return set(re.findall(r"\b\d{1,2} (?:" + "|".join(m.capitalize() for m in MONTHS) +
                          r")(?: \d{4})?\b", statement))


def same_topic(a: str, b: str) -> str | None:
    """The shared subject and attribute of two statements, or None when they are not about
    the same thing."""
    sa, sb = subject(a), subject(b)
    if not sa or sa != sb:
        return None
    shared = _keys(a) & _keys(b)
    if shared:
        return f"{sa}: {', '.join(sorted(shared)[:3])}"
    fam = families(a) & families(b)
    return f"{sa}: {', '.join(sorted(fam))}" if fam else None


def conflict(new: str, old: str) -> str | None:
    """Why `new` means `old` no longer holds, or None when both can stand."""
    topic = same_topic(new, old)
    if topic is None:
        return None
    kn, ko = _keys(new), _keys(old)
    shared = kn & ko
    # a value can only differ in the same slot: much of what is said must be the same
    same_slot = len(shared) >= 2 or (bool(shared) and len(shared) / len(kn | ko) >= 0.3)
    if negated(new) != negated(old) and shared:
        return f"same {topic}; one is negated"
    cue_new, cue_old = change_cue(new), change_cue(old)
    state = bool(families(new, cue_new) & families(old, cue_old))   # one lasting attribute
    if cue_new and not cue_old and (state or (same_slot and cue_new != "now")):
        return f"same {topic}; changed ('{cue_new}')"
    people = {subject(new), subject(old)}
    na, nb = _names(body(new), people), _names(body(old), people)
    if cue_new and cue_old and state and na and nb and not (na & nb):
        return f"same {topic}; changed again ({', '.join(sorted(nb))} → {', '.join(sorted(na))})"
    if _past_event(new) or _past_event(old) or not same_slot:
        # what happened does not undo a state or a plan ("ran it in 53 minutes" beside "wants
        # to finish in under 55"), and two things that happened are both true
        return None
    qa, qb = quantities(new), quantities(old)
    clash = sorted(k for k in qa.keys() & qb.keys()
                   if qa[k] != qb[k] and k != "year" and k not in MONTHS)
    if clash:
        return f"same {topic}; " + "; ".join(f"{qa[k]} vs {qb[k]} {k}" for k in clash)
    da, db = _dates(new), _dates(old)
    if da and db and not (da & db) and PLAN.search(new) and PLAN.search(old):
        return f"same {topic}; planned for another date ({', '.join(sorted(da))} vs " \
               f"{', '.join(sorted(db))})"
    if na and nb and not (na & nb):
        return f"same {topic}; another value ({', '.join(sorted(na))} vs {', '.join(sorted(nb))})"
    return None
