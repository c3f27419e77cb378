"""A named sweep read back on the Tuning page: each point's figures as mean ± sd across the
conversations it ran on, and the share of a figure's spread each parameter explains."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ..core.store import runs, sweeps
from ..core.tuning.across import conversation_label
from ..core.tuning.spread import importance, mean_sd, spread
from ..core.tuning.sweep import ORDER, flat
from .state import get_store, sweep_point
from .tuning_widgets import FIGURES, figure_label

LAST_NAMED = "sweep_last_named"       # the name of the sweep this session ran last
SHOWN = ["evidence_recall", "episodes", "insights", "active_memories", "merges", "conflicts",
         "stored_tokens", "calls_made"]


def sweep_rows(store, sweep_id: str) -> pd.DataFrame:
    """One row per finished run of the sweep: its parameters, figures and conversation."""
    rows = []
    for member in sweeps.members(store, sweep_id):
        info = runs.get_run(store, member.run_id)
        if info.status == "done":
            rows.append({**flat(sweep_point(info)),
                         "conversation": conversation_label(member.conversation)})
    return pd.DataFrame(rows)


def pick_sweep(listed: list[sweeps.SweepInfo]) -> sweeps.SweepInfo:
    names = [s.name for s in listed]
    last = st.session_state.get(LAST_NAMED)
    # the session's last sweep until the reader picks another
    if last in names and st.session_state.get("named_sweep_for") != last:
        st.session_state.named_sweep = last
        st.session_state.named_sweep_for = last
    by_name = {s.name: s for s in listed}
    return by_name[st.selectbox("Named sweep", names, key="named_sweep")]


def importance_chart(found: list[dict], figure: str) -> go.Figure:
    shown = list(reversed(found))       # the most important on top
    fig = go.Figure(go.Bar(x=[r["share"] for r in shown],
                           y=[f"{r['parameter']} ({r['levels']} values)" for r in shown],
                           orientation="h", marker_color="#4c78a8",
                           text=[f"{r['share']:.0%}" for r in shown],
                           # inside a long bar, past a short one: never cut at the right
                           textposition=["inside" if r["share"] > 0.5 else "outside"
                                         for r in shown], cliponaxis=False))
    fig.update_layout(title=f"Share of the variance of {figure_label(figure)} explained",
                      height=120 + 40 * len(shown), margin={"l": 10, "r": 10, "t": 40, "b": 30},
                      xaxis={"range": [0, 1], "tickformat": ".0%"})
    return fig


def named_sweeps() -> None:
    st.subheader("Named sweeps")
    store = get_store()
    listed = sweeps.list_sweeps(store)
    if not listed:
        st.caption("No named sweep yet: name one and choose its conversations above.")
        return
    chosen = pick_sweep(listed)
    rows = sweep_rows(store, chosen.id)
    if rows.empty:
        st.caption(f"No point of {chosen.name} has finished yet.")
        return
    params = [p for p in ORDER if p in chosen.grid and p in rows]
    points = spread(rows, params, FIGURES)
    figures = [f for f in SHOWN if f"{f}_mean" in points and points[f"{f}_mean"].notna().any()
               and not (f == "calls_made" and not points[f"{f}_mean"].any())]
    conversations = rows["conversation"].nunique()
    table = points[params + ["conversations"]].copy()
    for p in params:
        table[p] = table[p].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    for f in figures:
        table[figure_label(f)] = [mean_sd(m, s) for m, s in
                                  zip(points[f"{f}_mean"], points[f"{f}_sd"])]
    # a table, not a grid: a few points, and "0.41 ± 0.03" is read, not sorted
    st.table(table, hide_index=True)
    st.caption(f"{len(points)} points over {conversations} conversation(s): each figure is "
               "the mean ± sd (sample sd) across the conversations a point ran on.")
    c1, c2 = st.columns([1, 2])
    first = next((f for f in ("evidence_recall", "insights") if f in figures), figures[0])
    figure = c1.selectbox("Importance of the parameters for", figures,
                          index=figures.index(first), format_func=figure_label,
                          key="importance_figure")
    found = importance(points.rename(columns={f"{figure}_mean": figure}), params, figure)
    with c2:
        if found:
            st.plotly_chart(importance_chart(found, figure), key="importance",
                            config={"displayModeBar": False})
            if len(found) == 1:
                st.caption(f"Only {found[0]['parameter']} takes several values here, so it "
                           "explains whatever the points differ by: sweep a second parameter "
                           "to weigh one against the other.")
            elif not any(r["share"] for r in found):
                st.caption(f"No point's mean {figure_label(figure)} differs from another's.")
            st.caption("The share of the spread of the points' means that lies between a "
                       "parameter's values (η²); the rest is how parameters act together.")
        else:
            st.caption("Parameter importance needs a parameter swept over two values or more.")
    with st.expander(f"Every run of {chosen.name}"):
        st.dataframe(rows[["conversation", *params, "run_id", *figures]], hide_index=True)
