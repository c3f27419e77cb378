"""The thing a question asked about, for an "it" that opens the answer.

"Are you still organising the street party?" — "Yes, it's on Saturday 24 August": the answer's
"it" is the street party, the one thing the question names with "the". With no such thing, or
several, the "it" stays as said (and the statement is then dropped as naming nothing).
"""

from __future__ import annotations

import re

from ..models import Message
from .resolve import ADVERBS

# a thing named with "the": up to three lower-case words, ending where the question or a
# preposition does ("the knee surgery", "the street party", "the flat in Leeds")
_THE_THING = re.compile(r"\bthe ((?:[a-z]+ ){0,2}[a-z]+)(?=\s*(?:[?,.!]|$|\b(?:for|with|at|on|"
                        r"in|to|about|from|this|next|tomorrow|today|tonight)\b))")
# an answer that opens with "it" and a verb of being: "it's", "it is", "it was", "it'll be"
_OPENING_IT = re.compile(r"^[Ii]t(?=(?:['’]s|\s+(?:is|was|will be)|['’]ll be)\b)")
# what may come before the "it" in the answer's message: a greeting, a name, a yes, or nothing
_YES_WORDS = frozenset("hi hey hello oh yes yeah yep yup sure still".split())


def asked_thing(question: str) -> str | None:
    """The one thing a question names with "the"; None for none or several."""
    if not question.rstrip().endswith("?") or len(re.findall(r"\bthe\b", question, re.I)) != 1:
        return None
    found = _THE_THING.search(question)
    if not found:
        return None
    # "the client demo still on Thursday": an adverb is no part of the thing
    named = found.group(1).split()
    while named and named[-1] in ADVERBS:
        named.pop()
    return " ".join(named) or None


def answered_it(clause: str, said: str, before: tuple[Message, ...], speaker: str,
                speakers: list[str]) -> str:
    """The clause with an opening "it" named by the question it answers, when the message
    opens with it (after a greeting and a yes at most) and the message before is someone
    else's question about one thing."""
    opening = re.findall(r"[A-Za-z]+", said)
    if not before or before[-1].speaker == speaker or not _OPENING_IT.match(clause) \
            or any(w.lower() not in _YES_WORDS and w not in speakers for w in opening):
        return clause
    thing = asked_thing(before[-1].text)
    return _OPENING_IT.sub(f"The {thing}", clause, count=1) if thing else clause
