"""Sweeps, evaluations, what-if re-runs and the demo as jobs of the server, watched by pages.

A page starts the job and only draws its progress in a fragment that refreshes itself, so the
page never blocks on it; leaving, reloading or closing the page does not stop the job, and every
tab lists the same jobs (the registry belongs to the server). This session remembers which job
it started, to show that job's outcome when it ends.
"""

from __future__ import annotations

import uuid
from typing import Callable

import streamlit as st

from ...core.jobs import Job
from ..safe import md_escape
from ..state import clear_data_cache
from .panel import NAMES, PANEL_S, task_row
from .runs import registry


def submit(kind: str, work: Callable[[Job], object], label: str) -> Job:
    """Start `work` as a job of the server and remember it as this session's job of `kind`."""
    job = registry().submit(f"{kind}-{uuid.uuid4().hex[:10]}", work, kind=kind, label=label)
    st.session_state[f"{kind}_job"] = job.key
    return job


def remember(kind: str, job: Job) -> None:
    st.session_state[f"{kind}_job"] = job.key


def mine(kind: str) -> Job | None:
    """The job of `kind` this session started last (it may have ended)."""
    key = st.session_state.get(f"{kind}_job")
    return registry().get(key) if key else None


def watch(kinds: tuple[str, ...], *, title: str | None = None) -> None:
    """The live jobs of these kinds with their progress and Cancel, redrawn every second while
    one runs; when one ends the whole page reruns, so its tables show what the job stored."""
    live = registry().alive(kinds)

    @st.fragment(run_every=PANEL_S if live else None)
    def area() -> None:
        now = registry().alive(kinds)
        if live and len(now) < len(live):
            clear_data_cache()
            st.rerun()
        if now and title:
            st.subheader(title)
        for job in now:
            task_row(job)

    area()


def outcome(job: Job | None, done: Callable[[Job], None]) -> None:
    """How this session's last job ended: `done(job)` when it finished, else why not."""
    if job is None or not job.finished:
        return
    name = NAMES.get(job.kind, job.kind)
    if job.cancelled:
        st.info(f"{name} {md_escape(job.label)} cancelled; what finished before is kept.")
    elif job.error:
        st.error(f"{name} {md_escape(job.label)} stopped: {md_escape(job.error)}. "
                 "What finished before is kept.")
    else:
        done(job)
