"""The Run page's "Continue this memory": append an upload or pasted text to a stored run, as a
job of the server, through the same core path as the `append` command."""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from ..core.errors import InputError
from ..core.live_view import AppendMarker, append_markers
from ..core.pipeline.append import append_transcript, unfinished_append
from ..core.store import appends, runs
from ..core.transcripts import parse_transcript
from .jobs.runs import registry, session_clients
from .safe import html_text, md_escape
from .state import get_store, list_runs

APPEND_COLOUR = "#e8590c"
PASTE_HELP = "`Speaker: text` lines, optional `[timestamp]` prefixes and `## Session` headings"


def incoming() -> tuple[bytes, str] | None:
    """(raw content, source name) from an upload or pasted text; None while there is none."""
    # labels of their own, and no file field until asked for: the run form above already
    # has an "Upload a file" and its file field
    kind = st.radio("Add", ["Pasted text", "A file"], horizontal=True, key="append_kind")
    if kind == "A file":
        upload = st.file_uploader("Transcript to append", key="append_upload",
                                  type=["json", "jsonl", "ndjson", "csv", "tsv", "txt", "md"])
        return (upload.getvalue(), upload.name) if upload is not None else None
    text = st.text_area("Messages to append", key="append_text", height=160,
                        placeholder="Maya: I moved to Berlin.\nJonas: Since when?",
                        help=PASTE_HELP)
    return (text.encode("utf-8"), "pasted.txt") if text.strip() else None


def continue_memory() -> None:
    with st.expander("Continue this memory: append more messages to a stored run"):
        listed = list_runs()
        if not listed:
            st.caption("No stored run to continue yet.")
            return
        names = {r.id: r.name for r in listed}
        run_id = st.selectbox("Run", list(names), format_func=lambda i: f"{names[i]} · {i}",
                              key="append_run")
        info = runs.get_run(get_store(), run_id)
        st.caption(f"The new messages follow message {len_messages(run_id)} with the run's "
                   f"settings (w = {info.config.window}, τ = "
                   f"{info.config.tau:g}); their sessions follow the run's, and they are "
                   "windowed after its last window.")
        got = incoming()
        history(run_id)
        if st.button("Append and process", key="append_button", disabled=got is None):
            start_append(info, *got)


def len_messages(run_id: str) -> int:
    return get_store().query("SELECT count(*) FROM messages WHERE run_id = ?",
                             (run_id,))[0][0]


def history(run_id: str) -> None:
    """The run's appends; consecutive messages a live feed added one by one are one row."""
    done = stored_markers(run_id)
    if done:
        st.dataframe(pd.DataFrame([{"source": m.source, "first message": f"m{m.position:04d}",
                                    "messages": m.count, "first window": m.first_window}
                                   for m in done]), hide_index=True, key="append_history")


def start_append(info: runs.RunInfo, raw: bytes, source: str) -> None:
    try:
        transcript = parse_transcript(raw, source=source)
    except InputError as exc:
        st.error(f"Cannot read this text. {md_escape(str(exc))}")
        return
    job = registry().get(info.id)
    if job is not None and job.alive:
        st.warning("This run is being processed (a run, an append or the Live page): append "
                   "once it is done.")
        return
    conv = transcript.conversations[0]
    try:
        clients = session_clients(info.config)
    except (InputError, ValueError) as exc:
        st.error(md_escape(str(exc)))
        return
    store = get_store()
    if unfinished_append(store, info.id, conv.messages) is not None:
        # the same messages were appended and interrupted: finish them, never add them twice
        from ..core.pipeline.runner import run_windows
        work = lambda report: run_windows(store, info.id, clients, progress=report)  # noqa: E731
    else:
        work = lambda report: append_transcript(  # noqa: E731
            store, info.id, conv.messages, clients, source=source, progress=report)
    registry().start(info.id, work, kind="append")
    st.session_state.run_id = info.id
    st.session_state.following = info.id
    st.rerun()


# ---------------------------------------------------------------- where appends started

def stored_markers(run_id: str) -> list[AppendMarker]:
    """Where each append of the run started (consecutive live messages are one marker)."""
    return append_markers(appends.load_appends(get_store(), run_id))


def mark_appends(fig: go.Figure, markers: list[AppendMarker]) -> None:
    """A line and the append's source where it started, on a chart whose x axis is the
    message position (1-based)."""
    if markers:     # room above the plot for the labels
        fig.update_layout(margin=dict(t=max(28, fig.layout.margin.t or 0)))
    for marker in markers:
        x = marker.position - 0.5
        fig.add_vline(x=x, line=dict(color=APPEND_COLOUR, width=2))
        fig.add_annotation(x=x, y=1.0, yref="paper", yanchor="bottom", xanchor="left",
                           showarrow=False, font=dict(size=11, color=APPEND_COLOUR),
                           text=html_text(f"+ {marker.source} ({marker.count})"))


def appends_strip(n: int, markers: list[AppendMarker], turn: int) -> go.Figure:
    """The transcript as one line, the appends marked where they started, and the chosen turn."""
    fig = go.Figure(go.Scatter(x=[1, n], y=[0, 0], mode="lines", hoverinfo="skip",
                               line=dict(color="#adb5bd", width=6), showlegend=False))
    fig.add_scatter(x=[turn], y=[0], mode="markers", hoverinfo="skip", showlegend=False,
                    marker=dict(size=14, color="#1c7ed6", symbol="diamond"))
    mark_appends(fig, markers)
    fig.update_layout(height=90, margin=dict(l=10, r=10, t=24, b=24),
                      xaxis=dict(range=[0.5, n + 0.5], title=None),
                      yaxis=dict(visible=False, range=[-1, 1]))
    return fig
