"""Nemori Inspector: the router. Each page lives in pages/ and renders its own sidebar."""

import streamlit as st

from nemori_ui.ui.layout import ICON, navigation_pages, router_ran
from nemori_ui.ui.state import init_state

st.set_page_config(page_title="Nemori Inspector", page_icon=str(ICON), layout="wide")
init_state()
router_ran()         # a page opened by its URL before this needs a rerun through here
st.navigation(navigation_pages(), expanded=True).run()
