"""Resuming the shown run from the sidebar, when it was interrupted or failed."""

from __future__ import annotations

import streamlit as st

from ..core.store import runs
from .jobs.runs import follow, registry, resume_job
from .safe import md_escape

WATCHER = "sidebar_resuming"            # the run this session resumed from the sidebar
OUTCOME = "sidebar_resume_outcome"      # how that resumed run ended


def resume_button(info: runs.RunInfo) -> None:
    """Resume this run; then its progress and Cancel in the sidebar, refreshed without holding
    the page, and why it stopped if it did not finish (a finished run just shows done)."""
    resumed = st.session_state.get(WATCHER)
    job = registry().get(resumed) if resumed == info.id else None
    if job is not None:
        follow(job, watcher=WATCHER, outcome_key=OUTCOME, cancel=True)
        return
    ended = st.session_state.pop(OUTCOME, None)
    if ended and ended[0] != "success":
        getattr(st, ended[0])(ended[1])     # the run stopped again: say why, beside Resume
    if info.status not in runs.RESUMABLE:
        return
    if not st.button("Resume this run", key="resume_run",
                     help="Continue from the last finished window; finished windows are kept. "
                          "It runs on in the server when you leave the page."):
        return
    try:
        resume_job(info)
    except Exception as exc:  # noqa: BLE001 - a server that cannot be reached, a bad key
        st.error(f"Cannot resume: {md_escape(f'{type(exc).__name__}: {exc}')}")
        return
    st.session_state[WATCHER] = info.id
    st.rerun()
