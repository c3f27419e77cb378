"""Memory over time: the memory as it stood after any message, on a map whose points stay put."""

import pandas as pd
import streamlit as st

from nemori_ui.core.tuning.timeline import state_after
from nemori_ui.ui.append_form import appends_strip, stored_markers
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.safe import md_escape
from nemori_ui.ui.tuning_widgets import map_figure, map_rows, stable_positions

data = page_setup("Memory over time")
if data is None:
    st.stop()

turn = st.slider("After message", 1, len(data.messages), len(data.messages), key="turn")
state = state_after(data, turn - 1)
message = data.messages[turn - 1]
st.text(f"{message.id} · {message.speaker}: {message.text[:200]}")
cols = st.columns(3)
cols[0].metric("Windows processed", state.windows_done)
cols[1].metric("Active episodes", len(state.episodes))
cols[2].metric("Active memories", len(state.memories))
processed = state.processed_through
if processed < turn:
    st.caption(md_escape(f"Messages after {processed} are still in the buffer: memory changes "
                         "when a window fills."))
appended = stored_markers(data.run_id)
if appended:
    st.plotly_chart(appends_strip(len(data.messages), appended, turn), key="timeline_appends",
                    config={"displayModeBar": False})
    st.caption("Orange lines: where each append started, with its source; the diamond is the "
               "message chosen above.")

positions = stable_positions([data])
alive = set(state.episodes) | set(state.memories)
st.plotly_chart(map_figure(map_rows(data, positions, keep=alive), "Memory at this turn"),
                key="timeline_map")
st.dataframe(pd.DataFrame([{"id": m.id, "text": m.text} for m in data.memories
                           if m.id in state.memories]), hide_index=True)
