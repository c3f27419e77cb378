"""Who and where a message names: the people a "he" or "she" can stand for, and places.

"My sister Ana ...", "Marco said ...": a capital that opens a sentence is a name only when a
verb follows it ("Sad.", "Thankfully they ..." name no one); a name after "in" / "to" /
"from" is a place, which "he" or "she" never is. A "he" / "she" that opens a reply stands for
the one person the question before it asked about, and "there" for the one place the message
named before it.
"""

from __future__ import annotations

import re

from .kin import KIN_WORD
from .resolve import ADVERBS, PAST_FORMS, addresses
from .text import MONTHS, NUMBER_WORDS, STOPWORDS, WEEKDAYS, sentences, words

_KIN = re.compile(r"\b(?:my|our)\s+((?:[a-z]+\s+)?(?:sister|brother|mum|mom|mother|dad|father|"
                  r"son|daughter|husband|wife|partner|boyfriend|girlfriend|friend|cousin|aunt|"
                  r"uncle|niece|nephew|grandma|grandmother|grandpa|grandfather|boss|colleague|"
                  r"neighbour|neighbor|kid|child|baby|dog|cat|puppy|kitten))\s+([A-Z][a-z]+)")


def first_word(clause: str) -> str:
    found = words(clause)
    return found[0] if found else ""


def is_name(word: str) -> bool:
    return bool(word) and word[:1].isupper() and word.lower() not in STOPWORDS \
        and word.lower() not in MONTHS and word.lower() not in NUMBER_WORDS \
        and word.lower() not in _NOT_NAMES and word.lower() not in ADVERBS \
        and word not in ("I", "I'm", "I've", "I'll", "I'd")


# words that follow the "'s" of "is" or "has", never a possessed thing: "Pottery's a great way
# to relax" says "Pottery is", where "Maya's knee" is Maya's
_IS_OR_HAS_NEXT = r"(?:a|an|the|so|such|really|about|in|at|on|been|got|gonna|going|not|all|just|" \
                  r"always|never|still|also|very|too|more|most|one|like|what|how)"
# after a name that opens a sentence, a verb of its own: "Dana bought", "Felix is", a past
# form not in -ed too ("Mina got", "Dr Okafor said"); a capitalised first word followed by
# anything else is just the sentence's first word (every word of a name has its capital:
# "Sleeps twenty hours" is no name "Sleeps twenty")
AFTER_NAME = re.compile(r"^[A-Z]\S*?(?:\s+[A-Z]\S*?){0,2}(?:'s|’s)?\s+"
                        r"(?:is|was|has|had|does|did|will|would|can|and|"
                        r"[a-z]+ed|[a-z]+s(?! (?:are|were|have)\b)|"
                        + "|".join(sorted(PAST_FORMS)) + r")\b"
                        r"|^\S+(?:'s|’s)\s(?!" + _IS_OR_HAS_NEXT + r"\b)")
_NOT_NAMES = frozenset("today tonight tomorrow yesterday everyone everybody someone somebody "
                       "nobody anyone since because although though while whenever unless until "
                       "once whereas".split())
# a name after these is a place ("in Leeds") or a thing ("the Dragon Ride", "an Uber"), which
# "he", "she" or "they" never is: a person's name takes no article
_NO_PERSON_AFTER = frozenset(
    "in to at from near of on into around across through via the a an".split())


def referents(text: str, speakers: list[str]) -> list[str]:
    """Names of third parties a message introduces, in order: "my sister Ana" gives Ana.

    A capital at the start of a sentence is the sentence's, not a name's ("Sad.", "Thankfully
    they ...", "Seeing how ..."): a word there counts as a name only when a verb follows it
    ("Marco said", "Dana is", "Mum turns").
    """
    found = [m.group(2) for m in _KIN.finditer(text)]
    for sentence in sentences(text):
        said = words(sentence)
        i = 0
        while i < len(said):
            # an acronym ("SIM", "API") or a weekday names no "he" or "she"
            # a speaker's name or its short form ("Thanks, Mel!") is who is spoken to or about
            if is_name(said[i]) and not addresses(said[i], speakers) and not said[i].isupper() \
                    and said[i].lower() not in WEEKDAYS \
                    and (i == 0 or said[i - 1].lower() not in _NO_PERSON_AFTER) \
                    and (i > 0 or _verb(said[1:2])):
                j = i + 1
                while j < len(said) and is_name(said[j]) and not said[j - 1].endswith(("'s", "’s")):
                    j += 1
                # "Finch Labs" is one name; "Marco's contract" names Marco
                name = " ".join(said[i:j]).removesuffix("'s").removesuffix("’s")
                if name not in found:
                    found.append(name)
                i = j
            elif is_name(said[i]) and i and said[i - 1].lower() in _NO_PERSON_AFTER:
                # the whole of a place's name is the place's: "at St Thomas'", "in New York",
                # and a thing's the thing's: "the Dragon Ride"
                while i < len(said) and is_name(said[i]):
                    i += 1
            else:
                i += 1
    return found


_PETS = re.compile(r"\b(?:dog|cat|puppy|kitten|pup|hamster|rabbit|horse|parrot)\s+([A-Z][a-z]+)")
HE_SHE = frozenset("he she he's she's he'll she'll his her".split())


# someone spoken of without a name, who a "he" or "she" could be as well: "your mum's"
_UNNAMED = re.compile(r"\b(?:my|your|his|her|our|their|the)\s+(?:mum|mom|mother|dad|father|"
                      r"sister|brother|wife|husband|partner|boyfriend|girlfriend|boss|son|"
                      r"daughter|aunt|uncle|gran|grandma|grandpa|friend|bride|groom|teacher|"
                      r"doctor|manager|neighbour|neighbor)(?:['’]s)?\b(?!\s+[A-Z])", re.I)


def person_before(texts: list[str], speakers: list[str]) -> str | None:
    """Who a "he" / "she" that opens a reply stands for: the one person the question just
    asked ("How's Yusuf taking it?", "Is he still on the contract?" after "Marco said ...")
    named, when no pet ("my dog Biscuit") and no one unnamed ("your mum") is in the running."""
    if not texts or not texts[-1].rstrip().endswith("?"):
        return None
    for text in reversed(texts):
        if _UNNAMED.search(text):
            return None
        named = referents(text, speakers)
        if named:
            pets = {m.group(1) for m in _PETS.finditer(text)}
            return named[0] if len(named) == 1 and named[0] not in pets else None
    return None


def _verb(next_word: list[str]) -> bool:
    w = next_word[0].lower() if next_word else ""
    return w in PAST_FORMS or w in _AUXILIARIES or (len(w) > 3 and w.endswith(("ed", "s"))
                                                    and not w.endswith("ss"))


_AUXILIARIES = frozenset("is was has had does did will would can could may might must "
                         "should and".split())


# a place the message named before: "Speaking of Madrid", "we landed in Porto"
_PLACE = re.compile(r"\b(?i:in|to|from|near|around|visit|visiting|of)\s+((?:[A-Z][a-z]+)"
                    r"(?:\s[A-Z][a-z]+){0,2})")
_THERE = re.compile(r"\b(?:(go|going|goes|went|gone|move|moving|moved|fly|flying|flew|drive|"
                    r"driving|drove|head|heading|headed|get|getting|got|come|coming|came|back)\s+)?"
                    r"there\b(?!['’]s)(?! (?:is|are|was|were)\b)")


def name_there(clause: str, said: str, speakers: list[str]) -> str:
    """Put the one place named earlier in the message where "there" stands ("Speaking of
    Madrid, I'm going there in April" → "going to Madrid"); with none or several, as said."""
    places = {m.group(1) for m in _PLACE.finditer(said)
              if is_name(m.group(1).split()[0]) and m.group(1) not in speakers
              and m.group(1).split()[0].lower() not in WEEKDAYS}
    if len(places) != 1 or not _THERE.search(clause):
        return clause
    place = places.pop()
    return _THERE.sub(lambda m: f"{m.group(1)} to {place}" if m.group(1) else f"in {place}",
                      clause, count=1)


def name_third_person(clause: str, name: str) -> str:
    """Put the name a leading "he" / "she" / "his" / "her" stands for in its place."""
    first = first_word(clause)
    low = first.lower().replace("’", "'")
    if low in ("his", "her", "their"):
        rep = f"{name}'s"
    elif "'" in low:
        rep = name + {"'s": " is", "'ll": " will", "'d": " would"}[low[low.index("'"):]]
    else:
        rep = name
    at = clause.index(first)
    return clause[:at] + rep + clause[at + len(first):]


# one person the speaker names beside themself: "my dad and I", "Priya and I", "me and my
# sister Ana", "with my dad": who a "we" of the same message (or the speaker's message before)
# includes
_BESIDE = re.compile(
    rf"\b(?:[Mm]y\s+({KIN_WORD})(?:\s+([A-Z][a-z]+))?|([A-Z][a-z]+))\s+(?:and|&)\s+I\b"
    rf"|\b[Mm]e\s+(?:and|&)\s+(?:my\s+({KIN_WORD})(?:\s+([A-Z][a-z]+))?|([A-Z][a-z]+))\b"
    rf"|\bwith\s+(?:my\s+({KIN_WORD})(?:\s+([A-Z][a-z]+))?|([A-Z][a-z]+))\b")


# what two do with each other: said of one, it says nothing ("has been together three years")
SHARED = re.compile(r"\b(?:together|each other|one another)\b", re.I)
_AND_MORE = re.compile(r"\s*(?:,|and|&)\s+(?:my\s+\w+|[A-Z][a-z]+)")


def companion(texts: list[str], speaker: str) -> str | None:
    """Who "we" is beside the speaker: the one person the texts name with the speaker ("Dave's
    dad" for "me and my dad"; "Ana" for "my sister Ana and I"), or None when they name no one
    or more than one."""
    found = set()
    for text in texts:
        for m in _BESIDE.finditer(text):
            if _AND_MORE.match(text, m.end()):
                return None       # "with Priya and my dad": more than one beside the speaker
            groups = m.groups()
            kin_word = next((g for g in groups[0::3] if g), None)
            name = next((g for i, g in enumerate(groups) if g and i % 3 != 0), None)
            if name and is_name(name) and name != speaker:
                found.add(name)
            elif kin_word and not name:
                found.add(f"{speaker}'s {kin_word.lower()}")
    return found.pop() if len(found) == 1 else None
