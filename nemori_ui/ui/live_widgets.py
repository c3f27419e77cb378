"""The Live page's parts: choosing the memory to feed, typing and playing messages, and the
panel that follows the memory as it reacts (refreshed on its own, never blocking the page).

The stage views are those of the Partitions, Prediction error and Knowledge pages.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from ..core.config import PipelineConfig
from ..core.errors import InputError
from ..core.live import DEMO, DEMO_WINDOW, LiveFeed, LiveFeeds, new_live_run, typed_message
from ..core.live_view import (buffer, last_window, predicted_not_stored,
                              stable_map, window_story, windows_log)
from ..core.store import runs
from ..core.transcripts import parse_transcript
from ..core.views.knowledge import decision_counts
from ..core.views.partitions import boundaries, message_frame, session_spans
from ..core.views.run_data import RunData, load_run_data
from .append_form import mark_appends, stored_markers
from .episodic_charts import (evoked_figure, insights_html, legend_html, prediction_html,
                              raw_html, ribbon_figure, show_html)
from .jobs import registry, session_clients
from .map_widgets import map_figure
from .safe import md_escape
from .state import get_store, home

DATA = Path(__file__).resolve().parents[1] / "data"
SCRIPTS = {"Live demo": DEMO, "Bundled sample": DATA / "sample_conversation.txt"}
BUSY_S, IDLE_S = 1.0, 3.0  # how often the panel refreshes while the feed works / otherwise
ACTION_COLOUR = {"new": "#1c7ed6", "merge": "#7048e8", "conflict": "#e03131",
                 "already known": "#868e96"}


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
        who = st.radio("Speaker", names, horizontal=True, key="live_speaker")
        text = st.text_input("Message", key="live_text", placeholder="I moved to Lisbon.")
        new_session = st.checkbox("Starts a new session", key="live_new_session")
        sent = st.form_submit_button("Send", type="primary")
    if sent:
        try:
            feed.add(typed_message(who, text), new_session=new_session)
        except InputError as exc:
            st.error(md_escape(str(exc)))


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
        st.caption(md_escape(f"{script.source}: {script.position} of {len(script.messages)} "
                             "messages added" + (" · playing" if feed.playing else "")))
        nxt = script.next_message
        if nxt is not None:
            st.text(f"next: {nxt.speaker}: {nxt.text[:120]}")
        speed = st.slider("Seconds per message", 0.2, 5.0, 1.5, 0.1, key="live_speed")
        c = st.columns(3)
        if c[0].button("Step", key="live_step", disabled=script.done or feed.playing,
                       help="Add the next message now"):
            feed.step()
        if feed.playing:
            if c[1].button("Pause", key="live_pause"):
                feed.pause()
        elif c[1].button("Play", key="live_play", disabled=script.done,
                         help="Add one message at this speed; it goes on when the page is left"):
            feed.play(speed)
        c[2].empty()


def flush_button(feed: LiveFeed) -> None:
    if st.button("Flush", key="live_flush", help="Close the partial window in the buffer and "
                 "process it now, as the official library's flush does"):
        if not feed.flush():
            st.toast("The buffer is empty: nothing to flush.")


def live_panel(run_id: str) -> None:
    """The memory as it reacts: redrawn every second while the feed works (a fragment: the
    rest of the page is not rerun), every few seconds otherwise so messages added by another
    process (an agent using the Python API) show up too."""
    feed = feeds().get(run_id)
    working = feed is not None and (feed.busy or feed.playing)

    @st.fragment(run_every=BUSY_S if working else IDLE_S)
    def panel() -> None:
        info = runs.get_run(get_store(), run_id)
        data = live_data(info)
        now = feeds().get(run_id)
        if now is not None and (now.busy or now.playing) != working:
            st.rerun()      # started or stopped: the controls change too
        status_row(data, now)
        left, right = st.columns([2, 3])
        with left:
            buffer_box(data)
            log_box(data)
        with right:
            story_box(data)
        partition_box(data)
        map_box(data)

    panel()


def status_row(data: RunData, feed: LiveFeed | None) -> None:
    counts = decision_counts(data)
    held = buffer(data)
    c = st.columns(6)
    c[0].metric("Messages", len(data.messages))
    c[1].metric("Windows processed", data.info.windows_done)
    c[2].metric("Active memories", sum(m.status == "active" for m in data.memories))
    c[3].metric("Predicted, not stored", predicted_not_stored(data),
                help="raw statements a prediction already held (offline engine)")
    c[4].metric("New · merge · conflict",
                f"{counts.get('new', 0)} · {counts.get('merge', 0)} · {counts.get('conflict', 0)}")
    c[5].metric("Buffer", f"{held['count']} / {held['window']}")
    progress = feed.progress if feed is not None else None
    if progress is not None and progress.stage != "done":
        st.progress(min(1.0, (progress.episode + 1) / max(1, progress.episodes_in_window))
                    if progress.episodes_in_window else 0.05,
                    text=f"window {progress.window + 1} closed: {progress.stage}"
                         + (f" (episode {progress.episode + 1} of {progress.episodes_in_window})"
                            if progress.episodes_in_window else ""))
    if feed is not None and feed.error:
        st.error(f"The feed stopped: {md_escape(feed.error)}. What was stored is kept.")


def buffer_box(data: RunData) -> None:
    held = buffer(data)
    st.markdown("**Buffer**")
    st.progress(min(1.0, held["count"] / max(1, held["window"])),
                text=f"{held['count']} of w = {held['window']} messages: the window closes "
                     "when it is full (or on Flush)")
    for m in held["pending"][-8:]:
        st.text(f"{m.id} · {m.speaker}: {m.text[:140]}")
    if held["count"] > 8:
        st.caption(f"… and {held['count'] - 8} earlier ones")


def log_box(data: RunData) -> None:
    log = windows_log(data)
    st.markdown("**Windows so far** (newest first)")
    if log.empty:
        st.caption("No window has closed yet.")
        return
    st.dataframe(log, hide_index=True, key="live_log")


def decision_chip(action: str, note: str) -> str:
    label = "already known" if action == "merge" and "changed nothing" in note else action
    colour = ACTION_COLOUR.get(label, "#495057")
    return (f"<span style='background:{colour};color:white;border-radius:4px;padding:0 6px;"
            f"font-size:0.8em'>{md_escape(label)}</span>")


def story_box(data: RunData) -> None:
    window = last_window(data)
    if window is None:
        st.info("Waiting for the first window to close.")
        return
    story = window_story(data, window)
    st.markdown(f"**Window {window}: {len(story)} episode(s)**")
    names = [f"{s['episode_id']}" for s in story]
    tabs = st.tabs(names) if len(story) > 1 else [st.container()]
    tau = data.info.config.tau
    for tab, s in zip(tabs, story):
        with tab:
            episode_story(data, s, tau)


def episode_story(data: RunData, s: dict, tau: float) -> None:
    st.text(s["cue"])
    st.caption(md_escape(f"{s['span']} · {s['messages']} messages"
                         + (" · continues an earlier episode" if s["integrated"] else "")))
    with st.expander("Narrative"):
        st.text(s["narrative"])
    seen, comp = s["evoked"], s["comparison"]
    if seen is not None:
        if seen["frame"].empty:
            st.caption("Evoked: nothing (semantic memory was empty).")
        else:
            if seen["cold_start"]:
                st.caption("Nothing known yet: no memory passed τ, so no prediction.")
            fig = evoked_figure(seen["frame"].head(5), seen["tau"], seen["management"] == "native")
            st.plotly_chart(fig, key=f"live_evoked_{s['episode_id']}",
                            config={"displayModeBar": False})
    if comp is not None:
        show_html(legend_html())
        if comp["mode"] == "direct":
            show_html(raw_html(comp["rows"]))
        else:
            left, right = st.columns(2)
            with left:
                st.caption("Predicted")
                show_html(prediction_html(comp["prediction_lines"]))
            with right:
                st.caption("Real")
                show_html(raw_html(comp["rows"]))
        st.caption("Insights and what consolidation did with each")
        show_html(insights_html(comp["insights"]) or "<i>none: the prediction held it all</i>")
    decisions = s["decisions"]
    if len(decisions):
        show_html(" ".join(f"{decision_chip(r.action, r.note)} {md_escape(str(r.result_id))}"
                           for r in decisions.itertuples()))


def partition_box(data: RunData) -> None:
    frame = message_frame(data)
    if frame.empty:
        return
    st.markdown("**Partition** (grey: still in the buffer)")
    fig = ribbon_figure(frame, "raw_episode", data.info.config.window, boundaries(frame),
                        session_spans(frame))
    mark_appends(fig, stored_markers(data.run_id))
    st.plotly_chart(fig, key="live_ribbon", config={"displayModeBar": False})


def map_box(data: RunData) -> None:
    frame = stable_map(data)
    if frame.empty:
        return
    st.markdown("**Memory map** (axes fitted on the first points and kept: nothing moves as "
                "memory grows; ringed: changed by the last window)")
    shown = frame[frame["status"] == "active"].reset_index(drop=True)
    xy = shown[["x", "y"]].to_numpy()
    fig = map_figure(shown, xy, "decision", marked=list(shown.loc[shown["newest"], "id"]),
                     height=420)
    pad = [(frame[c].max() - frame[c].min()) * 0.08 or 0.5 for c in ("x", "y")]
    fig.update_xaxes(range=[frame["x"].min() - pad[0], frame["x"].max() + pad[0]])
    fig.update_yaxes(range=[frame["y"].min() - pad[1], frame["y"].max() + pad[1]])
    st.plotly_chart(fig, key="live_map", config={"displaylogo": False})
