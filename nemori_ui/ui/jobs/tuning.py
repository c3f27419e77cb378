"""The Tuning page's jobs: a new sweep and a what-if re-run, both run by the server (leaving the
page does not stop them), and what-if τ drawn on the run's looked-at similarities."""

from __future__ import annotations

from dataclasses import asdict

import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from pydantic import ValidationError

from ...core.clients import build_clients
from ...core.config import PipelineConfig, tau_grid
from ...core.errors import InputError
from ...core.executors import too_few, too_few_note
from ...core.jobs import Job
from ...core.jobs.tasks import across_work
from ...core.models import Conversation
from ...core.pipeline.runner import start_run
from ...core.scale import executor_for
from ...core.store import runs
from ...core.store.sweeps import list_sweeps
from ...core.tuning.across import SweepSpec, conversation_label, input_key, plan
from ...core.tuning.compare import knowledge_diff
from ...core.tuning.point import point_figures
from ...core.tuning.records import SweepPoint
from ...core.tuning.sweep import flat, parse_grid
from ...core.views.prediction import admitted, looked_similarities
from ...core.views.run_data import RunData
from ...core.views.wording import plural
from ..diff_widgets import pair_diffs
from ..episodic_charts import similarity_histogram
from ..safe import md_escape
from ..state import get_store, run_data, session_environment
from ..sweep_inputs import add_file, input_choices
from ..sweep_results import LAST_NAMED
from ..tints import chart_ink
from .runs import start_job
from .tasks import mine, outcome, remember, submit, watch

WORKERS_HELP = "Ray workers; 1 runs in this process"
WHATIF_BASE = "whatif_base"      # the run a what-if re-run was made from, to diff against


def session_maker():
    """Clients for any settings with this session's key and base URL, read here on the page:
    a job's thread cannot read the session."""
    store, env = get_store(), session_environment()

    def make(config: PipelineConfig):
        return build_clients(config, store, env)
    return make


LAST_SWEEP = "sweep_last_values"      # plain state: widget state is dropped on leaving


def sweep_section(data: RunData, conv: Conversation) -> None:
    """A named sweep around the run's settings over the conversations chosen (this run's by
    default); the form keeps the last sweep's values on return, and points already stored with
    the same input and settings are not run again."""
    config, store = data.info.config, get_store()
    add_file()
    choices = input_choices(store)
    this = input_key(data.info.source, conv.id)
    last = st.session_state.get(LAST_SWEEP) or {
        "tau": tau_grid(config.embedder, config.embedding_model), "window": str(config.window),
        "variant": config.variant, "name": f"sweep {len(list_sweeps(store)) + 1}",
        "conversations": [this]}
    with st.form("sweep_form"):
        c1, c2 = st.columns([1.5, 5])
        name = c1.text_input("Sweep name", last["name"], key="sweep_name")
        chosen = c2.multiselect("Conversations", list(choices),
                                [c for c in last["conversations"] if c in choices] or [this],
                                format_func=conversation_label,
                                help="Every point runs on each; its figures are the mean ± sd "
                                     "across them", key="sweep_conversations")
        c1, c2, c3, c4 = st.columns([3, 3, 3, 1.4])
        taus = c1.text_input("τ values", last["tau"], key="sweep_tau")
        windows = c2.text_input("Window lengths", last["window"], key="sweep_window")
        variants = c3.text_input("Variants", last["variant"], key="sweep_variant")
        workers = c4.number_input("Workers", 1, 64, 1, help=WORKERS_HELP, key="sweep_workers")
        go_sweep = st.form_submit_button("Run sweep")
    if go_sweep:
        st.session_state[LAST_SWEEP] = {"tau": taus, "window": windows, "variant": variants,
                                        "name": name, "conversations": chosen}
        try:
            grid = parse_grid({"tau": taus, "window": windows, "variant": variants})
            spec = SweepSpec(name=name, grid=grid, inputs=[choices[c]() for c in chosen])
        except (ValueError, InputError) as exc:
            st.error(md_escape(said(exc)))
        else:
            start_sweep(data, spec, int(workers))
    watch(("sweep",))
    outcome(mine("sweep"), lambda job: st.success(
        f"Sweep {md_escape(job.label)} finished: its points are in the tables below."))


def said(exc: Exception) -> str:
    """A refused form's reason: pydantic's own words without its URL and error codes."""
    if isinstance(exc, ValidationError):
        return "; ".join(e["msg"].removeprefix("Value error, ") for e in exc.errors())
    return str(exc)


def start_sweep(data: RunData, spec: SweepSpec, workers: int) -> None:
    store, base = get_store(), data.info.config
    st.session_state[LAST_NAMED] = spec.name
    planned = plan(store, spec, base)
    total = spec.total(base)
    if planned.stored:
        st.info(f"{len(planned.stored)} of {plural(total, 'point')} are stored already with "
                f"this input "
                "and these settings, so they are not run again: they are in the tables below.")
    if workers > 1 and planned.todo and too_few(len(planned.todo), workers):
        st.info(too_few_note(len(planned.todo), workers, "the server's process") + ".")
    work = across_work(store, spec, base, session_maker(),
                       session_environment(executor=executor_for(workers)))
    if not planned.todo:        # nothing to build: list the stored points as the sweep's now
        work(Job(key="", kind="sweep"))
        return
    submit("sweep", work, f"«{spec.name}»: {plural(len(planned.todo), 'point')} over "
                                f"{plural(len(spec.inputs), 'conversation')}")


def whatif_figure(looked: pd.DataFrame, old: float, new: float) -> go.Figure:
    """The looked-at similarities against the new τ (as the Prediction error page draws them)
    and the run's own τ beside it."""
    fig = similarity_histogram(looked, new)
    if abs(old - new) > 1e-9:
        old_ink = chart_ink().soft      # the τ it replaces, beside the new one
        fig.add_vline(x=old, line=dict(color=old_ink, width=2, dash="dot"),
                      annotation_text=f"run's τ = {old:.2f}", annotation_position="top left",
                      annotation_font=dict(color=old_ink, size=12))
    # a narrow column: the legend under the chart, out of the τ labels' way
    fig.update_layout(height=300, margin=dict(l=10, r=10, t=30, b=10),
                      legend=dict(orientation="h", y=-0.3, x=0),
                      xaxis_title="similarity to a looked-at memory")
    return fig


def whatif_histogram(data: RunData, tau: float) -> None:
    looked = looked_similarities(data)
    if looked.empty:
        st.caption("This run stored no looked-at similarity (no episode evoked anything).")
        return
    old = float(data.info.config.tau)
    before, after = admitted(looked, old), admitted(looked, tau)
    st.plotly_chart(whatif_figure(looked, old, tau), key="whatif_hist",
                    config={"displayModeBar": False})
    st.caption(f"Looked-at similarities: {before.passing} of {before.pairs} pass the "
               f"run's τ = {old:.2f} ({plural(before.evoking, 'episode')} evoke a memory), "
               f"{after.passing} pass τ = {tau:.2f} ({plural(after.evoking, 'episode')}).")


def whatif_rerun(data: RunData, conv: Conversation, tau: float, first: int | None) -> None:
    if first is not None and st.button(f"Re-run at τ = {tau:.2f}", key="whatif_rerun",
                                       help=f"From window {first} on calls change; earlier ones "
                                            "come from the cache. It runs on in the server."):
        config = data.info.config.model_copy(update={"tau": tau})
        store = get_store()
        try:
            clients = session_maker()(config)
            run_id = start_run(store, conv, config, clients, source=data.info.source,
                               fmt=data.info.format, resume=False)
        except Exception as exc:  # noqa: BLE001 - a server that cannot be reached, a bad key
            st.error(f"Cannot start the re-run: {md_escape(f'{type(exc).__name__}: {exc}')}")
            return
        st.session_state[WHATIF_BASE] = data.run_id
        remember("whatif", start_job(run_id, clients, kind="whatif"))
    watch(("whatif",))
    outcome(mine("whatif"), rerun_result)


def rerun_result(job: Job) -> None:
    store = get_store()
    info = runs.get_run(store, job.key)
    if info.status != "done":
        st.warning(f"Run {info.id} is {info.status}; Resume it on the Run page.")
        return
    point = SweepPoint.of(point_figures(store, job.key))
    llm = point.llm
    said = f"Run {info.id} at τ = {info.config.tau:.2f} finished"
    if llm.calls_made or llm.calls_reused:     # the offline engine makes no call
        said += (f": {plural(llm.calls_made, 'call')} made, {llm.calls_reused} reused "
                 "from the cache")
    st.success(said + ". It is a point of the sweep too.")
    row = asdict(flat(point))
    shown = {k: v for k, v in row.items()
             if not (k in ("calls_made", "calls_reused", "input_tokens") and not v)
             and v is not None}
    st.dataframe(pd.DataFrame([shown]), hide_index=True)
    base_id = st.session_state.get(WHATIF_BASE)
    if base_id and base_id != info.id:
        memory_changes(run_data(runs.get_run(store, base_id)), run_data(info))


def memory_changes(base: RunData, rerun: RunData) -> None:
    """The memories the re-run holds otherwise than the run it was made from, word by word,
    as the Compare page shows two runs."""
    k = knowledge_diff(base, rerun)
    differ = k.reworded + k.contradicted
    st.markdown(f"**Memories that differ from run {base.run_id}**")
    st.caption(f"{len(k.reworded)} reworded, {len(k.contradicted)} contradicted, "
               f"{len(k.only_a)} only in the run, {len(k.only_b)} only in the re-run, "
               f"{len(k.same)} the same (Compare runs lists them all).")
    pair_diffs(differ, names=("the run", f"the re-run at τ = {rerun.info.config.tau:.2f}"))
