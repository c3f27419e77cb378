"""Word-level differences between two texts, for memories that say nearly the same thing.

difflib's matcher over words (whitespace kept with the word before it), so a reworded memory
shows what was added and what was dropped rather than two whole sentences side by side.
"""

from __future__ import annotations

import difflib
import re
from typing import Literal

from pydantic import BaseModel

_WORD = re.compile(r"\S+\s*")


class Piece(BaseModel):
    kind: Literal["same", "removed", "added"]
    text: str


def word_diff(before: str, after: str) -> list[Piece]:
    """The words of `before` and `after` in order: kept, removed from before, added in after."""
    a, b = _WORD.findall(before.strip()), _WORD.findall(after.strip())
    # compare words without their trailing space: "dog " and "dog" are the same word
    matcher = difflib.SequenceMatcher(a=[w.strip() for w in a], b=[w.strip() for w in b],
                                      autojunk=False)
    out: list[Piece] = []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.append(Piece(kind="same", text="".join(b[j1:j2])))
            continue
        if i2 > i1:
            out.append(Piece(kind="removed", text="".join(a[i1:i2])))
        if j2 > j1:
            out.append(Piece(kind="added", text="".join(b[j1:j2])))
    # the last word of either text has no space after it: keep it apart from a piece after it
    for piece in out[:-1]:
        if not piece.text[-1:].isspace():
            piece.text += " "
    return out
