"""What a statement says, in words the rules compare: its subject, key words, names and
details, the lasting attributes it speaks of, whether its main clause is negated, and the word
that says it changes an earlier state. `conflicts` reads statements into parts with these.

Negations inside idioms ("can't wait") or subordinate clauses ("... that they're not alone")
say nothing about the subject.
"""

from __future__ import annotations

import re

from .phatic import IDIOMS
from .text import MONTHS, NUMBER_WORDS, STOPWORDS, WEEKDAYS, body, words

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
        if suffix == "es" and not w.endswith(("ses", "xes", "zes", "ches", "shes")):
            continue      # "coffees" is "coffee" + s, as "boxes" is "box" + es
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[:-len(suffix)]
            break
    return w[:-1] if w.endswith("e") and len(w) > 3 else w


_FAMILY_OF: dict[str, set[str]] = {}
for _name, _members in FAMILIES.items():
    for _w in _members.split():
        _FAMILY_OF.setdefault(stem(_w), set()).add(_name)
_WEEKDAYS = frozenset(stem(d + s) for d in WEEKDAYS for s in ("", "s"))


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


def proper_names(text: str, skip: set[str] = frozenset()) -> set[str]:
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
    skip = proper_names(text) | {subject(statement)}
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
    return key_words(statement) | proper_names(body(statement), {subject(statement)})


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
