"""The Live page's controls: the memory to feed (a new one, the demo, or the current run),
typing a message as either speaker, stepping or playing a transcript, and Flush. Each button
acts in a callback, before the page is drawn, so what it did shows at once."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ..core.config import PipelineConfig
from ..core.errors import InputError
from ..core.live import DEMO, DEMO_WINDOW, LiveFeed, LiveFeeds, new_live_run, typed_message
from ..core.store import runs
from ..core.transcripts import parse_transcript
from ..core.views.run_data import RunData, load_run_data
from .jobs import registry, session_clients
from .safe import md_escape
from .state import get_store, home

DATA = Path(__file__).resolve().parents[1] / "data"
SCRIPTS = {"Live demo": DEMO, "Bundled sample": DATA / "sample_conversation.txt"}


@st.cache_resource(show_spinner=False)
def feeds() -> LiveFeeds:
    """The server's live feeds: one per run, shared by every tab, on the jobs registry."""
    return LiveFeeds(registry())


@st.cache_resource(show_spinner=False, max_entries=4)
def _live_data(home_path: str, run_id: str, stamp: str, messages: int) -> RunData:
    return load_run_data(get_store(), run_id)


def live_data(info: runs.RunInfo) -> RunData:
    """The run as stored now: keyed by its message count too, since a live feed adds several
    messages within the second its update time is stamped to."""
    count = get_store().query("SELECT count(*) FROM messages WHERE run_id = ?", (info.id,))[0][0]
    return _live_data(str(home()), info.id, f"{info.updated_at}|{info.windows_done}|"
                                            f"{info.status}", count)


def open_feed(info: runs.RunInfo) -> LiveFeed:
    return feeds().open(get_store(), info.id, lambda: session_clients(info.config))


def start_memory(config: PipelineConfig, *, name: str | None = None) -> str:
    clients = session_clients(config)
    run_id = new_live_run(get_store(), config, clients, name=name)
    feeds().open(get_store(), run_id, lambda: clients)
    st.session_state.run_id = run_id
    return run_id


def open_demo() -> str:
    """A new offline memory with the demo script loaded, ready to step or play."""
    run_id = start_memory(PipelineConfig(window=DEMO_WINDOW), name="live demo · w=10")
    load_script(runs.get_run(get_store(), run_id), DEMO.read_bytes(), DEMO.name)
    return run_id


def load_script(info: runs.RunInfo, raw: bytes, source: str) -> None:
    transcript = parse_transcript(raw, source=source)
    open_feed(info).load_script(transcript.conversations[0].messages, source)


def choose_memory(info: runs.RunInfo | None) -> runs.RunInfo | None:
    """The run to feed: the current one, or a new live memory with the Run page's settings."""
    if st.session_state.pop("live_demo_requested", False):
        open_demo()
        st.rerun()
    c1, c2, c3 = st.columns([4, 2, 2])
    if info is not None:
        c1.markdown(f"Feeding **{md_escape(info.name)}** · `{info.id}` · w = "
                    f"{info.config.window} · τ = {info.config.tau:g} · "
                    f"{md_escape(info.decider)}  \nPick another run in the sidebar.")
    else:
        c1.caption("No memory yet: start one, or open the demo.")
    if c2.button("New live memory", key="live_new", help="An empty run with the Run page's "
                 "settings (backend, model, w, τ ...)"):
        try:
            start_memory(PipelineConfig.model_validate(st.session_state.config))
        except (InputError, ValueError) as exc:
            st.error(md_escape(str(exc)))
            return info
        st.rerun()
    if c3.button("Open the demo", key="live_demo", type="primary" if info is None else
                 "secondary", help="A new offline memory (w = 10) with the demo script loaded"):
        open_demo()
        st.rerun()
    return info


def speakers(data: RunData, feed: LiveFeed) -> list[str]:
    names = list(dict.fromkeys(m.speaker for m in data.messages))
    if feed.script is not None:
        names += [m.speaker for m in feed.script.messages]
    return list(dict.fromkeys(names))[:2] or ["User", "Assistant"]


def type_box(data: RunData, feed: LiveFeed) -> None:
    """Type a message as either speaker; it is stored at once and processed when its window
    fills."""
    names = speakers(data, feed)
    with st.form("live_type", clear_on_submit=True, border=True):
        st.markdown("**Type a message**")
        st.radio("Speaker", names, horizontal=True, key="live_speaker", format_func=md_escape)
        st.text_input("Message", key="live_text", placeholder="I moved to Lisbon.")
        st.checkbox("Starts a new session", key="live_new_session")
        st.form_submit_button("Send", type="primary", on_click=_send, args=(feed,))
    problem = st.session_state.pop("live_problem", None)
    if problem:
        st.error(md_escape(problem))


def _send(feed: LiveFeed) -> None:
    # a callback runs before the script, so the page drawn next already holds the message
    state = st.session_state
    try:
        feed.add(typed_message(state.get("live_speaker") or "", state.get("live_text") or ""),
                 new_session=bool(state.get("live_new_session")))
    except InputError as exc:
        state.live_problem = str(exc)


def script_box(info: runs.RunInfo, feed: LiveFeed) -> None:
    """Step through a transcript one message at a time, or play it at a chosen speed."""
    with st.container(border=True):
        st.markdown("**Play a transcript**")
        c1, c2 = st.columns([3, 1])
        choice = c1.selectbox("Transcript", [*SCRIPTS, "Upload a file"], key="live_script",
                              label_visibility="collapsed")
        upload = None
        if choice == "Upload a file":
            upload = st.file_uploader("Transcript file", key="live_upload",
                                      type=["json", "jsonl", "csv", "txt", "md"])
        if c2.button("Load", key="live_load", disabled=choice == "Upload a file" and not upload,
                     help="Play it from its first message; its sessions follow the run's"):
            try:
                if upload is not None:
                    load_script(info, upload.getvalue(), upload.name)
                else:
                    load_script(info, SCRIPTS[choice].read_bytes(), SCRIPTS[choice].name)
            except InputError as exc:
                st.error(f"Cannot read this file. {md_escape(str(exc))}")
        script = feed.script
        if script is None:
            st.caption("No transcript loaded.")
            return
        st.slider("Seconds per message", 0.2, 5.0, 1.5, 0.1, key="live_speed")
        c = st.columns(3)
        # callbacks run before the script: the page drawn next shows what they did
        c[0].button("Step", key="live_step", disabled=script.done or feed.playing,
                    help="Add the next message now", on_click=feed.step)
        if feed.playing:
            c[1].button("Pause", key="live_pause", on_click=feed.pause)
        else:
            c[1].button("Play", key="live_play", disabled=script.done,
                        help="Add one message at this speed; it goes on when the page is left",
                        on_click=lambda: feed.play(st.session_state.live_speed))


def flush_button(feed: LiveFeed) -> None:
    st.button("Flush", key="live_flush", on_click=_flush, args=(feed,),
              help="Close the partial window in the buffer and process it now, as the "
                   "official library's flush does")


def _flush(feed: LiveFeed) -> None:
    if not feed.flush():
        st.toast("The buffer is empty: nothing to flush.")
