"""The Evaluation page's report of the engine's agreement with readers' marks on the memory the
evaluation built, and the way to the pages where those decisions are marked."""

from __future__ import annotations

import streamlit as st

from ..core.eval import results
from ..core.eval.agreement import StageAgreement, agreement_csv, eval_marks, stage_agreement
from ..core.store import runs
from .state import get_store

PAGE_OF = {"knowledge": "pages/knowledge.py", "prediction error": "pages/prediction_error.py",
           "partitions": "pages/partitions.py"}


def run_agreement(run: results.EvalRun) -> list[StageAgreement]:
    return stage_agreement(eval_marks(get_store(), run.memory_runs))


def _share(row: StageAgreement) -> str:
    return "–" if row.share is None else f"{100 * row.share:.0f} %"


def agreement_section(run: results.EvalRun, rows: list[StageAgreement]) -> None:
    st.subheader("Agreement with readers' marks")
    memory = _memory_runs(run)
    if not memory:
        st.caption("This evaluation kept no memory run (a memoryless variant, or its runs were "
                   "deleted): there is no decision of its to mark.")
        return
    st.dataframe([{"stage": r.page, "decisions marked": r.marked, "marked right": r.right,
                   "marked wrong": r.wrong, "share right": _share(r)} for r in rows],
                 hide_index=True, key=f"eval_agreement_{run.id}")
    marked = sum(r.marked for r in rows)
    st.caption((f"{marked} decision{'s' if marked != 1 else ''} of this evaluation's memory "
                "marked by a reader; the share right is how often the engine decided as the "
                "reader says it should have." if marked else
                "No decision of this evaluation's memory is marked yet.")
               + " Marks made later count here at once.")
    c1, c2, c3, c4 = st.columns([2, 1.4, 0.8, 2], vertical_alignment="bottom")
    if len(memory) > 1:
        conv = c1.selectbox("Memory of", list(memory), key=f"eval_mark_conv_{run.id}",
                            format_func=lambda c: f"{c} · {memory[c]}")
    else:
        conv = next(iter(memory))
        c1.caption(f"Its memory: {conv} · run {memory[conv]}")
    page = c2.selectbox("Mark its decisions on", list(PAGE_OF), key=f"eval_mark_page_{run.id}")
    if c3.button("Open", key=f"eval_mark_open_{run.id}", width="stretch",
                 help=f"shows run {memory[conv]} ({conv}) on the page chosen"):
        st.session_state.run_id = memory[conv]
        st.switch_page(PAGE_OF[page])
    c4.download_button("Agreement (CSV)", agreement_csv(run.id, rows),
                       file_name=f"{run.id}-agreement.csv", mime="text/csv",
                       key=f"eval_csv_a_{run.id}", width="stretch",
                       help="per stage: decisions marked, right, wrong, share right")


def _memory_runs(run: results.EvalRun) -> dict[str, str]:
    """The evaluation's memory runs that are still stored, by conversation."""
    stored = {r.id for r in runs.list_runs(get_store())}
    return {conv: rid for conv, rid in run.memory_runs.items() if rid in stored}
