"""Compare two runs: partition agreement, a knowledge diff, count and cost deltas, both maps."""

from dataclasses import asdict

import pandas as pd
import streamlit as st

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.run_figures import run_figures
from nemori_ui.core.store.runs import stored_conversation, stored_hash
from nemori_ui.core.tuning.compare import compare_runs, partner_runs, prediction_change
from nemori_ui.ui.diff_widgets import pair_diffs, prediction_panel
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.state import get_store, list_runs, run_data
from nemori_ui.ui.tuning_widgets import map_figure, map_rows, shared_axes, stable_positions
from nemori_ui.core.views.wording import plural

data = page_setup("Compare runs")
listed = list_runs()
if data is None or len(listed) < 2:
    if data is not None:
        st.info("Compare needs two runs: run the same transcript again with other settings.")
    st.stop()

names = {r.id: f"{r.name} · {r.id}" for r in listed}
ids = list(names)
c1, c2 = st.columns(2)
a_id = c1.selectbox("Run A", ids, index=ids.index(data.run_id), format_func=names.get, key="cmp_a")
store = get_store()
# B defaults to another run of the same conversation: only then do cuts and facts line up
partners = partner_runs(listed, a_id, lambda i: stored_hash(store, i))
default_b = partners[0] if partners else next(i for i in ids if i != a_id)
b_id = c2.selectbox("Run B", ids, index=ids.index(default_b), format_func=names.get,
                    key=f"cmp_b_{a_id}")
if not partners:
    st.info("No other run of this conversation: run it again with other settings to compare "
            "partitions. B is a run of another transcript, so only counts, cost and knowledge "
            "are compared.")
by_id = {r.id: r for r in listed}
a, b = run_data(by_id[a_id]), run_data(by_id[b_id])
result = compare_runs(a, b, run_figures(store, a_id), run_figures(store, b_id))

if result.identical:
    st.success("The two runs hold the same memory.")
if result.config_changes:
    st.dataframe(pd.DataFrame([{"setting": k, "A": str(v[0]), "B": str(v[1])}
                               for k, v in result.config_changes.items()]), hide_index=True)
p = result.partition
if p.same_messages:
    cols = st.columns(4)
    cols[0].metric("Boundary precision", f"{p.precision:.2f}",
                   help="B's cuts that A also made")
    cols[1].metric("Boundary recall", f"{p.recall:.2f}", help="A's cuts that B also made")
    cols[2].metric("WindowDiff", f"{p.window_diff:.3f}", help="0 = same segmentation")
    cols[3].metric("Cuts A / B", f"{p.boundaries_a} / {p.boundaries_b}")
else:
    st.warning(f"The runs are on different transcripts: their cuts cannot be compared "
               f"({plural(p.boundaries_a, 'cut')} in A, {p.boundaries_b} in B).")

st.subheader("Counts and cost (B − A)")
st.dataframe(pd.DataFrame([asdict(result.deltas)]), hide_index=True)

if {a.info.config.variant, b.info.config.variant} == {"nemori", "nemori-s"}:
    embedder = build_clients(PipelineConfig(embedder=a.info.config.embedder), store).embedder
    # the memories that differ are the knowledge diff below
    prediction_panel(prediction_change(a, b, stored_conversation(store, a_id), embedder.embed))

st.subheader("Knowledge diff")
k = result.knowledge
tabs = st.tabs([f"Only in A ({len(k.only_a)})", f"Only in B ({len(k.only_b)})",
                f"Reworded ({len(k.reworded)})", f"Contradicted ({len(k.contradicted)})",
                f"Same ({len(k.same)})"])
for tab, key in zip(tabs, ["only_a", "only_b", "reworded", "contradicted", "same"]):
    found = getattr(k, key)
    with tab:
        st.dataframe(pd.DataFrame([asdict(x) for x in found]), hide_index=True)
        if key in ("reworded", "contradicted"):
            pair_diffs(found)

st.subheader("Both memory maps in one projection")
positions = stable_positions([a, b])
axes = shared_axes(positions)
m1, m2 = st.columns(2)
m1.plotly_chart(map_figure(map_rows(a, positions), "A", axes=axes), key="map_a")
m2.plotly_chart(map_figure(map_rows(b, positions), "B", axes=axes), key="map_b")
