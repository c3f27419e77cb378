"""The Run page's list of the server's jobs: running, interrupted and failed runs with Cancel and
Resume, and the sweeps and evaluations running beside them with Cancel."""

from __future__ import annotations

import streamlit as st

from ...core.jobs import Job
from ...core.store import runs
from ...core.store.owner import this_process
from ..safe import md_escape
from ..state import clear_data_cache, get_store, list_runs
from .runs import cancel_button, progress_text, registry, resume_job

PANEL_S = 1.0       # how often the jobs list refreshes while a job runs
RUN_KINDS = ("run", "resume", "whatif", "demo")     # jobs of one run, keyed by its id
TASK_KINDS = ("sweep", "eval")                      # jobs of many runs or none
NAMES = {"sweep": "Sweep", "eval": "Evaluation", "whatif": "What-if re-run", "demo": "Demo run",
         "replay": "Replay"}


def jobs_panel() -> None:
    """Running, interrupted and failed runs, with Cancel and Resume, and the sweeps and
    evaluations running in this server, with Cancel; refreshed while one runs."""
    listed = [r for r in list_runs() if r.status in ("running", *runs.RESUMABLE)]
    tasks = registry().alive(TASK_KINDS)
    if not listed and not tasks:
        return
    # live also while this session follows a run: nothing blocks the script any more
    live = any(r.status == "running" for r in listed) or bool(tasks)

    @st.fragment(run_every=PANEL_S if live else None)
    def panel() -> None:
        now = [r for r in list_runs() if r.status in ("running", *runs.RESUMABLE)]
        working = registry().alive(TASK_KINDS)
        if live and not any(r.status == "running" for r in now) and not working:
            clear_data_cache()
            st.rerun()      # a job ended: the sidebar and the saved runs change too
        st.subheader("Jobs")
        for job in working:
            task_row(job)
        for info in now:
            job_row(info)

    panel()


def job_progress(job: Job) -> tuple[float, str]:
    if job.kind in RUN_KINDS:
        return progress_text(job.progress, runs.get_run(get_store(), job.key))
    return job.fraction, job.text


def task_row(job: Job) -> None:
    """A job of the server with its progress and Cancel."""
    c1, c2, c3 = st.columns([5, 4, 1.4])
    c1.markdown(f"**{NAMES.get(job.kind, job.kind)}**  \n{md_escape(job.label)}")
    c2.progress(*job_progress(job))
    cancel_button(job, f"cancel_{job.key}", c3)


def job_row(info: runs.RunInfo) -> None:
    job = registry().get(info.id)
    c1, c2, c3 = st.columns([5, 4, 1.4])
    c1.markdown(f"**{md_escape(info.name)}**  \n`{info.id}`")
    if info.status == "running":
        if info.id == st.session_state.get("following"):
            # one bar per run on the page: this one refreshes less often than the one under
            # Run, and two bars a few windows apart contradict each other
            c2.caption("running: its progress is shown under Run below")
        else:
            c2.progress(*progress_text(job.progress if job and job.alive else None, info))
        if job is not None and job.alive:
            cancel_button(job, f"cancel_{info.id}", c3)
        elif info.owner == this_process():
            c3.caption("part of a sweep or evaluation")
        else:
            c3.caption("running in another process")
        return
    why = f": {info.error}" if info.error else ""
    c2.markdown(f"{info.status} after {info.windows_done} of {info.windows_total} windows"
                f"{md_escape(why)}")
    if c3.button("Resume", key=f"resume_{info.id}",
                 help="Continue from the last finished window; finished windows are kept"):
        try:
            resume_job(info)
        except Exception as exc:  # noqa: BLE001 - a server that cannot be reached, a bad key
            st.error(f"Cannot resume: {md_escape(f'{type(exc).__name__}: {exc}')}")
            return
        st.session_state.run_id = info.id
        st.session_state.following = info.id
        st.rerun()


