"""Resuming the shown run from the sidebar, when it was interrupted or failed."""

from __future__ import annotations

import streamlit as st

from ..core.store import runs
from .jobs import follow, resume_job, show_outcome
from .safe import md_escape


def resume_button(info: runs.RunInfo) -> None:
    if info.status not in runs.RESUMABLE:
        return
    if not st.button("Resume this run", key="resume_run",
                     help="Continue from the last finished window; finished windows are kept. "
                          "It runs on in the server when you leave the page."):
        return
    try:
        job = resume_job(info)
    except Exception as exc:  # noqa: BLE001 - a server that cannot be reached, a bad key
        st.error(f"Cannot resume: {md_escape(f'{type(exc).__name__}: {exc}')}")
        return
    follow(job)
    if st.session_state.get("job_outcome", ("success",))[0] != "success":
        show_outcome()      # the run stopped again: say why here, before anything else
        return
    st.session_state.pop("job_outcome", None)
    st.rerun()
