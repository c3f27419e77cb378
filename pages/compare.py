"""Compare two runs: partition agreement, a knowledge diff, count and cost deltas, both maps."""

import pandas as pd
import streamlit as st

from nemori_ui.core.summary import run_summary
from nemori_ui.core.tuning.compare import compare_runs
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.state import get_store, list_runs, run_data
from nemori_ui.ui.tuning_widgets import map_figure, map_rows, stable_positions

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
b_id = c2.selectbox("Run B", ids, index=1 if ids[0] == a_id else 0, format_func=names.get,
                    key="cmp_b")
by_id = {r.id: r for r in listed}
a, b = run_data(by_id[a_id]), run_data(by_id[b_id])
store = get_store()
result = compare_runs(a, b, run_summary(store, a_id), run_summary(store, b_id))

if result["identical"]:
    st.success("The two runs hold the same memory.")
if result["config_changes"]:
    st.dataframe(pd.DataFrame([{"setting": k, "A": str(v[0]), "B": str(v[1])}
                               for k, v in result["config_changes"].items()]), hide_index=True)
p = result["partition"]
cols = st.columns(4)
cols[0].metric("Boundary precision", f"{p['precision']:.2f}", help="B's cuts that A also made")
cols[1].metric("Boundary recall", f"{p['recall']:.2f}", help="A's cuts that B also made")
cols[2].metric("WindowDiff", f"{p['window_diff']:.3f}", help="0 = same segmentation")
cols[3].metric("Cuts A / B", f"{p['boundaries_a']} / {p['boundaries_b']}")
if not p["same_messages"]:
    st.warning("The runs are on different transcripts: partition figures compare positions only.")

st.subheader("Counts and cost (B − A)")
st.dataframe(pd.DataFrame([result["deltas"]]), hide_index=True)

st.subheader("Knowledge diff")
k = result["knowledge"]
tabs = st.tabs([f"Only in A ({len(k['only_a'])})", f"Only in B ({len(k['only_b'])})",
                f"Reworded ({len(k['reworded'])})", f"Contradicted ({len(k['contradicted'])})",
                f"Same ({len(k['same'])})"])
for tab, key in zip(tabs, ["only_a", "only_b", "reworded", "contradicted", "same"]):
    with tab:
        st.dataframe(pd.DataFrame(k[key]), hide_index=True)

st.subheader("Both memory maps in one projection")
positions = stable_positions([a, b])
m1, m2 = st.columns(2)
m1.plotly_chart(map_figure(map_rows(a, positions), "A"), key="map_a")
m2.plotly_chart(map_figure(map_rows(b, positions), "B"), key="map_b")
