"""Runs as jobs of the server process: starting, following, cancelling and resuming them.

The page only watches: a job keeps going when its page is left, reloaded or closed, and every
tab reads the same state from the store (the job adds the stage it is at).
"""

from __future__ import annotations

import streamlit as st

from ...core.clients import build_clients
from ...core.jobs import Job, JobRegistry
from ...core.live_input import keeps_buffer
from ...core.pipeline.runner import STAGES, Progress, run_windows
from ...core.store import runs
from ..safe import md_escape
from ..state import clear_data_cache, get_store, session_environment

WATCH_S = 0.25      # how often a followed job's progress is redrawn


@st.cache_resource(show_spinner=False)
def registry() -> JobRegistry:
    """The server's jobs: one registry shared by every session, so two tabs see one job."""
    return JobRegistry()


def start_job(run_id: str, clients, *, kind: str = "run") -> Job:
    """Run the stored run `run_id` as a job of the server (kind: run, resume, whatif, demo)."""
    store = get_store()
    return registry().start(
        run_id, lambda report: run_windows(store, run_id, clients, progress=report), kind=kind)


def session_clients(config):
    """The run's clients with this session's key and base URL (never stored)."""
    return build_clients(config, get_store(), session_environment())


def resume_job(info: runs.RunInfo) -> Job:
    clients, store = session_clients(info.config), get_store()
    # a run fed message by message (Python API, Live page) keeps its partial window pending
    flush = not keeps_buffer(info.format)
    return registry().start(info.id, lambda report: run_windows(
        store, info.id, clients, progress=report, flush=flush), kind="resume")


def progress_text(p: Progress | None, info: runs.RunInfo) -> tuple[float, str]:
    """(fraction done, what it is doing), from the job's last report or else the store."""
    if p is None:
        return (info.windows_done / max(1, info.windows_total),
                f"{info.windows_done} of {info.windows_total} windows done")
    within = (STAGES.index(p.stage) + 1) / len(STAGES) if p.stage in STAGES else 1.0
    done = min(1.0, (p.window + within) / max(1, p.windows_total))
    text = f"window {min(p.window + 1, p.windows_total)} of {p.windows_total}: {p.stage}"
    llm = p.llm or {}
    if any(llm.get(k) for k in ("calls", "cached", "failed")):   # none made: nothing to count
        text += (f" · LLM calls {llm.get('calls', 0)}, cached {llm.get('cached', 0)}, "
                 f"failed {llm.get('failed', 0)}, tokens in {llm.get('input_tokens', 0):,} / "
                 f"out {llm.get('output_tokens', 0):,}")
    return done, text


def follow(job: Job, *, watcher: str = "following", outcome_key: str = "job_outcome",
           cancel: bool = False) -> None:
    """Draw the job's progress until it ends, then keep how it ended under `outcome_key`,
    clear `watcher` (the session key naming the followed job) and rerun the page.

    The drawing is a fragment that refreshes itself, never a loop: a loop would keep the
    script running, and Streamlit answers a click inside a fragment (Cancel in the jobs list)
    only once the script run has ended, so this session's Cancel would wait for the run.
    Leaving the page stops the drawing, not the job."""
    store = get_store()

    @st.fragment(run_every=WATCH_S)
    def watch() -> None:
        info = runs.get_run(store, job.key)
        if job.wait(0):
            clear_data_cache()
            st.session_state[watcher] = None
            st.session_state[outcome_key] = outcome(job, info)
            st.rerun()      # the sidebar, the jobs list and the saved runs change too
        st.progress(*progress_text(job.progress, info))
        if cancel:
            cancel_button(job, f"{watcher}_cancel_{job.key}")

    watch()


def cancel_button(job: Job, key: str, where=st) -> None:
    """Cancel, or that the job is stopping: asked once, it takes effect at the job's next step
    (the page does not wait for it; the refreshing list or follower sees the job end)."""
    if job.stopping:
        where.caption("stopping…")
    elif where.button("Cancel", key=key, help="Stop after the current step; what finished is "
                                               "kept, and Resume continues a run from there"):
        registry().cancel(job.key)
        st.rerun()


def outcome(job: Job, info: runs.RunInfo) -> tuple[str, str]:
    if job.cancelled:
        return "info", (f"Run {info.id} cancelled after {info.windows_done} of "
                        f"{info.windows_total} windows; Resume continues it.")
    if job.error or info.status != "done":
        return "error", (f"The run stopped: {md_escape(job.error or info.error or info.status)}."
                         " Finished windows are kept; Resume continues from there.")
    return "success", f"Run {info.id} finished. Open the other pages to inspect it."


def show_outcome() -> None:
    shown = st.session_state.pop("job_outcome", None)
    if shown:
        getattr(st, shown[0])(shown[1])


def follow_area() -> None:
    """Where the Run page follows this session's job, and then says how it ended."""
    for kind, text in st.session_state.get("job_notes", []):
        getattr(st, kind)(text)
    following = st.session_state.get("following")
    job = registry().get(following) if following else None
    if job is not None:
        follow(job)
        return
    st.session_state.following = None
    if "job_outcome" in st.session_state:
        show_outcome()
        st.session_state.job_notes = []     # said once, with how the run ended
