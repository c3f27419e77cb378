"""The prediction-error demo: what Nemori stores beside Nemori-s, which stores without predicting."""

import pandas as pd
import streamlit as st

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.tuning.demo import prediction_demo
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.state import current_run, get_store, list_runs, run_data
from nemori_ui.ui.tuning_widgets import run_demo_pair

page_setup("Prediction-error demo", needs_run=False)
st.markdown("Nemori predicts each episode from what it already knows and stores only what the "
            "prediction missed. Nemori-s stores everything it distils. Same transcript, same "
            "engine: the difference is what prediction saved.")

pair = st.session_state.get("demo_runs")
known = {r.id: r for r in list_runs()}
if st.button("Run the demo on the bundled sample", type="primary", key="demo_button") \
        or (pair and not all(i in known for i in pair)):
    with st.spinner("running Nemori and Nemori-s on the sample (offline engine)"):
        pair = run_demo_pair()
    known = {r.id: r for r in list_runs()}
if not pair:
    st.info("Press the button: both runs take a few seconds with the offline engine.")
    st.stop()

nemori, direct = run_data(known[pair[0]]), run_data(known[pair[1]])
embedder = build_clients(PipelineConfig(), get_store()).embedder
demo = prediction_demo(nemori, direct, embedder)
cols = st.columns(2)
for col, key, title in ((cols[0], "nemori", "Nemori (predicts first)"),
                        (cols[1], "nemori_s", "Nemori-s (no prediction)")):
    figures = demo[key]
    col.subheader(title)
    col.metric("Insights distilled", figures["insights"])
    col.metric("Memories stored", figures["memories"])
    col.metric("Tokens stored", figures["tokens"])

st.subheader("Repeated facts Nemori skipped because it predicted them")
skipped = pd.DataFrame(demo["skipped_as_predicted"])
if not skipped.empty:
    skipped = skipped.rename(columns={"text": "fact, as said again", "predicted_by":
                                      "memory that predicted it", "score": "similarity",
                                      "message_id": "message", "episode_id": "episode"})
st.dataframe(skipped, hide_index=True)
st.subheader("Surprising facts both kept")
st.dataframe(pd.DataFrame(demo["kept_by_both"]), hide_index=True)
current = current_run()
if current and current.id not in pair:
    st.caption("The demo runs are saved like any other: pick one in the sidebar to inspect it.")
