"""The words a benchmark compares texts by, taken from libraries and not from the offline
engine, so that changing the engine never moves the yardstick it is measured with.

Content words are the lower-cased alphabetic words of at least three letters that are not in
scikit-learn's English stop-word list, reduced to their Snowball (Porter 2) stem.
"""

from __future__ import annotations

import re
from functools import lru_cache

import snowballstemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

_WORD = re.compile(r"[a-z]+")
_STEMMER = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    return _STEMMER.stemWord(word)


def content_stems(text: str, names: frozenset[str] = frozenset()) -> set[str]:
    """The stems of the text's content words, less the stems of `names` (people's names say
    who a fact is about, not what it says)."""
    words = _WORD.findall(text.lower().replace("’", "'"))
    drop = {_stem(n.lower()) for n in names}
    return {_stem(w) for w in words if len(w) >= 3 and w not in ENGLISH_STOP_WORDS} - drop
