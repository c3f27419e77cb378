"""Sentence splitting and the facts the consolidation rules compare: numbers, names, negation."""

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

NEGATIONS = frozenset("""not no never nothing nobody none neither nor cannot can't don't doesn't
didn't isn't wasn't aren't weren't won't wouldn't shouldn't haven't hasn't hadn't anymore
stopped quit quitting gave""".split())

NUMBER_WORDS = frozenset("""zero one two three four five six seven eight nine ten eleven twelve
thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty
seventy eighty ninety hundred thousand first second third fourth fifth""".split())

MONTHS = frozenset("""january february march april may june july august september october
november december""".split())

FILLER = re.compile(r"^(hi|hey|hello|thanks|thank you|bye|good ?bye|see you|ok|okay|sure|wow|"
                    r"haha|lol|yeah|yes|no|great|cool|nice|awesome)\b[\s\w,!.]{0,20}$", re.I)


def sentences(text: str) -> list[str]:
    parts = []
    for line in text.splitlines():
        parts.extend(p.strip() for p in _SENTENCE_END.split(line) if p.strip())
    return parts


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def content_words(text: str) -> list[str]:
    return [w.lower() for w in words(text) if w.lower() not in STOPWORDS and len(w) > 2]


# pleasantries that carry no lasting fact, however many words surround them
SMALL_TALK = re.compile(r"\b(talk (to you )?soon|see you|good luck|wish me luck|take care|"
                        r"well deserved|lucky you|sounds (like )?(a )?(good|great|solid)|"
                        r"you'll be (great|fine)|congratulations|glad to hear)\b", re.I)


def is_informative(sentence: str) -> bool:
    """A sentence worth keeping as knowledge: a statement with some substance."""
    stripped = sentence.strip()
    if stripped.endswith("?") or FILLER.match(stripped):
        return False
    if SMALL_TALK.search(stripped) and len(words(stripped)) < 10:
        return False
    return len(words(stripped)) >= 5 and len(content_words(stripped)) >= 3


def body(statement: str) -> str:
    """The statement without its 'Speaker: ' prefix."""
    head, sep, rest = statement.partition(": ")
    return rest if sep and len(head.split()) <= 3 else statement


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


def names(text: str) -> set[str]:
    """Capitalised words that do not start a sentence: a rough proper-noun set."""
    tokens = words(body(text))
    found = set()
    for i, tok in enumerate(tokens):
        if i and tok[0].isupper() and tok.lower() not in STOPWORDS and tok.lower() not in MONTHS \
                and tok != "I":
            found.add(tok.lower())
    return found


def negated(text: str) -> bool:
    return any(w.lower() in NEGATIONS for w in words(body(text)))


def disagreement(a: str, b: str) -> str | None:
    """Why two statements about the same thing cannot both hold, or None if they can."""
    if negated(a) != negated(b):
        return "one is negated and the other is not"
    qa, qb = quantities(a), quantities(b)
    clash = sorted(k for k in qa.keys() & qb.keys() if qa[k] != qb[k])
    if clash:
        return "; ".join(f"{qa[k]} vs {qb[k]} {k}" for k in clash)
    ma, mb = names(a), names(b)
    if ma and mb and not (ma & mb):
        return f"names differ ({', '.join(sorted(ma))} vs {', '.join(sorted(mb))})"
    return None
