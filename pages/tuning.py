"""Tuning: every run of this conversation as a sweep, a new sweep, and what-if τ."""

import pandas as pd
import streamlit as st

from nemori_ui.core.store.runs import stored_conversation
from nemori_ui.core.tuning.sweep import best_point
from nemori_ui.core.tuning.whatif import first_changed_window, what_if_tau
from nemori_ui.ui import tints
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.state import get_store
from nemori_ui.ui.sweep_results import named_sweeps
from nemori_ui.ui.jobs.tuning import sweep_section, whatif_histogram, whatif_rerun
from nemori_ui.ui.tuning_widgets import (FIGURES, figure_label, line_plots, parallel,
                                         sibling_points)

data = page_setup("Tuning")
if data is None:
    st.stop()

# the stored messages and questions are the conversation: the file need not be at hand
conv = stored_conversation(get_store(), data.run_id)
sweeps, whatif = st.tabs(["Sweep", "What-if τ"])

with sweeps:
    st.caption("A sweep runs every grid point on each conversation chosen and is kept under "
               "its name; calls whose prompts do not change are answered from the cache. "
               "Every finished run of this conversation is also a point of the last table.")
    sweep_section(data, conv)
    named_sweeps()
    st.subheader("Every run of this conversation")
    table = sibling_points(data.info)
    if table.empty:
        st.info("No finished run of this conversation yet.")
    else:
        has_recall = table["evidence_recall"].notna().any()
        if not has_recall:
            st.caption("No evidence recall: this conversation came without LoCoMo questions "
                       "(or its runs were stored before questions were kept with a run).")
        c1, c2 = st.columns(2)
        metric = c1.selectbox("Best point by", FIGURES, format_func=figure_label,
                              index=0 if has_recall else FIGURES.index("insights"),
                              key="best_metric")
        best = best_point(table, metric)
        if best is not None:
            row = table.loc[best]
            c2.metric(f"Best {figure_label(metric)}", f"{row[metric]:g}",
                      help=f"τ = {row['tau']:g}, w = {row['window']}, {row['variant']}; "
                           f"run {row['run_id']}")
        st.subheader("Filter (brushing)")
        ranges, keep = {}, pd.Series(True, index=table.index)
        cols = st.columns(3)
        for i, col in enumerate(["tau", "window", metric]):
            values = table[col].dropna()
            lo, hi = (float(values.min()), float(values.max())) if len(values) else (0.0, 0.0)
            if hi > lo:
                chosen = cols[i].slider(figure_label(col), lo, hi, (lo, hi), key=f"brush_{col}")
                ranges[col] = chosen
                keep &= table[col].between(*chosen)
        st.plotly_chart(parallel(table, ranges, metric), key="parcoords")
        shown = table[keep]
        # the quality figure beside the parameters, not past the table's right edge
        first = [c for c in ("tau", "window", "variant", "evidence_recall") if c in shown]
        shown = shown[first + [c for c in shown.columns if c not in first]]
        # a column of None says nothing
        listed = shown if has_recall else shown.drop(columns=["evidence_recall"])
        st.dataframe(listed.style.format({"tau": "{:.2f}"}).apply(
            lambda r: [f"background-color: {tints.STRONG_YELLOW}" if r.name == best else "" for _ in r],
            axis=1), hide_index=True,
            column_config={"evidence_recall": st.column_config.NumberColumn(
                "evidence recall@k", format="%.3f")})
        st.caption("Sorted by τ, then w. Highlighted: the best point by the chosen figure "
                   "(lowest for costs and conflicts, highest otherwise).")
        c1, c2 = st.columns(2)
        param = c1.selectbox("Parameter", [p for p in ("tau", "window", "variant") if p in table])
        figure = c2.selectbox("Figure", FIGURES, index=FIGURES.index(metric),
                              format_func=figure_label)
        st.plotly_chart(line_plots(shown, param, figure, best if best in shown.index else None),
                        key="lines")

with whatif:
    st.caption("Which memories each episode would evoke at another τ, from the similarities "
               "stored with this run: no call, no embedding. After the first episode whose "
               "prediction changes, later episodes may see another memory state (downstream).")
    if data.info.config.variant == "nemori-s":
        st.info("Nemori-s makes no prediction, so τ changes nothing in this run.")
    tau = st.slider("τ", 0.0, 1.0, float(data.info.config.tau), 0.01, key="whatif_tau")
    rows = what_if_tau(data, tau)
    changed = [r for r in rows if r.changes == "prediction"]
    left, right = st.columns([3, 2])
    with left:
        st.metric("Episodes whose prediction changes", len(changed))
        every = st.checkbox("Every episode (also those that stay the same or are downstream)",
                            key="whatif_every")
    with right:
        whatif_histogram(data, tau)
    # the table across the page: in a column its evoked counts were scrolled out of sight
    with st.container():
        listed = rows if every else changed
        if not listed:
            st.caption("No episode would evoke other memories at this τ: move the slider, or "
                       "tick the box to list every episode.")
        else:
            st.dataframe(pd.DataFrame([{"episode": r.episode_id, "window": r.window,
                                        "title": r.cue, "changes": r.changes,
                                        "evoked in the run": len(r.evoked_now),
                                        "evoked at this τ": len(r.evoked_then),
                                        "gained": ", ".join(r.gained),
                                        "lost": ", ".join(r.lost)} for r in listed],
                                      columns=["episode", "window", "title", "changes",
                                               "evoked in the run", "evoked at this τ", "gained",
                                               "lost"]),
                         hide_index=True, column_config={"title": st.column_config.TextColumn(
                             width="medium")})
    whatif_rerun(data, conv, tau, first_changed_window(rows))
