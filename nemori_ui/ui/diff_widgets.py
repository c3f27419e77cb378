"""Two memories that differ shown word by word: what A says that B drops, and what B adds; and
the memories of a run that predicts beside one that does not."""

from __future__ import annotations

from html import escape

import pandas as pd
import streamlit as st

from nemori_ui.core.tuning.compare import KnowledgeDiff, MemoryPair, PredictionChange
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


def prediction_panel(change: PredictionChange, diff: KnowledgeDiff | None = None, *,
                     figures: bool = True) -> None:
    """Nemori beside Nemori-s on what prediction changes: work saved, the memories that
    differ word by word (given `diff`), and memory-only evidence recall at equal tokens, said
    plainly where prediction shows no gain. Without `figures` (a page that shows them
    already), the verdict and the memories only."""
    st.subheader("What prediction changes")
    if figures:
        _change_figures(change)
    note = change.verdict
    if change.evidence is None:
        note += (" This conversation carries no questions: memory-only evidence recall at "
                 "equal tokens needs a LoCoMo file (run one, then compare its two runs).")
    st.info(note)
    if diff is None:
        return
    tabs = st.tabs([f"Only in Nemori-s ({len(diff.only_b)})",
                    f"Worded otherwise ({len(diff.reworded)})",
                    f"Only in Nemori ({len(diff.only_a)})"])
    with tabs[0]:
        st.dataframe(pd.DataFrame([{"memory": m.id, "text": m.text} for m in diff.only_b]),
                     hide_index=True)
    with tabs[1]:
        pair_diffs(diff.reworded, names=("Nemori", "Nemori-s"))
    with tabs[2]:
        st.dataframe(pd.DataFrame([{"memory": m.id, "text": m.text} for m in diff.only_a]),
                     hide_index=True)


def _change_figures(change: PredictionChange) -> None:
    """Nemori's figures, each with Nemori-s's beneath it."""
    figures = [("Statements predicted", change.predicted, None),
               ("Insights distilled", *change.insights),
               ("Consolidation decisions", *change.decisions),
               ("Memories stored", *change.memories)]
    if change.evidence:
        figures.append((f"Memory-only evidence recall ({change.tokens} tokens)",
                        f"{change.evidence[0]:.1%}", f"{change.evidence[1]:.1%}"))
    cols = st.columns(len(figures))
    for col, (label, ours, theirs) in zip(cols, figures):
        col.metric(f"{label}, Nemori", ours,
                   help=None if theirs is None else f"Nemori-s: {theirs}")
        if theirs is not None:
            col.caption(f"Nemori-s: {theirs}")
