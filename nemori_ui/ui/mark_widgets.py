"""Marking a decision right or wrong, and the list of a run's marks with their export."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from nemori_ui.core.store import marks as store_marks
from nemori_ui.ui.safe import md_escape
from nemori_ui.ui.state import get_store
from ..core.views.wording import plural

VERDICTS = ["right", "wrong"]


def mark_control(run_id: str, seq: int, what: str) -> None:
    """A popover marking decision `seq` right or wrong, with the right one when wrong."""
    store = get_store()
    current = next((m for m in store_marks.load_marks(store, run_id) if m.seq == seq), None)
    said = f" (marked {current.verdict})" if current else ""
    with st.popover(f"Mark this {what}{said}", icon=":material/rate_review:"):
        verdict = st.radio("This decision is", VERDICTS, horizontal=True,
                           index=VERDICTS.index(current.verdict) if current else 0,
                           key=f"mark_verdict_{run_id}_{seq}")
        correction = st.text_area(
            "What it should have been (for a wrong one)",
            value=current.correction if current else "", key=f"mark_fix_{run_id}_{seq}",
            placeholder="e.g. merge with sm0012; or: this is chatter, not a fact")
        c1, c2 = st.columns(2)
        if c1.button("Save mark", key=f"mark_save_{run_id}_{seq}", type="primary"):
            store_marks.set_mark(store, run_id, seq, verdict, correction)
            st.rerun()
        if current and c2.button("Clear mark", key=f"mark_clear_{run_id}_{seq}"):
            store_marks.clear_mark(store, run_id, seq)
            st.rerun()


def marks_section(run_id: str) -> None:
    """Every mark of the run, the engine's agreement with them, the labelled set to download."""
    store = get_store()
    listed = store_marks.load_marks(store, run_id)
    st.subheader("Your marks on this run")
    if not listed:
        st.caption("None yet: mark a decision right or wrong here, on Prediction error or on "
                   "Partitions, and it is listed with the engine's agreement, ready to export "
                   "as a labelled set.")
        return
    agree = store_marks.agreement(listed)
    st.caption(" · ".join(f"{md_escape(a.stage)}: the engine agrees with you on {a.right} of "
                          f"{a.marked} ({100 * a.share:.0f} %)" for a in agree))
    st.dataframe(pd.DataFrame([m.model_dump(exclude={"run_id"}) for m in listed]),
                 hide_index=True, key=f"marks_{run_id}")
    st.download_button(f"Export the {plural(len(listed), 'marked decision')} (JSON lines)",
                       store_marks.labelled_set(store, run_id),
                       file_name=f"{run_id}-marks.jsonl", mime="application/x-ndjson",
                       key=f"marks_export_{run_id}")
