"""Live: feed a memory one message at a time and watch it react, window by window."""

import streamlit as st

from nemori_ui.ui.jobs.runs import registry
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.live_controls import (choose_memory, feed_working, live_data, open_feed,
                                        script_box, type_box)
from nemori_ui.ui.live_widgets import compact_top, live_panel
from nemori_ui.ui.state import current_run

# the run is loaded once, below: the feed may have added to it since the sidebar was drawn
page_setup("Live", needs_run=False, run_notes=False, whole_run=False)
compact_top()
info = choose_memory(current_run())
if info is None:
    st.stop()
data = live_data(info, changing=feed_working(info.id))

busy = registry().get(info.id)
if busy is not None and busy.alive and busy.kind != "live":
    st.info("This run is being processed by a job of the Run page; feed it once that is done.")
    live_panel(info.id)
    st.stop()
feed = open_feed(info)
script_box(info, feed)
type_box(data, feed)
live_panel(info.id)
st.caption("Step through a transcript, play it, or type messages: the buffer fills toward w, "
           "the window closes, and each stage's decisions appear as they are made. The feed "
           "runs in the server: leave the page and come back, and it has gone on.")
