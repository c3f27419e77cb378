"""Knowledge: the semantic memories, every consolidation decision, and for any memory its
versions and where it came from."""

import streamlit as st

from nemori_ui.ui.knowledge_widgets import decision_section, history_section, memory_section
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.mark_widgets import marks_section

TABS = ["Memories", "Decisions"]

data = page_setup("Knowledge")
if data is None:
    st.stop()

active = sum(m.status == "active" for m in data.memories)
st.caption(f"{active} active and {len(data.memories) - active} superseded semantic memories. "
           "A superseded memory is kept, linked to the version that replaced it; only active "
           "ones are searched.")
if not data.memories:
    st.info("This run has no semantic memory yet: nothing the prediction missed has been "
            "consolidated.")
    st.stop()

memories_tab, decisions_tab = st.tabs(TABS, key="knowledge_tab", on_change="rerun")
with memories_tab:
    memory_section(data)
    st.subheader("History and provenance")
    history_section(data)
with decisions_tab:
    decision_section(data)
    marks_section(data.run_id)
