"""Home: what the inspector does, how to start, and the current run at a glance."""

import streamlit as st

from nemori_ui.core.views.wording import plural
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.state import current_run, figures, health as run_health

data = page_setup("Nemori Inspector", needs_run=False, whole_run=False)

st.markdown(
    "Nemori keeps what it **could not predict**. It cuts a conversation into episodes, writes "
    "each as a narrative, predicts what a new episode should hold from what it already knows, "
    "and stores only what that prediction missed, as new, merged or conflicting knowledge. "
    "This inspector runs that pipeline on a transcript and shows every decision it made.")

st.subheader("Start")
c1, c2, c3 = st.columns(3)
c1.markdown("**1. Run** the bundled sample or upload a transcript (LoCoMo, LongMemEval, "
            "chat JSON, JSONL, CSV or `Speaker: text` lines).")
c2.markdown("**2. Follow the stages**: partitions, episodes, prediction error, knowledge.")
c3.markdown("**3. Explore** the memory map, ask questions, and check calls and cost.")
st.page_link("pages/run.py", label="Run the pipeline", icon=":material/play_arrow:")
if st.button("Demo prediction error on the sample", key="overview_demo",
             help="Runs Nemori and Nemori-s on the bundled sample and shows them side by side"):
    st.session_state.demo_requested = True    # the demo page runs what is not stored yet
    st.switch_page("pages/demo.py")
if st.button("Watch the memory react live: the demo script on the Live page", key="overview_live",
             help="A new offline memory (w = 10) with a short script loaded: step or play it "
                  "and see a fact predicted and not stored, a merge and a conflict"):
    st.session_state.live_demo_requested = True    # the Live page creates and loads it
    st.switch_page("pages/live.py")

if data is not None:
    st.subheader("Current run")
    headline = figures(current_run())
    st.text(headline.name)
    cols = st.columns(7)
    cols[0].metric("Messages", headline.messages)
    cols[1].metric("Episodes", headline.episodes, help="active episodes after integration")
    cols[2].metric("Integrated", headline.integrated)
    cols[3].metric("Insights", headline.insights)
    cols[4].metric("Predicted", headline.predicted,
                   help="facts told again that the memory predicted from an earlier episode, "
                        "so not stored (the offline engine reports them)")
    cols[5].metric("Memories", headline.semantic_memories, help="active semantic memories")
    if headline.llm.calls or headline.llm.cached:
        cols[6].metric("LLM calls", headline.llm.calls)
    else:   # the offline engine makes no call: a counter of zeros says nothing
        cols[6].metric("LLM calls", "none", help="decided without an LLM")
    d = headline.decisions
    st.caption(f"Consolidation: {d['new']} new · {d['merge']} merged · {plural(d['conflict'], 'conflict')}")
    soundness = run_health(current_run())
    if soundness.degraded:
        st.warning(f"{soundness.describe()}: see Calls and cost.")
    elif soundness.calls:
        st.caption(f"All {soundness.calls} LLM calls answered; no fallback decisions.")
    st.page_link("pages/prediction_error.py", label="See where the memory was surprised",
                 icon=":material/track_changes:")
