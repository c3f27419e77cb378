"""Style the whole app shares, drawn once at the top of every page."""

from __future__ import annotations

import streamlit as st

# An open select list wraps a long option instead of clipping it at the list's width: in the
# sidebar's run picker a run's name, its state and its id are all read before choosing, which
# Streamlit's one-line options cut mid-name. Each option is set off from the next by a rule.
APP_CSS = """<style>
[role="listbox"] { height: auto !important; max-height: min(60vh, 420px) !important;
  overflow-y: auto !important; }
[role="listbox"] [role="option"] { height: auto !important; min-height: 40px;
  padding-top: 6px; padding-bottom: 6px;
  border-bottom: 1px solid rgba(134, 142, 150, 0.2); }
[role="listbox"] [role="option"] > div { white-space: normal !important; height: auto !important;
  overflow-wrap: anywhere; line-height: 1.35; }
</style>"""


def app_style() -> None:
    st.html(APP_CSS)
