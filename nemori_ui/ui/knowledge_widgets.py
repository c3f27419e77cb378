"""The Knowledge page's parts: the memory table, the decisions, one memory's history and
provenance. Transcript and memory text is shown as text only: tables, st.text, or escaped."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd
import streamlit as st

from ..core.views import knowledge as views
from ..core.views.run_data import RunData
from .mark_widgets import mark_control
from .safe import md_escape
from ..core.views.wording import plural

ACTION_HELP = {"new": "stored as a new memory", "merge": "merged into existing memories",
               "conflict": "replaced a memory it contradicts",
               "summary": "rewrote the running summary"}
TEXT_COLUMN = st.column_config.TextColumn(width="large")


def focus_memory(memory_id: str) -> None:
    """Callback: open the Memories tab on this memory's history."""
    st.session_state.knowledge_memory = memory_id
    st.session_state.knowledge_tab = "Memories"


def memory_section(data: RunData) -> None:
    table = views.memory_table(data)
    c1, c2, c3 = st.columns([1, 1, 2])
    statuses = c1.multiselect("Status", sorted(table["status"].unique()), key="knowledge_status")
    origins = c2.multiselect("Origin", sorted(table["origin"].unique()), key="knowledge_origin",
                             help="new, merge, conflict: the consolidation decision that wrote "
                                  "the memory; append: naive management; summary: flat summary")
    search = c3.text_input("Search the text", key="knowledge_search")
    shown = views.filter_memories(table, statuses=statuses, origins=origins, search=search)
    st.caption(f"{len(shown)} of {plural(len(table), 'memory', 'memories')}")
    event = st.dataframe(shown, hide_index=True, key="knowledge_table", on_select="rerun",
                         selection_mode="single-row",
                         column_config={"text": TEXT_COLUMN,
                                        "seq": st.column_config.NumberColumn(
                                            help="order of the decision that wrote it")})
    picked = event.selection.rows if event else []
    if picked:
        chosen = shown.iloc[picked[0]]["id"]
        if st.session_state.get("knowledge_table_last") != chosen:
            # a new row click moves the history view; later reruns leave a manual choice alone
            st.session_state.knowledge_table_last = chosen
            st.session_state.knowledge_memory = chosen
        st.caption("The selected memory's history is shown below.")


def decision_section(data: RunData) -> None:
    counts = views.decision_counts(data)
    present = [a for a in views.ACTIONS if counts.get(a)]
    cols = st.columns(max(1, len(present)))
    for col, action in zip(cols, present):
        col.metric(action, counts[action], help=ACTION_HELP.get(action))
    actions = st.multiselect("Decisions", present, key="decision_actions",
                             placeholder="all decisions")
    table = views.decision_table(data, actions or None)
    if table.empty:
        st.caption("No consolidation decision in this run yet.")
        return
    st.dataframe(table, hide_index=True, key="decision_table",
                 column_config={"insight": TEXT_COLUMN, "result_text": TEXT_COLUMN,
                                "best_score": st.column_config.NumberColumn(format="%.3f")})
    labels = {int(r.seq): f"#{r.seq} · {r.action} · {r.result_id} · {str(r.insight)[:70]}"
              for r in table.itertuples()}
    seqs = list(labels)
    # show a conflict first when there is one: the most telling decision to open
    first = next((i for i, r in enumerate(table.itertuples()) if r.action == "conflict"), 0)
    seq = st.selectbox("Decision", seqs, index=first, format_func=labels.get,
                       key="decision_seq")
    decision_detail(data, seq)


def decision_detail(data: RunData, seq: int) -> None:
    d = views.decision(data, seq)
    mark_control(data.run_id, seq, "decision")
    with st.container(border=True):
        st.markdown(f"**Decision #{d.seq}**, window {d.window}, episode "
                    f"{md_escape(d.episode_id or '')}: **{md_escape(d.action or '')}** "
                    f"({ACTION_HELP.get(d.action, '')})")
        st.caption("Insight")
        st.text(d.insight)
        if d.before is not None:
            st.caption("Summary before")
            st.text(d.before or "(empty)")
        if len(d.candidates):
            st.caption("Candidates: the most similar active memories at that moment "
                       "(cosine score; targeted = superseded by this decision)")
            st.dataframe(d.candidates, hide_index=True, key=f"decision_candidates_{seq}",
                         column_config={"text": TEXT_COLUMN,
                                        "score": st.column_config.ProgressColumn(
                                            min_value=0.0, max_value=1.0, format="%.3f")})
        st.caption(f"Result: {md_escape(d.result_id or '')}")
        st.text(d.result_text)
        if d.reason:
            st.caption("Reason")
            st.text(d.reason)
        if d.note:
            st.caption("Note")
            st.text(d.note)
        if d.call_ids:
            st.caption(f"LLM calls: {md_escape(', '.join(d.call_ids))} (see Calls and cost)")
        if d.result_id in data.memory_by_id:
            st.button("Show this memory's history", key=f"decision_focus_{seq}",
                      on_click=focus_memory, args=(d.result_id,))


def history_section(data: RunData) -> None:
    ids = [m.id for m in data.memories]
    texts = {m.id: f"{m.id} · {m.status} · {m.text[:80]}" for m in data.memories}
    if st.session_state.get("knowledge_memory") not in texts:
        # default to a memory with a past, a conflict first: it says more than a lone version
        st.session_state.knowledge_memory = next(
            (m.id for m in sorted(data.memories, key=lambda m: m.origin != "conflict")
             if m.supersedes), ids[0])
    memory_id = st.selectbox("Memory", ids, format_func=texts.get, key="knowledge_memory")
    versions = views.history(data, memory_id)
    st.caption(f"{plural(len(versions), 'version')}, oldest first: each replaced the ones it names "
               "at the decision (window, seq) that wrote it.")
    st.dataframe(views.history_table(versions), hide_index=True, key="history_table",
                 column_config={"text": TEXT_COLUMN, "reason": TEXT_COLUMN})
    with st.expander("Full text of each version"):
        for v in versions:
            replaced = f", replaced {', '.join(v.replaced)}" if v.replaced else ""
            by = f", replaced by {v.replaced_by}" if v.replaced_by else ""
            when = f"window {v.window}" + (f", decision #{v.seq}" if v.seq is not None else "")
            st.caption(md_escape(f"{v.id} · {v.origin} · {when}{replaced}{by}"))
            st.text(v.text)
    prov = views.provenance(data, memory_id)
    st.markdown("**Provenance**")
    if prov.episodes:
        st.caption("Source episodes")
        st.dataframe(pd.DataFrame([asdict(e) for e in prov.episodes]), hide_index=True,
                     key="provenance_episodes", column_config={"cue": TEXT_COLUMN})
    if prov.messages:
        st.caption("Source messages")
        st.dataframe(pd.DataFrame([asdict(m) for m in prov.messages]), hide_index=True,
                     key="provenance_messages", column_config={"text": TEXT_COLUMN})
    if not prov.episodes and not prov.messages:
        st.caption("No recorded sources.")
