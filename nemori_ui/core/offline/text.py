"""Sentence splitting, words and the word lists the offline rules share."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")
# letters in any script: "Belém" is one word, not "Bel" and "m"
_WORD = re.compile(r"[^\W\d_][\w'’-]*|\d+(?:[.,:/]\d+)*")

STOPWORDS = frozenset("""a an the and or but if so of to in on at for with from by about as into
like through over after before between out up down off than then too very just also really
i me my mine myself we us our ours you your yours he him his she her hers it its they them their
theirs this that these those is am are was were be been being have has had do does did doing
will would shall should can could may might must not no yes oh ah um uh hey hi hello thanks
thank ok okay well yeah yep sure what which who whom whose when where why how all any both each
few more most other some such only own same there here again once don't i'm it's that's you're
i've i'll we're they're can't didn't doesn't isn't wasn't aren't won't get got go going gonna
know think feel lot lots thing things something anything everything right good great nice cool
wow awesome love glad happy sorry""".split())

NUMBER_WORDS = frozenset("""zero one two three four five six seven eight nine ten eleven twelve
thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty
seventy eighty ninety hundred thousand first second third fourth fifth""".split())

MONTHS = frozenset("""january february march april may june july august september october
november december""".split())
# in calendar order, Monday first, as datetime.weekday() counts them
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

def sentences(text: str) -> list[str]:
    parts = []
    for line in text.splitlines():
        parts.extend(p.strip() for p in _SENTENCE_END.split(line) if p.strip())
    return parts


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def content_words(text: str) -> list[str]:
    return [w.lower() for w in words(text) if w.lower() not in STOPWORDS and len(w) > 2]


def body(statement: str) -> str:
    """The statement without its 'Speaker: ' prefix."""
    head, sep, rest = statement.partition(": ")
    return rest if sep and len(head.split()) <= 3 else statement


# units of time: a number before one says how long, not how many of a thing one holds
DURATION_UNITS = frozenset({"second", "seconds", "minute", "minutes", "hour", "hours", "day",
                            "days", "week", "weeks", "month", "months", "year", "years",
                            "decade", "decades"})


def quantities(text: str) -> dict[str, str]:
    """What each number counts: {'cups': 'three', 'april': '12'}; years count as 'year'."""
    tokens = [w.lower() for w in words(body(text))]
    found = {}
    for i, tok in enumerate(tokens):
        if tok[0].isdigit() or tok in NUMBER_WORDS:
            if len(tok) == 4 and tok.isdigit() and tok.startswith(("19", "20")):
                found["year"] = tok
            elif i + 1 < len(tokens):
                found[tokens[i + 1]] = tok
    return found


# chat spellings of the words the rules read: "im", "dont", "i" (not other typos: those are
# the speaker's own words and stay as said)
_CHAT_FORMS = {"i": "I", "im": "I'm", "ive": "I've", "id": "I'd", "dont": "don't",
               "cant": "can't", "didnt": "didn't", "doesnt": "doesn't", "isnt": "isn't",
               "wasnt": "wasn't", "arent": "aren't", "havent": "haven't", "hasnt": "hasn't",
               "couldnt": "couldn't", "wouldnt": "wouldn't", "shouldnt": "shouldn't",
               "wont": "won't", "thats": "that's", "theres": "there's", "youre": "you're",
               "u": "you", "r": "are", "shes": "she's", "hes": "he's", "theyre": "they're",
               "whats": "what's", "hows": "how's", "wheres": "where's"}
_CHAT_WORD = re.compile(r"\b(" + "|".join(_CHAT_FORMS) + r")\b")


# typographic apostrophes and quotes, as the plain ones every rule reads
_PLAIN_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def normalise_chat(text: str) -> str:
    """Plain apostrophes and quotes for typographic ones ("I’m" reads as "I'm"), standard
    spellings for the chat forms of pronouns and negations; a line written all in lower case
    gets its sentences' first letters back."""
    text = _CHAT_WORD.sub(lambda m: _CHAT_FORMS[m.group(1)], text.translate(_PLAIN_QUOTES))
    return re.sub(r"(^|[.!?]\s+)([a-z])", lambda m: m.group(1) + m.group(2).upper(), text)
