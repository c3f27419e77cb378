"""A named sweep read back on the Tuning page: each point's figures as mean ± sd across the
conversations it ran on, and the share of a figure's spread each parameter explains."""

from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from ..core.store import sweeps
from ..core.tuning.across import sweep_rows
from ..core.tuning.spread import (ParameterShare, importance, shown_figures, spread,
                                  spread_table)
from ..core.tuning.sweep import ORDER
from .state import get_store, sweep_point
from .tuning_widgets import FIGURES, figure_label
from ..core.views.wording import plural

LAST_NAMED = "sweep_last_named"       # the name of the sweep this session ran last


def pick_sweep(listed: list[sweeps.SweepInfo]) -> sweeps.SweepInfo:
    names = [s.name for s in listed]
    last = st.session_state.get(LAST_NAMED)
    # the session's last sweep until the reader picks another
    if last in names and st.session_state.get("named_sweep_for") != last:
        st.session_state.named_sweep = last
        st.session_state.named_sweep_for = last
    by_name = {s.name: s for s in listed}
    return by_name[st.selectbox("Named sweep", names, key="named_sweep")]


def importance_chart(found: list[ParameterShare], figure: str) -> go.Figure:
    shown = list(reversed(found))       # the most important on top
    fig = go.Figure(go.Bar(x=[r.share for r in shown],
                           y=[f"{r.parameter} ({r.levels} values)" for r in shown],
                           orientation="h", marker_color="#4c78a8",
                           text=[f"{r.share:.0%}" for r in shown],
                           # inside a long bar, past a short one: never cut at the right
                           textposition=["inside" if r.share > 0.5 else "outside"
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
    rows = sweep_rows(store, chosen.id, sweep_point)
    if rows.empty:
        st.caption(f"No point of {chosen.name} has finished yet.")
        return
    params = [p for p in ORDER if p in chosen.grid and p in rows]
    points = spread(rows, params, FIGURES)
    figures = shown_figures(points)
    conversations = rows["conversation"].nunique()
    table = spread_table(points, params, figures).rename(columns=figure_label)
    # a table, not a grid: a few points, and "0.41 ± 0.03" is read, not sorted
    st.table(table, hide_index=True)
    st.caption(f"{plural(len(points), 'point')} over {plural(conversations, 'conversation')}: "
               f"each figure is "
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
                st.caption(f"Only {found[0].parameter} takes several values here, so it "
                           "explains whatever the points differ by: sweep a second parameter "
                           "to weigh one against the other.")
            elif not any(r.share for r in found):
                st.caption(f"No point's mean {figure_label(figure)} differs from another's.")
            st.caption("The share of the spread of the points' means that lies between a "
                       "parameter's values (η²); the rest is how parameters act together.")
        else:
            st.caption("Parameter importance needs a parameter swept over two values or more.")
    with st.expander(f"Every run of {chosen.name}"):
        st.dataframe(rows[["conversation", *params, "run_id", *figures]], hide_index=True)
