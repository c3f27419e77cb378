"""Can a clause become a memory that stands on its own, read months later away from the chat?

A memory must say who it is about. A clause passes when its subject is the speaker ("I", "my
sister", "we"), a person or thing it names ("Felix is studying architecture"), or a third-person
pronoun that a name earlier in the same message resolves ("My brother Felix ... he loves
Glasgow" → "Felix loves Glasgow"). It is left out, with the reason shown, when:

- its subject is the listener ("you'd be a great counselor"): praise, advice or a guess about
  the other person, which would credit one speaker's words to the other. Only where one person
  is spoken to, a plain statement of a specific about them stands: "You're on Home 300" from an
  agent, "Your flight is on 3 May"; it names a thing, a number or a date, and has no modal;
- its subject or an object is a reference nothing resolves ("it", "that", "them", "there"):
  "It showed Caroline how much the community has grown" says nothing on its own;
- it is an order or a suggestion ("Check out my painting") or a fragment with no subject
  ("Running, reading, or playing my violin");
- it is a general remark about the world, not about anyone ("Pottery's a great way to relax").

Precision first: a clause this cannot place is not stored. The rules read word classes that
hold in any English conversation (pronouns, determiners, the commonest imperative verbs), not
words of any transcript.
"""

from __future__ import annotations

import re

from .dates import RELATIVE
from .referents import AFTER_NAME, first_word, is_name
from .resolve import PAST_FORMS, addresses, has_verb, tensed
from .text import MONTHS, STOPWORDS, WEEKDAYS, words

SELF = frozenset("i i'm i've i'll i'd im ive my mine me myself we we're we've we'll we'd our "
                 "ours us".split())
LISTENER = frozenset("you you're you've you'll you'd your yours yourself u ur youre".split())
THIRD = frozenset("he she he's she's he'll she'll he'd she'd his her him they they're "
                  "they've they'll their them".split())
REFERENCE = frozenset("it it's its that that's this these those there there's here here's "
                      "which what who whoever one".split())
# an object pronoun or a place adverb that points back at something unnamed
_DANGLING = re.compile(r"\b(?:it|them|there|this one|that one|another one)\b(?!['’]s)"
                       r"(?! (?:is|are|was|were)\b)", re.I)
# what someone said or thought of a thing left unnamed: "Dr Okafor said it's promising"
_REPORTED_IT = re.compile(r"\b(?:said|says|say|thinks|think|thought|reckons|reckon)\s+(?:that\s+)?"
                          r"(?:it|it's|it’s|it is|it was)\b", re.I)
# the commonest verbs that open an order or a suggestion
IMPERATIVE = frozenset("""check look take do don't let try tell go come see make give keep
remember imagine hope enjoy have get bring send call text grab show stop ask think picture
count wish join follow watch listen read visit""".split())
_FRAGMENT = frozenset("""for to and or but so because which while with without by from of as
than like just really also maybe probably especially when where if then plus whether since until
although though unless whereas whenever""".split())
_GERUND_LIST = re.compile(r"^[A-Za-z]+ing\b[^.]*,")   # "Running, reading, or ..."



# a name, a number or a date: what makes a remark about a thing worth keeping
# (a month or a weekday in any case: "starts in october" is as dated as "in October")
_SPECIFIC = re.compile(r"\d|\b(?!I\b)[A-Z][a-z]+|\b(?i:" + "|".join(sorted(MONTHS) + list(WEEKDAYS))
                       + r")\b")
# a number, a month or a weekday: a remark that gives one is about an arrangement
_DATED = re.compile(r"\d|\b(?i:" + "|".join(sorted(MONTHS) + list(WEEKDAYS)) + r")\b|\b(?:at|from) "
                    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|noon)\b")
DROPPED_I = "self, the 'I' left out"
# one or two words and a form of be, have or will: the subject is what they name
_BARE_THING = re.compile(r"^[A-Z][a-z]+(?: [a-z]+)? (?:is|are|was|were|will|has|had)\b")
_HYPOTHETICAL = frozenset("would 'd could might should".split())
# "Art can be a real mood-booster": what a thing can be is said of no one
_CAN_BE = re.compile(r"^\S+\s+(?:can|could|may|might|must|should)\s+(?:\w+ly\s+|also\s+)?be\b",
                     re.I)


# a subject and an auxiliary with nothing after it but a comma or "too": "I did, with my
# mum", "We have, twice": what was done is in the question it answers
_ELLIPSIS = re.compile(r"^\s*(?:[\w'’-]+\s+){1,3}?(?:(?:did|do|does|have|has|had|is|am|are|was|"
                       r"were|will|can|could|would|should)(?:n['’]t| not)?|(?:can|won)['’]t)"
                       r"\s*(?:[,;.!]|$|too\b|as well\b)", re.I)


def _speaks_of_self(said: list[str]) -> bool:
    """The speaker is in the clause, not only as the one a remark is addressed to ("sounds
    good to me", "means a lot to us" react; "Harlow & Price have me on the project" tells)."""
    return any(w.lower() in SELF and not (w.lower() in ("me", "us") and i
                                          and said[i - 1].lower() in ("to", "for"))
               for i, w in enumerate(said))


# the listener's forms that state what holds ("you'd", "you could" guess or advise)
_LISTENER_STATES = frozenset("you you're you've you'll your youre".split())
_ADVICE = frozenset("should could would might must may can can't need needs have got gotta "
                    "ought better".split())


def listener_fact(clause: str, speakers: list[str]) -> bool:
    """A plain statement about the one person spoken to that names a specific: a thing that is
    not a speaker, a number or a date ("You're on Home 300", "Your reference is TK-20931")."""
    said = words(clause.split(":")[0])    # what a colon introduces is a statement of its own
    if not said or said[0].lower().replace("’", "'") not in _LISTENER_STATES:
        return False
    if any(w.lower() in _ADVICE or w.lower() in _HYPOTHETICAL for w in said[1:3]):
        return False
    rest = [w for w in said[1:] if not addresses(w.removesuffix("'s"), speakers)]
    return any(any(ch.isdigit() for ch in w) or w.lower() in MONTHS or w.lower() in WEEKDAYS
               or is_name(w) for w in rest)


# prepositions that open a phrase of time or place set before a clause's subject
_FRONTING = frozenset("at in on from after before since during by until till over through "
                      "around throughout within".split())
_PERSONAL = (SELF | LISTENER | THIRD) - {"him", "them", "us", "me"}


def fronted(clause: str) -> tuple[str, str]:
    """(phrase, rest) for a clause that opens with a phrase of time or place before its
    subject: "On Friday my sister got engaged", "At steering Dana decided ...". The subject
    is the first person word or name, within five words, that follows a word of the phrase
    itself (after "with" or "the" it is the phrase's own object: "In the Lisbon office ...")
    and is followed by a verb. ("", clause) when the clause opens otherwise."""
    found = list(re.finditer(r"[\w'’-]+", clause))
    if len(found) < 4 or found[0].group(0).lower() not in _FRONTING:
        return "", clause
    for before, hit in zip(found[1:6], found[2:7]):
        w = hit.group(0)
        person = w.lower().replace("’", "'") in _PERSONAL or is_name(w)
        prior = before.group(0)
        if person and (prior.lower() not in STOPWORDS or prior.lower() in MONTHS):
            rest = clause[hit.start():]
            if has_verb(rest, s_forms=False) or AFTER_NAME.match(rest):
                return clause[:hit.start()].strip(" ,"), rest
            return "", clause
    return "", clause


def gerund(first: str, speakers: list[str]) -> bool:
    """A capital on a gerund that opens the clause is the sentence's, not a name's
    ("Volunteering is a great way to meet people")."""
    base = first.lower().replace("’", "'").removesuffix("'s")
    return first not in speakers and len(base) > 5 and base.endswith("ing")


def _owner(word: str) -> str:
    return word.removesuffix("'s").removesuffix("’s")


_HIM = re.compile(r"\bhim\b", re.I)


def _unnamed_him(clause: str, speakers: list[str]) -> re.Match | None:
    """A "him" with no third party named before it: "Yara met him at the party" (Leo, in "Leo
    wants to come if the café gives him the day off", is named)."""
    found = _HIM.search(clause)
    if found and not any(is_name(w) and not addresses(w, speakers)
                         for w in words(clause[:found.start()])):
        return found
    return None


def _modal_first(after_subject: list[str]) -> bool:
    """A "would" / "could" / "might" / "should" comes before any other verb: the subject's
    own verb is hypothetical ("She and her husband might move"), not one inside what a
    past verb reports ("Ana said she would come")."""
    for w in after_subject:
        low = w.lower()
        if low in _HYPOTHETICAL:
            return True
        if tensed(low):
            return False
    return False


def judge(clause: str, speakers: list[str], earlier: list[str],
          one_listener: bool = False) -> tuple[str | None, str]:
    """(subject, reason): the subject the statement will name, or None and why it cannot.

    `earlier`: third parties named before this clause in the same message, for "he" / "she".
    A third-person subject is replaced in the clause by the caller with the returned name.
    `one_listener`: only one person is spoken to, so "you" is who they are.
    """
    first = first_word(clause)
    low = first.lower().replace("’", "'")
    if not first:
        return None, "no words"
    if low in LISTENER:
        if not (one_listener and listener_fact(clause, speakers)):
            return None, "about the listener: not a fact the speaker states about themselves"
        subject = "listener"
    elif low in IMPERATIVE or low in ("please", "let's"):
        return None, "an order or a suggestion"
    elif low in _FRAGMENT or _GERUND_LIST.match(clause):
        return None, "a fragment with no subject"
    elif low in REFERENCE:
        return None, f"'{first}' refers to something the statement does not name"
    elif low in THIRD:
        if low in ("he", "she", "he's", "she's", "he'll", "she'll", "he'd", "she'd", "his",
                   "her", "they", "their") and earlier:
            subject = earlier[-1]
        else:
            return None, f"'{first}' refers to someone the statement does not name"
    elif low in SELF:
        subject = "self"
    elif low in PAST_FORMS or (low.endswith("ed") and len(low) > 4 and low not in STOPWORDS):
        # chat drops the "I": "went to my cousin's party" is the speaker's, unless someone
        # else was just named ("Pickle is a menace. ate my charger cable")
        if earlier:
            return None, "a verb with no subject, after someone else was named"
        if words(clause)[1:2] and words(clause)[1].lower() in ("me", "us"):
            # "Took me three months", "Told me he was leaving": done to the speaker, by
            # something or someone the clause does not name
            return None, "a verb with no subject, done to the speaker"
        subject = DROPPED_I
    elif is_name(first) and _owner(first) not in speakers and _owner(first) not in earlier \
            and _CAN_BE.match(clause):
        return None, "a general remark: what something can be"
    elif is_name(first) and gerund(first, speakers) and _DATED.search(clause[len(first):]) \
            and not _speaks_of_self(words(clause)):
        subject = "thing"     # "Bowling is at eight from 4 March on"
    elif is_name(first) and not gerund(first, speakers) \
            and (_owner(first) in speakers or _owner(first) in earlier or AFTER_NAME.match(clause)):
        subject = _owner(first)
    elif low not in STOPWORDS and _speaks_of_self(words(clause)):
        # "Drawing flowers is one of my faves", "Starting March I'll be in the office"
        subject = "self"
    elif is_name(first) and _BARE_THING.match(clause) and _SPECIFIC.search(clause[len(first):]):
        # "Daily standup is at 9:30", "Load test is booked for 20 March": a thing named with
        # no article, its capital the sentence's
        subject = "thing"
    elif low in ("the", "a", "an") and (_SPECIFIC.search(clause[len(first):])
                                        or (low == "the" and RELATIVE.search(clause))):
        # "The cathedral concert moved to 23 March", "The tickets get migrated this weekend"
        subject = "thing"
    else:
        return None, "a general remark, about no one in the conversation"
    if not has_verb(clause):
        return None, "a fragment with no verb"
    if _ELLIPSIS.match(clause):
        return None, "an answer that leaves what was done to the question"
    if _modal_first(words(clause)[1:6]) or low.endswith("'d"):
        return None, "a hypothetical ('would', 'could', 'might'), not a fact"
    dangling = _DANGLING.search(clause) or _REPORTED_IT.search(clause) \
        or _unnamed_him(clause, speakers)
    if dangling:
        return None, f"'{dangling.group(0)}' refers to something the statement does not name"
    return subject, ""


# "I'm Rosa", "my name is Rosa", "this is Rosa", "Rosa here": the speaker naming themselves
_INTRODUCTION = re.compile(r"\s*(?:(?:i['’]?m|i am|my name['’]?s|my name is|this is|it['’]?s)\s+"
                           r"(?P<after>[\w-]+)|(?P<before>[\w-]+)\s+here\b)"
                           # a surname, "here", an "and" before what the clause goes on to say
                           r"\b(?!['’])(?-i:\s+(?!I\b)[A-Z][\w-]*\b(?!['’]))?"
                           r"[\s,;:–—-]*(?:here\b)?[\s,;:–—-]*(?:and\s+)?(?P<rest>.*)$", re.I)


def without_own_name(clause: str, speaker: str) -> str | None:
    """The clause with the speaker's own name taken out of a self-introduction, or None when
    the name was all it said. The name is already who says every line, so "I'm Rosa, one of
    the agents here" states "I'm one of the agents here", not "Rosa is Rosa, ..."; and
    "Hi, it's Dev again" states nothing. A clause that names no one this way is returned as is.
    """
    hit = _INTRODUCTION.match(clause)
    if not hit or not addresses(hit.group("after") or hit.group("before"), speaker.split()[:1]):
        return clause
    rest = hit.group("rest").strip()
    if not [w for w in words(rest) if w.lower() not in STOPWORDS and w.lower() != "again"]:
        return None
    if first_word(rest).lower().replace("’", "'") in SELF:
        return rest
    return "I'm " + rest
