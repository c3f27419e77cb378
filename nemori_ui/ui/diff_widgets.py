"""Two memories that differ shown word by word: what A says that B drops, and what B adds."""

from __future__ import annotations

from html import escape

import streamlit as st

from nemori_ui.core.tuning.compare import MemoryPair
from nemori_ui.core.word_diff import word_diff
from nemori_ui.ui import tints

STYLE = {"removed": f"background:{tints.RED};text-decoration:line-through",
         "added": f"background:{tints.GREEN}"}
SHOWN = 25


def diff_html(before: str, after: str) -> str:
    parts = []
    for piece in word_diff(before, after):
        text = escape(piece.text)
        parts.append(text if piece.kind == "same" else
                     f'<span class="wd-{piece.kind}" style="{STYLE[piece.kind]}">{text}</span>')
    return "".join(parts)


def pair_diffs(pairs: list[MemoryPair], *, names: tuple[str, str] = ("A", "B")) -> None:
    """Each pair's texts as one line of word differences, the first SHOWN of them; `names`
    says in the caption which run is A and which is B."""
    if not pairs:
        return
    rows = "".join(f'<div style="margin:0.3em 0"><code>{escape(p.a)}</code> → '
                   f'<code>{escape(p.b)}</code>: {diff_html(p.text_a, p.text_b)}</div>'
                   for p in pairs[:SHOWN])
    # st.html, not markdown: the texts are escaped as HTML and nothing in them is markup
    st.html(f'<div class="word-diffs">{rows}</div>')
    more = f" (the first {SHOWN} of {len(pairs)})" if len(pairs) > SHOWN else ""
    st.caption(f"Word by word{more}: struck through, what {names[0]} says and {names[1]} does "
               f"not; highlighted, what {names[1]} adds.")
