"""Run: pick a transcript and settings, run the pipeline with live progress, manage saved runs."""

import streamlit as st

from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.run_form import run_form, saved_runs

page_setup("Run", needs_run=False, run_notes=False)
run_form()
st.divider()
saved_runs()
