"""Resuming the shown run from the sidebar, when it was interrupted or failed."""

from __future__ import annotations

import streamlit as st

from ..core.clients import build_clients
from ..core.pipeline.runner import run_windows
from ..core.store import runs
from .safe import md_escape
from .state import clear_data_cache, get_store, read_secrets


def resume_button(info: runs.RunInfo) -> None:
    if info.status not in runs.RESUMABLE:
        return
    if not st.button("Resume this run", key="resume_run",
                     help="Continue from the last finished window; finished windows are kept"):
        return
    store = get_store()
    try:
        clients = build_clients(info.config, store, api_key=st.session_state.api_key or None,
                                secrets=read_secrets()[0],
                                base_url=st.session_state.get("base_url_raw"))
        with st.spinner(f"Resuming at window {info.windows_done + 1} of {info.windows_total}"):
            run_windows(store, info.id, clients)
    except Exception as exc:  # the store says failed; finished windows stay
        st.error(f"The run stopped again: {md_escape(f'{type(exc).__name__}: {exc}')}")
        clear_data_cache()
        return
    clear_data_cache()
    st.rerun()
