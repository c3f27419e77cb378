"""Runs as jobs of the server process: starting, following, cancelling and resuming them.

The page only watches: a job keeps going when its page is left, reloaded or closed, and every
tab reads the same state from the store (the job adds the stage it is at).
"""

from __future__ import annotations

import streamlit as st

from ..core.clients import build_clients
from ..core.jobs import Job, JobRegistry
from ..core.live import keeps_buffer
from ..core.pipeline.runner import STAGES, Progress, run_windows
from ..core.store import runs
from ..core.store.owner import this_process
from .safe import md_escape
from .state import clear_data_cache, get_store, list_runs, read_secrets

WATCH_S = 0.25      # how often a followed job's progress is redrawn
PANEL_S = 1.0       # how often the jobs list refreshes while a job runs
RUN_KINDS = ("run", "resume", "whatif", "demo")     # jobs of one run, keyed by its id
TASK_KINDS = ("sweep", "eval")                      # jobs of many runs or none
NAMES = {"sweep": "Sweep", "eval": "Evaluation", "whatif": "What-if re-run", "demo": "Demo run",
         "replay": "Replay"}


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
    return build_clients(config, get_store(), api_key=st.session_state.get("api_key") or None,
                         secrets=read_secrets()[0],
                         base_url=st.session_state.get("base_url_raw"))


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
        info = runs.get_run(store, job.run_id)
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
