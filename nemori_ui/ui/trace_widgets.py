"""The Trace page's pieces: a window's spans on one timeline, and one span taken apart."""

from __future__ import annotations

import json

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from nemori_ui.core.errors import InputError
from nemori_ui.core.replay import replay_call, replays_of
from nemori_ui.core.views.trace import STAGE_ORDER, Span, WindowTrace
from nemori_ui.ui.call_widgets import call_view
from nemori_ui.ui.jobs.runs import session_clients
from nemori_ui.ui.jobs.tasks import mine, outcome, submit, watch
from nemori_ui.ui.safe import md_escape
from nemori_ui.ui.state import get_store

# one colour per stage, the order of the method
STAGE_COLOURS = dict(zip(STAGE_ORDER, ("#4C78A8", "#72B7B2", "#54A24B", "#EECA3B", "#F58518",
                                       "#E45756")))


def span_name(span: Span) -> str:
    where = f" {span.episode_id}" if span.episode_id else ""
    return f"#{span.seq} {span.stage}{where}"


def timeline_figure(trace: WindowTrace) -> go.Figure:
    """Each timed span a bar from its first request to its last reply; untimed ones left out."""
    timed = [s for s in trace.spans if s.start_s is not None]
    fig = go.Figure()
    for stage in STAGE_ORDER:
        mine = [s for s in timed if s.stage == stage]
        if not mine:
            continue
        fig.add_bar(
            y=[span_name(s) for s in mine], x=[max(s.duration_s, 0.005) for s in mine],
            base=[s.start_s for s in mine], orientation="h", name=stage,
            marker_color=STAGE_COLOURS[stage],
            customdata=[[s.label, s.input_tokens, s.output_tokens, s.cached, s.retries]
                        for s in mine],
            hovertemplate="%{y}: %{customdata[0]}<br>%{base:.2f} s + %{x:.2f} s<br>"
                          "%{customdata[1]} in / %{customdata[2]} out tokens · "
                          "%{customdata[3]} cached · %{customdata[4]} retries<extra></extra>")
    order = [span_name(s) for s in timed]
    fig.update_layout(height=max(220, 22 * len(order) + 90), barmode="overlay",
                      margin=dict(l=10, r=10, t=10, b=40), legend_title_text="stage",
                      xaxis_title="seconds from the window's first request",
                      yaxis=dict(categoryorder="array", categoryarray=order[::-1]))
    return fig


# The rule's text is the longest: given its own width, it no longer pushes the score, tokens
# and retries out of sight on a laptop screen (the span's detail shows it whole).
SPAN_COLUMNS = {"span": st.column_config.TextColumn(width=150),
                "decided": st.column_config.TextColumn(width=100),
                "rule": st.column_config.TextColumn(width=190),
                "score": st.column_config.NumberColumn(format="%.3f", width=60),
                "seconds": st.column_config.NumberColumn(format="%.2f", width=64)}


def span_table(trace: WindowTrace) -> pd.DataFrame:
    return pd.DataFrame(
        [{"span": span_name(s), "decided": s.label, "rule": s.rule, "score": s.score,
          "seconds": s.duration_s, "calls": s.calls, "cached": s.cached, "retries": s.retries,
          "in": s.input_tokens, "out": s.output_tokens, "start s": s.start_s,
          "by": s.decided_by} for s in trace.spans],
        columns=["span", "decided", "rule", "score", "seconds", "calls", "cached", "retries",
                 "in", "out", "start s", "by"])


def span_detail(span: Span, event, calls: dict, run_id: str, config) -> None:
    """The decision as recorded, and every call it made in full."""
    st.markdown(f"**{md_escape(span_name(span))}**: {md_escape(span.label)}, decided by "
                f"{md_escape(span.decided_by)}")
    if span.rule:
        st.caption(f"Rule or reason: {md_escape(span.rule)}"
                   + (f" · score {span.score:.3f}" if span.score is not None else ""))
    with st.expander("The decision as recorded", expanded=not span.call_ids):
        st.json(event.payload.model_dump(mode="json"))
    for call_id in span.call_ids:
        c = calls.get(call_id)
        if c is None:
            st.caption(f"Call {md_escape(call_id)} is not stored with this run.")
            continue
        with st.expander(f"Call {c.id} · {c.prompt_name} · {c.status}"
                         + (" · cached" if c.cached else ""), expanded=len(span.call_ids) == 1):
            call_view(c, key=f"trace_{c.id}")
            replay_section(c, run_id, config)
    if span.call_ids:
        watch(("replay",), title="Replaying")
        outcome(mine("replay"), lambda job: None)


def _replay_work(c, messages: list[dict], config, run_id: str):
    def work(job):
        gateway = getattr(session_clients(config).decider, "gateway", None)
        if gateway is None:
            raise InputError("no model to replay with: give the API key or base URL on the Run "
                             "page")
        return replay_call(gateway, c, messages, config, run_id)
    return work


def replay_section(c, run_id: str, config) -> None:
    """Send this call again with its messages edited, as a job; its replays and their changes."""
    st.markdown("**Replay with an edited prompt**")
    with st.form(f"replay_form_{c.id}"):
        edited = [dict(m, content=st.text_area(
            f"Message {i}: {m.get('role', '?')}", str(m.get("content") or ""), height=160,
            key=f"replay_{c.id}_{i}")) for i, m in enumerate(c.messages, start=1)]
        go = st.form_submit_button("Replay this call")
    if go:
        submit("replay", _replay_work(c, edited, config, run_id), label=f"{c.prompt_name} {c.id}")
    done = replays_of(get_store(), run_id, c)
    if not done:
        st.caption("Not replayed yet. A replay is kept beside the run as a variant: what the run "
                   "stored does not change.")
        return
    for r in done:
        what = "edited prompt" if r.edited else "same prompt"
        if not r.ok:
            st.warning(f"Replay {md_escape(r.call_id)} ({what}) failed: {md_escape(r.error or '')}")
        elif not r.changes:
            st.caption(f"Replay {md_escape(r.call_id)} ({what}): the same decision.")
        else:
            st.caption(f"Replay {md_escape(r.call_id)} ({what}): the decision changes.")
            st.dataframe(pd.DataFrame([{"field": ch.field,
                                        "before": json.dumps(ch.before, ensure_ascii=False),
                                        "after": json.dumps(ch.after, ensure_ascii=False)}
                                       for ch in r.changes]),
                         hide_index=True, key=f"replay_changes_{r.call_id}")
