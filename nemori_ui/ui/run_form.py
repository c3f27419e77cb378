"""The Run page's parts: choosing a transcript, the settings and running."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

from ..core.config import PipelineConfig, default_tau
from ..core.errors import InputError
from ..core.llm.redact import strip_url_credentials
from ..core.pipeline.runner import start_run
from ..core.transcripts import outline, parse_transcript
from ..core.store import runs
from ..core.views.existing_runs import finished_run
from .jobs.runs import session_clients, start_job
from .safe import md_escape
from .state import get_store, read_secrets
from .tau_widgets import TAU_HELP, tau_admits
from ..core.views.wording import plural

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample_conversation.txt"
UPLOAD_TYPES = ["json", "jsonl", "ndjson", "csv", "tsv", "txt", "md"]


def _secrets() -> dict:
    return read_secrets()[0]


def choose_transcript():
    """(transcript, source name) from the sample or an upload; None while nothing usable."""
    source = st.radio("Transcript", ["Bundled sample", "Upload a file"], horizontal=True,
                      key="source_kind")
    if source == "Bundled sample":
        return parse_transcript(SAMPLE.read_bytes(), source=SAMPLE.name), SAMPLE.name
    # no type filter: a refused type would show only a red chip while the last file's message
    # stayed; every file gets a message naming it instead
    upload = st.file_uploader("Transcript file", key="upload",
                              help="JSON (LoCoMo, LongMemEval, chat), JSONL, CSV / TSV or plain "
                                   "text; the format is detected from the content.")
    if upload is None:
        return None
    suffix = Path(upload.name).suffix.lower().lstrip(".")
    if suffix and suffix not in UPLOAD_TYPES:
        st.error(f"Cannot read {md_escape(upload.name)}: a .{md_escape(suffix)} file is not a "
                 f"transcript. Upload one of: {', '.join('.' + t for t in UPLOAD_TYPES)}.")
        return None
    try:
        return parse_transcript(upload.getvalue(), source=upload.name), upload.name
    except InputError as exc:
        st.error(f"Cannot read this file. {md_escape(str(exc))}")
        return None


def preview(transcript) -> str:
    overview = outline(transcript)
    st.caption(f"Format: **{md_escape(overview['format'])}** · "
               f"{plural(len(overview['conversations']), 'conversation')}")
    st.dataframe(pd.DataFrame([{**c, "speakers": ", ".join(c["speakers"])}
                               for c in overview["conversations"]]), hide_index=True)
    ids = [c.id for c in transcript.conversations]
    return st.selectbox("Conversation", ids, key="conversation") if len(ids) > 1 else ids[0]


def settings() -> PipelineConfig:
    saved = PipelineConfig.model_validate(st.session_state.config)
    st.subheader("Settings")
    problem = read_secrets()[1]
    if problem:
        st.warning(md_escape(problem))
    backend = st.radio("Backend", ["offline", "openai"], horizontal=True,
                       index=["offline", "openai"].index(saved.backend),
                       format_func={"offline": "Offline engine (no LLM, no key)",
                                    "openai": "OpenAI or compatible server"}.get)
    model, base_url, embedder = saved.model, saved.base_url, saved.embedder
    calls = {}
    if backend == "openai":
        c1, c2 = st.columns(2)
        model = c1.text_input("Model", saved.model,
                              help="checked against the server's /v1/models when it is local")
        base_url = c2.text_input("Base URL (empty: OpenAI)", saved.base_url or "",
                                 key="base_url_input") or None
        if "OPENAI_API_KEY" in _secrets():
            st.caption("Using the API key from Streamlit secrets.")
        else:
            st.text_input("API key (optional with a base URL: a local server needs none; kept "
                          "for this session only, never stored)", type="password", key="api_key")
        embedder = st.selectbox("Embedder", ["minilm", "openai"],
                                index=["minilm", "openai"].index(saved.embedder),
                                format_func={"minilm": "MiniLM (offline)",
                                             "openai": "OpenAI text-embedding-3-small"}.get)
        calls = llm_settings(saved)
    c = st.columns(4)
    window = c[0].number_input("Window w", 2, 200, saved.window)
    # τ follows the embedder unless the user set it for this one
    tau_now = saved.tau if embedder == saved.embedder else default_tau(embedder)
    tau = c[1].slider("Threshold τ", 0.0, 1.0, tau_now, 0.01, help=TAU_HELP)
    k_e = c[2].number_input("K_e (integration)", 1, 50, saved.k_e)
    k_s = c[3].number_input("K_s (evoked)", 1, 100, saved.k_s)
    c = st.columns(4)
    k_m = c[0].number_input("K_m (consolidation)", 1, 50, saved.k_m)
    k = c[1].number_input("k (retrieved; m = 2k)", 1, 100, saved.k)
    variant = c[2].selectbox("Variant", ["nemori", "nemori-s"],
                             index=["nemori", "nemori-s"].index(saved.variant))
    management = c[3].selectbox("Management", ["native", "naive", "summary"],
                                index=["native", "naive", "summary"].index(saved.management))
    # what only decides how many calls are made cannot change an offline run: shown, not offered
    calls_only = backend == "offline"
    c = st.columns(4)
    consolidation = _choice(
        c[0], "Consolidation", ["gated", "always", "off"], saved.consolidation,
        "gated: a consolidation call only for an insight with a stored memory above the "
        "embedder's gate (the same fact) or one it may contradict (the rest are new, no "
        "call); always: a call for every insight; "
        "off: every statement stored, no call (the v1 code). The offline engine makes no "
        "call, so under it gated and always both compare every insight")
    unit = _choice(
        c[3], "Consolidation calls", ["episode", "insight"], saved.consolidation_unit,
        "under gated: episode asks about all of an episode's insights that need a model in "
        "one call, each against its own stored candidates; insight makes one call each. "
        "With an LLM only", disabled=calls_only)
    semantic_order = _choice(
        c[1], "Semantic order", ["sequential", "window"], saved.semantic_order,
        "sequential: each episode predicted from the store with what the window's earlier "
        "episodes taught; window: a window's episodes all predicted from the store as it "
        "was before the window, in parallel (the v1 code)")
    cold = _choice(
        c[2], "Cold start", ["prediction", "narrative"], saved.cold_start,
        "with nothing stored yet: prediction distils the raw episode against an empty "
        "prediction (the paper); narrative distils the episode's title and narrative "
        "directly (the v1 code). With an LLM only: the offline engine reads the messages",
        disabled=calls_only)
    # the URL's user:password (if any) is used for the connection, never stored
    st.session_state.base_url_raw = base_url
    config = PipelineConfig(backend=backend, model=model, base_url=strip_url_credentials(base_url),
                            embedder=embedder, window=window, tau=tau, k_e=k_e, k_s=k_s,
                            k_m=k_m, k=k, variant=variant, management=management,
                            consolidation=consolidation, consolidation_unit=unit,
                            semantic_order=semantic_order,
                            cold_start=cold, **calls)
    st.session_state.config = config.model_dump()
    return config


def _choice(where, label: str, options: list[str], current: str, help: str,
            disabled: bool = False) -> str:
    return where.selectbox(label, options, index=options.index(current), help=help,
                           disabled=disabled)


PRESET_HELP = ("paper: each prompt written to the official implementation's intent, rules and "
               "examples (the default); strict: our stricter texts. Stored with the run; the "
               "Calls and cost page shows every text.")


def llm_settings(saved: PipelineConfig) -> dict:
    """Which prompts, and how each call is made: its deadline, attempts, retry budget and how
    many go at once."""
    st.caption("LLM calls")
    c = st.columns(3)
    prompts = c[0].selectbox("Prompts", ["paper", "strict"],
                             index=["paper", "strict"].index(saved.prompts), help=PRESET_HELP)
    dates = c[1].selectbox("Dates in insights", ["preset", "keep", "exclude"],
                           index=["preset", "keep", "exclude"].index(saved.distill_dates),
                           help="preset: paper leaves dates out of insights (the official "
                                "prompt), strict keeps dated events")
    concurrency = c[2].number_input("Concurrent requests", 1, 64, saved.concurrency,
                                    help="lowered on its own when the server queues requests")
    c = st.columns(3)
    timeout = c[0].number_input("Timeout per request (s)", 1.0, 3600.0, float(saved.timeout_s),
                                help="connect to last byte; a slow local model needs more")
    attempts = c[1].number_input("Attempts per call", 1, 10, saved.attempts)
    budget = c[2].number_input("Retry budget per call (s)", 1.0, 7200.0,
                               float(saved.retry_budget_s))
    return {"prompts": prompts, "distill_dates": dates, "concurrency": int(concurrency),
            "timeout_s": float(timeout), "attempts": int(attempts),
            "retry_budget_s": float(budget)}


def execute(transcript, conv_id: str, source: str, config: PipelineConfig) -> None:
    """Start the run as a job of the server and follow it; leaving the page does not stop it."""
    store = get_store()
    conv = transcript.conversation(conv_id)
    try:
        clients = session_clients(config)
    except (InputError, ValueError) as exc:
        st.error(md_escape(str(exc)))
        return
    notes = [("warning", md_escape(note)) for note in clients.notes]
    try:
        run_id = start_run(store, conv, config, clients, source=source, fmt=transcript.format,
                           notice=lambda text: notes.append(("info", md_escape(text))))
    except Exception as exc:  # created in one transaction: a refused run leaves nothing behind
        for kind, text in notes:
            getattr(st, kind)(text)
        st.error(f"Could not start the run: {md_escape(f'{type(exc).__name__}: {exc}')}. "
                 "Nothing was stored.")
        return
    start_job(run_id, clients)
    st.session_state.run_id = run_id
    st.session_state.following = run_id
    st.session_state.job_notes = notes
    st.rerun()       # the sidebar and the jobs list now show the run


def run_form() -> None:
    chosen = choose_transcript()
    if chosen is None:
        return
    transcript, source = chosen
    conv_id = preview(transcript)
    config = settings()
    tau_admits(config.tau, config.embedder)
    same = finished_run(get_store(), transcript.conversation(conv_id), source, config)
    if same is not None:
        offer_existing(same)
    # once a stored run is offered, opening it is the main action, building again the other
    if st.button("Run" if same is None else "Run it again anyway",
                 type="primary" if same is None else "secondary", key="run_button"):
        execute(transcript, conv_id, source, config)


def offer_existing(run_id: str) -> None:
    """This input and these settings were run already: offer that run."""
    info = runs.get_run(get_store(), run_id)
    c1, c2 = st.columns([4, 1], vertical_alignment="center")
    c1.info(md_escape(f"{info.name} ({run_id}) was built from this transcript with these "
                      "settings: open it rather than build the same memory again."))
    if c2.button("Open it", key="open_same_run", type="primary", width="stretch"):
        st.session_state.run_id = run_id
        st.session_state.job_outcome = ("success", f"Opened {md_escape(info.name)} ({run_id}): "
                                                   "every page shows it now.")
        st.rerun()      # the sidebar shows it too
