"""Trace: one window's decisions as spans on a timeline, with latency, tokens, cache hits and
retries, each opening its prompt and reply (or the offline engine's rule and score)."""

import pandas as pd
import streamlit as st

from nemori_ui.core.store import records
from nemori_ui.core.views.trace import stage_totals, window_trace
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.state import get_store
from nemori_ui.ui.trace_widgets import (SPAN_COLUMNS, span_detail, span_name, span_table,
                                        timeline_figure)

data = page_setup("Trace")
if data is None:
    st.stop()
run_id = data.info.id
store = get_store()
windows = records.event_windows(store, run_id)
if not windows:
    st.info("This run has no window processed yet.")
    st.stop()
window = st.selectbox("Window", windows, format_func=lambda w: f"window {w + 1} of "
                      f"{data.info.windows_total}", key=f"trace_window_{run_id}")
events = records.load_events(store, run_id, window=window)
wanted = [i for e in events for i in e.call_ids]
calls = {c.id: c for c in records.load_calls_by_id(store, run_id, wanted)}
trace = window_trace(window, events, list(calls.values()))

cols = st.columns(5)
cols[0].metric("Decisions", len(trace.spans))
cols[1].metric("Calls", sum(s.calls for s in trace.spans))
cols[2].metric("Cached", sum(s.cached for s in trace.spans))
cols[3].metric("Retries", sum(s.retries for s in trace.spans))
cols[4].metric("Wall time", f"{trace.duration_s:.1f} s" if trace.timed else "–")
if trace.timed:
    st.plotly_chart(timeline_figure(trace), key=f"trace_chart_{run_id}_{window}",
                    config={"displayModeBar": False})
    st.caption("Each bar runs from a decision's first request to its last reply; calls served "
               "from the cache and the offline engine's decisions take no time and are in the "
               "table only.")
else:
    st.caption("Every decision of this window was made by the offline engine (or served from "
               "the cache): nothing was timed, so the spans are listed in the order they were "
               "made, each with the rule and score that decided it.")
totals = pd.DataFrame([t.model_dump() for t in stage_totals(trace)])
st.dataframe(totals.rename(columns=lambda c: c.replace("_", " ")), hide_index=True,
             key=f"trace_totals_{run_id}_{window}")
st.subheader("Spans")
st.dataframe(span_table(trace), hide_index=True, key=f"trace_spans_{run_id}_{window}",
             column_config=SPAN_COLUMNS)
names = [span_name(s) for s in trace.spans]
# the first decision a model made is where a trace is usually read from
first = next((i for i, s in enumerate(trace.spans) if s.calls), 0)
chosen = st.selectbox("Open a span", range(len(names)), index=first, format_func=names.__getitem__,
                      key=f"trace_span_{run_id}_{window}")
span = trace.spans[chosen]
span_detail(span, next(e for e in events if e.seq == span.seq), calls, run_id, data.info.config)
