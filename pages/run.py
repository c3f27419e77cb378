"""Run: pick a transcript and settings, run the pipeline as a job of the server with live
progress, manage running, interrupted and saved runs."""

import streamlit as st

from nemori_ui.ui.append_form import continue_memory
from nemori_ui.ui.jobs.panel import jobs_panel
from nemori_ui.ui.jobs.runs import follow_area
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.run_form import run_form
from nemori_ui.ui.saved_runs import saved_runs

page_setup("Run", needs_run=False, run_notes=False)
# one container per part: while the page reruns, the last run's elements stay on screen until
# replaced, and without these a part that grew or shrank moved the next part's leftovers into
# it (a Rename button among the settings)
for part in (jobs_panel, run_form, follow_area, st.divider, continue_memory, saved_runs):
    with st.container():
        part()
