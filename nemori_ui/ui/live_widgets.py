"""The Live page's panel: the memory as it reacts, refreshed on its own without blocking the
page. The stage views are those of the Partitions, Prediction error and Knowledge pages.
"""

from __future__ import annotations

import streamlit as st

from ..core.live import LiveFeed
from ..core.live_view import (EpisodeStory, buffer, last_window, predicted_not_stored,
                              stable_map, window_moments, window_story, windows_log)
from ..core.presenter_banners import window_banners
from ..core.store import runs
from ..core.views.partitions import boundaries, message_frame, session_spans
from ..core.views.run_data import RunData
from ..core.views.wording import plural
from .append_form import mark_appends, stored_markers
from .episodic_charts import (evoked_figure, insights_html, legend_html, prediction_html,
                              raw_html, ribbon_figure, show_html)
from .live_controls import feed_working, feeds, live_data
from .map_widgets import map_figure
from .presenter import is_presenting, scroll_to, show_banners
from .safe import html_text, md_escape
from .state import get_store

BUSY_S, IDLE_S = 1.0, 3.0  # the panel refreshes while the feed works / looks for a change
LOG_ROWS = 8
SHORT = {"predicted, not stored": "predicted"}    # a window's moment on its picker chip
ACTION_COLOUR = {"new": "#1c7ed6", "merge": "#7048e8", "conflict": "#e03131",
                 "already known": "#868e96"}


def compact_top() -> None:
    """Less blank space above the title: on a 1280×800 screen the buffer and the newest
    decisions must show without scrolling."""
    st.html("<style>[data-testid='stMainBlockContainer']{padding-top:2.5rem}</style>")


def live_panel(run_id: str) -> None:
    """The memory as it reacts: redrawn every second while the feed works (a fragment: the
    rest of the page is not rerun). Otherwise drawn once, and a watcher that draws nothing
    looks every few seconds for messages added by another process (an agent using the Python
    API) and reruns the page only when something did change: a panel redrawn for nothing
    fades and flickers every time."""
    working = feed_working(run_id)

    @st.fragment(run_every=BUSY_S if working else None)
    def panel() -> None:
        info = runs.get_run(get_store(), run_id)
        now = feeds().get(run_id)
        if feed_working(run_id) != working:
            st.rerun()      # started or stopped: the controls change too
        data = live_data(info, changing=working)
        # every part in its own container, so the element tree keeps its shape from one
        # refresh to the next and charts are updated in place, not drawn again from nothing
        # the buffer and the newest decisions first: on a laptop screen they are what shows
        with st.container():
            status_row(data, now)
        left, right = st.columns([2, 3])
        with left:
            with st.container():
                buffer_box(data)
            with st.container():
                log_box(data)
        with right:
            story_box(data)
        with st.container():
            partition_box(data)
        with st.container():
            map_box(data)

    panel()
    if not working:
        drawn = shown_state(run_id)

        @st.fragment(run_every=IDLE_S)
        def watch() -> None:
            if shown_state(run_id) != drawn:
                st.rerun()

        watch()


def shown_state(run_id: str) -> tuple:
    """What the panel shows depends on: the run's row, its message count and the feed's state."""
    store = get_store()
    info = runs.get_run(store, run_id)
    count = store.query("SELECT count(*) FROM messages WHERE run_id = ?", (run_id,))[0][0]
    feed = feeds().get(run_id)
    script = feed.script if feed is not None else None
    return (info.updated_at, info.windows_done, info.status, info.name, count,
            feed_working(run_id), feed.error if feed is not None else None,
            script.position if script is not None else None)


def status_row(data: RunData, feed: LiveFeed | None) -> None:
    log = windows_log(data)
    held = buffer(data)
    c = st.columns(6)
    c[0].metric("Messages", len(data.messages))
    c[1].metric("Windows processed", data.info.windows_done)
    c[2].metric("Active memories", sum(m.status == "active" for m in data.memories))
    c[3].metric("Predicted", predicted_not_stored(data),
                help="facts told again that the memory predicted from what an earlier episode "
                     "taught, so not stored (the offline engine reports them)")
    c[4].metric("Decisions", " · ".join(str(int(log[a].sum()))
                                                    for a in ("new", "merge", "conflict")),
                help="consolidation decisions: new · merge · conflict (a merge that changed "
                     "nothing, the fact being already known, is not counted)")
    c[5].metric("Buffer", f"{held.count} / {held.window}")
    with st.container():
        doing(feed)


def doing(feed: LiveFeed | None) -> None:
    """Where the script is, which window is being processed, and why a feed stopped: one line
    of text, so that the decisions below do not jump down while a window is processed."""
    parts = []
    script = feed.script if feed is not None else None
    if script is not None:
        # here, not beside the buttons: the panel is what refreshes while a play goes on
        nxt = script.next_message
        parts.append(f"{script.source}: {script.position} of {len(script.messages)} messages "
                     "added" + (" · playing" if feed.playing else "")
                     + (f" · next: {nxt.speaker}: {nxt.text[:60]}" if nxt else ""))
    progress = feed.progress if feed is not None else None
    if progress is not None and progress.stage != "done":
        parts.append(f"window {progress.window + 1} closed: {progress.stage}"
                     + (f" (episode {progress.episode + 1} of {progress.episodes_in_window})"
                        if progress.episodes_in_window else ""))
    if parts:
        st.caption(md_escape(" · ".join(parts)))
    if feed is not None and feed.error:
        st.error(f"The feed stopped: {md_escape(feed.error)}. What was stored is kept.")


def buffer_box(data: RunData) -> None:
    held = buffer(data)
    st.markdown("**Buffer**")
    st.progress(min(1.0, held.count / max(1, held.window)),
                text=f"{held.count} of w = {held.window} messages: the window closes "
                     "when it is full (or on Flush)")
    lines = [f"{m.id} · {m.speaker}: {m.text[:140]}" for m in held.pending[-8:]]
    if held.count > 8:
        lines.insert(0, f"… and {held.count - 8} earlier ones")
    st.text("\n".join(lines) or "(empty)")


def log_box(data: RunData) -> None:
    log = windows_log(data)
    st.markdown("**Windows so far** (newest first)")
    if log.empty:
        st.caption("No window has closed yet.")
        return
    # a static table: a data grid redrawn every second flickers
    shown = log.head(LOG_ROWS).rename(columns={"predicted, not stored": "predicted",
                                               "already known": "known"})
    # the window numbers shown: Streamlit's table hides an index unless told
    st.table(shown[["window", "predicted", "new", "merge", "conflict"]]
             .set_index("window"), hide_index=False)
    if len(log) > LOG_ROWS:
        st.caption(f"… and {plural(len(log) - LOG_ROWS, 'earlier window')} (all on the "
                   f"Knowledge page)")


def decision_chip(action: str, note: str) -> str:
    label = "already known" if action == "merge" and "changed nothing" in note else action
    colour = ACTION_COLOUR.get(label, "#495057")
    return (f"<span style='background:{colour};color:white;border-radius:4px;padding:0 6px;"
            f"font-size:0.8em'>{html_text(label)}</span>")


def story_box(data: RunData) -> None:
    newest = last_window(data)
    if newest is None:
        st.info("Waiting for the first window to close.")
        return
    # the presenter's banners and the window's heading in one box, scrolled into view as one;
    # the windows to pick from under it, wrapping, so a long play's are not scrolled out of it
    top, pick = st.container(key="live_newest"), st.container()
    with pick:
        window = window_picker(data, newest)
    story = window_story(data, window)
    with top:
        if is_presenting():
            show_banners(window_banners(data, window, story))
            scroll_to(".st-key-live_newest", f"{data.run_id}:{window}")
        # the window's decisions in its heading: what a viewer waits for, high on the screen
        chips = " ".join(f"{decision_chip(r.action, r.note)} {html_text(str(r.result_id))}"
                         for s in story for r in s.decisions.itertuples())
        show_html(f"<b class='live-newest'>Window {window}: {plural(len(story), 'episode')}</b> "
                  f"{chips}")
    names = [s.episode_id for s in story]
    tabs = st.tabs(names) if len(story) > 1 else [st.container()]
    tau = data.info.config.tau
    for tab, s in zip(tabs, story):
        with tab:
            episode_story(data, s, tau)


def window_picker(data: RunData, newest: int) -> int:
    """Which window's story to show: the newest unless the reader goes back to one, e.g. the
    last "predicted, not stored" moment after the play has moved on. Keyed by the newest
    window, so a window closing brings the story forward again."""
    moments = window_moments(data)
    picked = st.segmented_control(
        "Window", list(moments), key=f"live_window_{data.run_id}_{newest}",
        label_visibility="collapsed", wrap=True,
        format_func=lambda w: " · ".join([f"{w}", *(SHORT.get(m, m)
                                                     for m in moments.get(w, []))]))
    window = picked or newest
    earlier = [w for w, found in moments.items() if w < window and "predicted, not stored" in found]
    if earlier and "predicted, not stored" not in moments.get(window, []):
        st.caption(f"The last \"predicted, not stored\" moment was in window {earlier[-1]}.")
    return window


def episode_story(data: RunData, s: EpisodeStory, tau: float) -> None:
    st.text(s.cue)
    st.caption(md_escape(f"{s.span} · {plural(s.messages, 'message')}"
                         + (" · continues an earlier episode" if s.integrated else "")))
    decisions = s.decisions
    if len(decisions):
        show_html(" ".join(f"{decision_chip(r.action, r.note)} {html_text(str(r.result_id))}"
                           for r in decisions.itertuples()))
    with st.expander("Narrative"):
        st.text(s.narrative)
    seen, comp = s.evoked, s.comparison
    if seen is not None:
        if seen.frame.empty:
            st.caption("Evoked: nothing (semantic memory was empty).")
        else:
            if seen.cold_start:
                st.caption("Nothing known yet: no memory passed τ, so no prediction.")
            fig = evoked_figure(seen.frame.head(5), seen.tau, seen.management == "native")
            st.plotly_chart(fig, key=f"live_evoked_{s.episode_id}",
                            config={"displayModeBar": False})
    if comp is not None:
        show_html(legend_html())
        if comp.mode == "direct":
            show_html(raw_html(comp.rows))
        else:
            left, right = st.columns(2)
            with left:
                st.caption("Predicted")
                show_html(prediction_html(comp.prediction_lines))
            with right:
                st.caption("Real")
                show_html(raw_html(comp.rows))
        st.caption("Insights and what consolidation did with each")
        show_html(insights_html(comp.insights) or "<i>none: the prediction held it all</i>")


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
    for trace in fig.data:
        if trace.name == "retrieved":
            trace.name = "changed by the last window"
    st.plotly_chart(fig, key="live_map", config={"displaylogo": False})
