"""The Live page's controls: the memory to feed (a new one, the demo, or the current run),
typing a message as either speaker, stepping or playing a transcript, and Flush, in one row. Each button
acts in a callback, before the page is drawn, so what it did shows at once."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import streamlit as st

from ..core.config import PipelineConfig
from ..core.errors import InputError
from ..core.live import LiveFeed, LiveFeeds, new_live_run
from ..core.live_input import DEMO, DEMO_WINDOW, replay_name, typed_message, typed_time
from ..core.live_view import last_typed_time
from ..core.store import runs
from ..core.transcripts import parse_transcript
from ..core.views.run_data import RunData, load_run_data
from .jobs.runs import registry, session_clients
from .presenter import is_presenting, key_bindings, presenter_toggle
from .safe import md_escape
from .state import get_store, home, run_data

DATA = Path(__file__).resolve().parents[1] / "data"
SCRIPTS = {"Live demo": DEMO, "Bundled sample": DATA / "sample_conversation.txt"}


@st.cache_resource(show_spinner=False)
def feeds() -> LiveFeeds:
    """The server's live feeds: one per run, shared by every tab, on the jobs registry."""
    return LiveFeeds(registry())


@st.cache_resource(show_spinner=False, max_entries=4)
def _live_data(home_path: str, run_id: str, stamp: str, messages: int) -> RunData:
    return load_run_data(get_store(), run_id)


def feed_working(run_id: str) -> bool:
    """Whether the server's feed of the run is adding messages or processing a window."""
    feed = feeds().get(run_id)
    return feed is not None and (feed.busy or feed.playing)


def live_data(info: runs.RunInfo, *, changing: bool = False) -> RunData:
    """The run as stored now. While nothing feeds it, the load the other pages share (a switch
    from them to Live loads nothing again); while a feed adds messages, a cache of its own,
    keyed by the message count too, since a feed adds several messages within the second its
    update time is stamped to, and a new load each second must not push the other pages'
    runs out of theirs."""
    count = get_store().query("SELECT count(*) FROM messages WHERE run_id = ?", (info.id,))[0][0]
    if not changing:
        shared = run_data(info)
        if len(shared.messages) == count:
            return shared
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
    """The run to feed: the current one, or a new live memory with the Run page's settings.
    One line, so the memory's reactions start high on the screen."""
    if st.session_state.pop("live_demo_requested", False):
        open_demo()
        st.rerun()
    c1, c2, c3, c4 = st.columns([4, 2, 2, 2.6], vertical_alignment="center")
    # first: the caption says where other runs are, and presenter mode hides the sidebar
    presenting = presenter_toggle(c4)
    if info is not None:
        c1.caption(f"Feeding **{md_escape(info.name)}** · `{info.id}` · w = "
                   f"{info.config.window} · τ = {info.config.tau:g} · "
                   f"{md_escape(info.decider)}"
                   + ("" if presenting else " (pick another run in the sidebar)"))
    else:
        c1.caption("No memory yet: start one, or open the demo.")
    if c2.button("New live memory", key="live_new", width="stretch",
                 help="An empty run with the Run page's settings (backend, model, w, τ ...)"):
        try:
            start_memory(PipelineConfig.model_validate(st.session_state.config))
        except (InputError, ValueError) as exc:
            st.error(md_escape(str(exc)))
            return info
        st.rerun()
    if c3.button("Open the demo", key="live_demo", width="stretch",
                 type="primary" if info is None else "secondary",
                 help="A new offline memory (w = 10) with the demo script loaded"):
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
    fills. Folded away by default: stepping a script is what a presenter does most."""
    names = speakers(data, feed)
    problem = st.session_state.pop("live_problem", None)
    with st.expander("Type a message as either speaker", expanded=bool(problem)):
        with st.form("live_type", clear_on_submit=True, border=False):
            c = st.columns([2, 5, 2, 1], vertical_alignment="bottom")
            c[0].radio("Speaker", names, horizontal=True, key="live_speaker",
                       format_func=md_escape)
            c[1].text_input("Message", key="live_text", placeholder="I moved house last week.")
            c[2].checkbox("Starts a new session", key="live_new_session")
            c[3].form_submit_button("Send", type="primary", on_click=_send,
                                    args=(feed, last_typed_time(data)))
        if problem:
            st.error(md_escape(problem))


def _send(feed: LiveFeed, last) -> None:
    # a callback runs before the script, so the page drawn next already holds the message
    state = st.session_state
    now = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
    try:
        feed.add(typed_message(state.get("live_speaker") or "", state.get("live_text") or "",
                               when=typed_time(last, now)),
                 new_session=bool(state.get("live_new_session")))
    except InputError as exc:
        state.live_problem = str(exc)


def script_box(info: runs.RunInfo, feed: LiveFeed) -> None:
    """One row: the transcript, Load, Step, Play or Pause, the speed, Flush and Restart. No
    tooltips on Step and Play: a tooltip over the row hid the speed while a presenter stepped.
    In presenter mode Space presses Step and R presses Restart."""
    with st.container(border=True):
        c = st.columns([2.8, 1, 1, 1.2, 2.4, 1, 1.2], vertical_alignment="bottom")
        choice = c[0].selectbox("Transcript to play", [*SCRIPTS, "Upload a file"],
                                key="live_script")
        upload = None
        if choice == "Upload a file":
            upload = st.file_uploader("Transcript file", key="live_upload",
                                      type=["json", "jsonl", "csv", "txt", "md"])
        if c[1].button("Load", key="live_load", width="stretch",
                       disabled=choice == "Upload a file" and not upload,
                       help="Play it from its first message; its sessions follow the run's"):
            try:
                if upload is not None:
                    load_script(info, upload.getvalue(), upload.name)
                else:
                    load_script(info, SCRIPTS[choice].read_bytes(), SCRIPTS[choice].name)
            except InputError as exc:
                st.error(f"Cannot read this file. {md_escape(str(exc))}")
        script = feed.script
        # callbacks run before the script: the page drawn next shows what they did
        c[2].button("Step", key="live_step", width="stretch",
                    disabled=script is None or script.done or feed.playing, on_click=feed.step)
        if feed.playing:
            c[3].button("Pause", key="live_pause", width="stretch", on_click=feed.pause)
        else:
            c[3].button("Play", key="live_play", width="stretch",
                        disabled=script is None or script.done,
                        on_click=lambda: feed.play(st.session_state.live_speed))
        c[4].slider("Seconds per message", 0.2, 5.0, 1.5, 0.1, key="live_speed")
        c[5].button("Flush", key="live_flush", width="stretch", on_click=_flush, args=(feed,),
                    help="Close the partial window in the buffer and process it now, as the "
                         "official library's flush does")
        c[6].button("Restart", key="live_restart", width="stretch", disabled=script is None,
                    on_click=restart, args=(info, feed),
                    help="Play the transcript again from its first message, in a new memory "
                         "with this run's settings (this one is kept)")
        if is_presenting():
            key_bindings({" ": "live_step", "r": "live_restart"}, c[6])
        if script is None:
            st.caption("No transcript loaded: choose one and Load it, or type a message.")
        elif script.done:
            played_in_full(info, script.source)


def played_in_full(info: runs.RunInfo, source: str) -> None:
    """Step and Play are off once a script is in: say why, and offer to play it again."""
    c1, c2 = st.columns([3, 1], vertical_alignment="center")
    c1.info(md_escape(f"All of {source} is in this memory: Step and Play have nothing left "
                      "to add, and loading it again would store every message twice."))
    c2.button("Replay in a new memory", key="live_replay", width="stretch",
              on_click=replay, args=(info, source))


def replay(info: runs.RunInfo, source: str) -> str:
    """A new memory with the run's settings and the same transcript loaded from its start."""
    raw = next((path.read_bytes() for path in SCRIPTS.values() if path.name == source), None)
    if raw is None:
        upload = st.session_state.get("live_upload")
        raw = upload.getvalue() if upload is not None and upload.name == source else None
    if raw is None:
        st.session_state.live_problem = f"{source} is no longer at hand: load it again."
        return info.id
    run_id = start_memory(info.config, name=replay_name(info.name))
    load_script(runs.get_run(get_store(), run_id), raw, source)
    return run_id


def restart(info: runs.RunInfo, feed: LiveFeed) -> None:
    """The script from its first message in a new memory: what is stored is never unstored."""
    if feed.script is None:
        return
    feed.pause()
    replay(info, feed.script.source)


def _flush(feed: LiveFeed) -> None:
    if not feed.flush():
        st.toast("The buffer is empty: nothing to flush.")
