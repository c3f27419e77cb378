"""A new evaluation from the Evaluation page, run as a job of the server: leaving the page does
not stop it, and the results appear in the page's list when it ends."""

from __future__ import annotations

import streamlit as st

from ...core.config import PipelineConfig
from ...core.errors import InputError
from ...core.eval.ablations import VARIANTS
from ...core.eval.harness import EvalOptions
from ...core.jobs.tasks import eval_work
from ...core.models import Transcript
from ...core.scale import executor_for
from ...core.store import runs
from ...core.transcripts import parse_transcript
from ...core.views.wording import plural
from ..safe import md_escape
from ..state import current_run, get_store, session_environment
from .tasks import mine, outcome, submit, watch

BENCHMARKS = ("locomo", "longmemeval")
WORKERS_HELP = "Ray workers; 1 runs in this process"


def _current_questions() -> tuple[Transcript, runs.RunInfo] | None:
    """The current run's conversation with the LoCoMo questions stored with it, if any."""
    info = current_run()
    if info is None or info.format not in BENCHMARKS:
        return None
    conv = runs.stored_conversation(get_store(), info.id)
    if not conv.extra.get("qa") and info.format == "locomo":
        return None
    return Transcript(format=info.format, source=info.source, conversations=[conv]), info


def _uploaded() -> Transcript | None:
    upload = st.file_uploader("Benchmark file (LoCoMo or LongMemEval JSON)", type=["json"],
                              key="eval_upload")
    if upload is None:
        return None
    try:
        transcript = parse_transcript(upload.getvalue(), source=upload.name)
    except InputError as exc:
        st.error(f"Cannot read {md_escape(upload.name)}. {md_escape(str(exc))}")
        return None
    if transcript.format not in BENCHMARKS:
        st.error(f"{md_escape(upload.name)} reads as {transcript.format}, not as LoCoMo or "
                 "LongMemEval: it holds no questions to evaluate on.")
        return None
    return transcript


def eval_form() -> None:
    """Choose the questions, variants and k; Evaluate starts the job."""
    here = _current_questions()
    kinds = (["This run's conversation"] if here else []) + ["Upload a benchmark file"]
    kind = st.radio("Questions from", kinds, horizontal=True, key="eval_source")
    if kind == "This run's conversation":
        transcript, info = here
        config, source = info.config, info.source
        st.caption(md_escape(f"{info.name}: its memory is reused when it was built with the "
                             "variant's settings."))
    else:
        transcript = _uploaded()
        config = PipelineConfig.model_validate(st.session_state.config)
        source = transcript.source if transcript else ""
    if transcript is None:
        return
    engine = "offline engine, no LLM" if config.backend == "offline" else config.model
    st.caption(md_escape(f"Answered by {engine}" + ("" if kind == "This run's conversation"
                                                     else " (the Run page's settings)") + "."))
    ids = [c.id for c in transcript.conversations]
    # each on its own row: in a column the variant chips scrolled out of sight
    chosen = st.multiselect("Conversations (none: all)", ids, key="eval_conversations") \
        if len(ids) > 1 else ids
    variants = st.multiselect("Variants", list(VARIANTS), default=["nemori"],
                              key="eval_variants",
                              format_func=lambda v: VARIANTS[v].paper,
                              help="named as in the paper's Tables 2 and 4")
    if variants:    # the chips hold the paper's short names; what each is, in full
        st.caption(md_escape(" · ".join(f"{VARIANTS[v].paper}: {VARIANTS[v].label}"
                                        for v in variants)))
    c1, c2, c3 = st.columns(3)
    k = c1.number_input("k (retrieved)", 1, 100, int(config.k), key="eval_k")
    limit = c2.number_input("Questions per conversation (0: all)", 0, 10_000, 0,
                            key="eval_limit")
    workers = c3.number_input("Workers", 1, 64, 1, help=WORKERS_HELP, key="eval_workers")
    if not st.button("Evaluate", type="primary", key="eval_start", disabled=not variants):
        return
    benchmark = "longmemeval" if transcript.format == "longmemeval" else "locomo"
    options = [EvalOptions(benchmark=benchmark, variant=v, k=int(k), limit=int(limit) or None,
                           conversations=list(chosen) or None) for v in variants]
    work = eval_work(get_store(), transcript, config, options, source=source,
                     env=session_environment(executor=executor_for(int(workers))))
    scope = ", ".join(chosen) if chosen and len(chosen) < len(ids) else "all conversations"
    submit("eval", work, f"{', '.join(variants)} on {transcript.source} ({scope})")


def eval_jobs(expanded: bool) -> None:
    """The form, the evaluations running in this server, and how this session's last ended."""
    with st.expander("New evaluation", expanded=expanded):
        eval_form()
    watch(("eval",), title="Running evaluations")
    outcome(mine("eval"), finished)


def finished(job) -> None:
    st.success(f"Evaluation {md_escape(job.label)} finished: "
               f"{plural(len(job.result or []), 'result')}, listed below.")
    if job.result and st.session_state.get("eval_opened") != job.key:
        # open the new result once; later the choice is the visitor's
        st.session_state.eval_opened = job.key
        st.session_state.eval_id = job.result[0]

