"""Family and friends the speaker names by how they are related, not by name.

"I need a gift for my mum, she turns 60 on 2 April" says the speaker's mum turns 60; "Mum
loved the cookbook" says it too. A statement that reads "She turns 60" or "Mum loved the
cookbook" names no one a reader could find, so the "she" (or the "Mum") becomes "my mum", which
the pronoun pass turns into the speaker's. A "she" stands for a relative only when the words
before it in the same message name exactly one of the right gender and no one else unnamed
("your sister", "the doctor") could be meant; a "they" only when they name exactly one group
("my kids", "my husband and kids") and nothing plural comes after it. Anything less sure is
left as said, and the statement is dropped as before.
"""

from __future__ import annotations

import re

from .text import words

_FEMALE = "mum mom mother sister wife daughter aunt niece grandma grandmother granny " \
          "girlfriend stepmum stepmom".split()
_MALE = "dad father brother husband son uncle nephew grandpa grandfather grandad granddad " \
        "boyfriend stepdad".split()
_GROUP = "kids children parents family fam folks friends grandparents siblings sisters " \
         "brothers sons daughters cousins grandkids grandchildren in-laws".split()
_ONE = _FEMALE + _MALE + "partner spouse".split()

_KIN_WORD = "|".join(sorted(_ONE + _GROUP, key=len, reverse=True))
KIN_WORD = _KIN_WORD      # the alternatives of a kin word, for a pattern of another rule
# "my mum", "my little sister", "my husband and kids", "my mum and dad"; a name after it
# ("my sister Ana") is a name, which the referents pass gives
_MY_KIN = re.compile(rf"\bmy\s+((?:[a-z]+\s+)?(?:{_KIN_WORD})(?:\s+and\s+(?:my\s+)?"
                     rf"(?:{_KIN_WORD}))?)(?:['’]s)?\b(?!\s+(?-i:[A-Z]))", re.I)
# someone else a "she" or "he" could be: "your mum", "the doctor", "her boss"
_OTHER = re.compile(r"\b(?:your|his|her|their|the|our)\s+(?:[a-z]+\s+)?(" + _KIN_WORD +
                    r"|doctor|teacher|boss|manager|neighbour|neighbor|friend|colleague)\b", re.I)
# how a mother or father is called by name, at the start of a clause: "Mum loved it"
KIN_NAMES = {"Mum": "mum", "Mom": "mom", "Mummy": "mum", "Mommy": "mom", "Mama": "mum",
             "Dad": "dad", "Daddy": "dad", "Papa": "dad", "Grandma": "grandma",
             "Grandpa": "grandpa", "Granny": "granny", "Grandad": "grandad"}

_FORMS = {"'s": " is", "'re": " are", "'ve": " have", "'ll": " will", "'d": " would"}
_HAS_NEXT = ("been", "got", "gotten")


def _gender(phrase: str) -> str:
    """"f", "m", "group" or "" (a partner, of no gender a "he" or "she" can be sure of)."""
    last = phrase.lower().split()
    if "and" in last:
        return "group"
    noun = last[-1]
    return "f" if noun in _FEMALE else "m" if noun in _MALE else \
        "group" if noun in _GROUP else ""


def _plural_after(said: str, end: int) -> bool:
    """A plural-looking word after the group: "for my kids, pancakes were ..." is ambiguous."""
    return any(len(w) > 3 and w.lower().endswith("s") and not w.lower().endswith(("ss", "'s"))
               for w in words(said[end:]))


def kin_for(pronoun: str, said: str) -> str | None:
    """The one relative of the speaker that `pronoun` ("she", "he", "they", …) stands for in
    a message whose words before it are `said`, as "my …"; None when not sure."""
    low = pronoun.lower().replace("’", "'").split("'")[0]
    want = {"she": "f", "her": "f", "he": "m", "his": "m", "they": "group",
            "their": "group"}.get(low)
    if not want:
        return None
    found = {}
    for m in _MY_KIN.finditer(said):
        phrase = " ".join(m.group(1).split())
        if _gender(phrase) == want:
            found[phrase.lower()] = m
    others = [m for m in _OTHER.finditer(said) if _gender(m.group(1)) in (want, "")]
    if len(found) != 1 or others:
        return None
    phrase, m = next(iter(found.items()))
    if want == "group" and _plural_after(said, m.end()):
        return None
    return "my " + phrase


def with_kin(clause: str, said: str) -> str | None:
    """`clause` with its opening "she" / "he" / "they" (or "her" / "his" / "their") put as
    the relative it stands for: "she's been learning Italian" → "my mum has been learning
    Italian"; None when the relative is not certain."""
    found = re.match(r"\s*([A-Za-z]+)(['’][a-z]+)?\b", clause)
    if not found:
        return None
    kin = kin_for(found.group(1), said)
    if kin is None:
        return None
    low, tail = found.group(1).lower(), (found.group(2) or "").replace("’", "'")
    rest = clause[found.end():]
    if low in ("her", "his", "their"):
        return f"{kin}'s{rest}"
    if tail == "'s" and rest.split()[:1] and rest.split()[0].lower() in _HAS_NEXT:
        return f"{kin} has{rest}"
    return f"{kin}{_FORMS.get(tail, tail)}{rest}"


def own_kin(clause: str) -> str:
    """"Mum loved the cookbook" → "my mum loved the cookbook": a parent called by how they are
    related is the speaker's."""
    first = clause.lstrip().split(" ", 1)[0] if clause.strip() else ""
    bare = first.rstrip(",.!?")
    if bare.endswith(("'s", "’s")) and bare[:-2] in KIN_NAMES:
        return f"my {KIN_NAMES[bare[:-2]]}'s" + clause.lstrip()[len(bare):]
    if bare in KIN_NAMES and bare == first:
        return f"my {KIN_NAMES[bare]}" + clause.lstrip()[len(bare):]
    return clause
