"""Figures and HTML fragments for the Partitions, Episodes and Prediction error pages.

Transcript text reaches plotly only HTML-escaped (plotly renders hover and tick labels as HTML)
and reaches st.markdown only through `_safe`, which also neutralises markdown characters.
"""

from __future__ import annotations

import html
from types import MappingProxyType

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from ..core.stage_events import EpisodeText
from ..core.views.partitions import SessionSpan
from ..core.views.prediction import (ABOVE_TAU, BELOW_TAU, CARRIED, CONTINUED, LEARNT, PLAIN,
                                     RECALLED, evocations,
                                     PREDICTED)
from ..core.views.prediction_records import (ComparedMessage, Outcome, PredictionLine,
                                             ProducedInsight)
from . import tints
from .safe import html_text

# saturated colours first: neighbouring episodes must stay distinct from each other and from grey
PALETTE = tuple(px.colors.qualitative.Plotly + px.colors.qualitative.Dark24)
PENDING = "#d0d4da"
PASSED, NOT_PASSED, CONTINUED_COLOUR, RECALLED_COLOUR = "#2b8a3e", "#adb5bd", "#0b7285", "#1971c2"
# colour and hatching by why a memory was evoked: the Prediction error caption names them
EVOCATION_STYLE = MappingProxyType({ABOVE_TAU: (PASSED, ""), CONTINUED: (CONTINUED_COLOUR, "/"),
                                    RECALLED: (RECALLED_COLOUR, "."), BELOW_TAU: (NOT_PASSED, "")})
STYLE = MappingProxyType({  # status -> (background, border, text colour) of a raw message
    LEARNT: (tints.YELLOW, "#f59f00", "inherit"),
    PREDICTED: (tints.GREY, "#adb5bd", tints.MUTED_COLOUR),
    CARRIED: ("transparent", "#0b7285", tints.MUTED_COLOUR),
    PLAIN: ("transparent", tints.GREY, "inherit"),
})
# characters markdown or Streamlit's directives would read, as HTML entities
_MD_ENTITIES = str.maketrans({c: f"&#{ord(c)};" for c in "*_`[]~$:|\\!"})


def hover(text: str, limit: int = 160) -> str:
    """Transcript text for a plotly label: one line, shortened, escaped."""
    flat = " ".join(str(text).split())
    if len(flat) > limit:
        flat = flat[:limit - 1] + "…"
    return html.escape(flat, quote=False)


def _safe(text: str) -> str:
    return html_text(text).translate(_MD_ENTITIES)


def show_html(fragment: str) -> None:
    """Render a fragment built only from `_safe` text and this module's own markup."""
    st.markdown(fragment, unsafe_allow_html=True)


# ---------------------------------------------------------------- Partitions

def ribbon_figure(frame: pd.DataFrame, color_by: str, window: int, cuts: list[int],
                  sessions: list[SessionSpan]) -> go.Figure:
    """One cell per message, coloured by episode, over a thin strip of sessions.

    Every layer is a single trace (colours per point, lines joined with gaps): a trace or a
    shape per episode and per edge made the page take seconds on long transcripts.
    """
    n = len(frame)
    first = int(frame["pos"].iloc[0]) if n else 1   # a page of a big run starts further on
    order = list(dict.fromkeys(v for v in frame[color_by] if v))
    colour = {eid: PALETTE[i % len(PALETTE)] for i, eid in enumerate(order)}
    ink = tints.chart_ink()
    fig = go.Figure(go.Bar(
        x=frame["pos"], y=[1] * n, base=0, width=1, showlegend=False,
        marker=dict(color=[colour.get(v, PENDING) for v in frame[color_by]],
                    line=dict(width=0.5 if n <= 200 else 0, color=ink.gap)),
        customdata=[[hover(r.speaker, 40), hover(r.text), r.message, r.time,
                     r.raw_episode or "–", r.episode or "–", r.window]
                    for r in frame.itertuples(index=False)],
        hovertemplate=("<b>%{customdata[2]}</b> · %{customdata[3]} · window "
                       "%{customdata[6]}<br><b>%{customdata[0]}</b>: %{customdata[1]}"
                       "<br>raw episode %{customdata[4]} → episode %{customdata[5]}"
                       "<extra></extra>")))
    strip = [(x, ink.bands[i % 2], span.session) for i, span in enumerate(sessions)
             for x in range(span.first, span.last + 1)]
    fig.add_bar(x=[x for x, _, _ in strip], y=[0.22] * len(strip), base=-0.32, width=1,
                showlegend=False, marker=dict(color=[c for _, c, _ in strip], line=dict(width=0)),
                customdata=[s for _, _, s in strip],
                hovertemplate="session %{customdata}<extra></extra>")
    # where the window changes: every w messages, or earlier where a flush or an append cut it
    windows = list(frame["window"])
    edges = [first + p - 0.5 for p in range(1, n) if windows[p] != windows[p - 1]]
    for xs, style in ((edges, dict(color=ink.soft, width=1, dash="dot")),
                      ([p - 0.5 for p in cuts], dict(color=ink.strong, width=2, dash="dash"))):
        fig.add_scatter(x=[v for x in xs for v in (x, x, None)],
                        y=[v for _ in xs for v in (-0.05, 1.05, None)], mode="lines",
                        line=style, hoverinfo="skip", showlegend=False)
    at = frame.set_index("pos")
    fig.add_scatter(x=[p - 0.5 for p in cuts], y=[1.12] * len(cuts), mode="markers",
                    marker=dict(symbol="triangle-down", size=11, color=ink.strong),
                    showlegend=False,
                    customdata=[[p, int(at.at[p, "group"]), int(at.at[p, "window"]),
                                 hover(at.at[p, "reason"] or "no reason given")] for p in cuts],
                    hovertemplate=("cut before message %{customdata[0]} (group %{customdata[1]}"
                                   " of window %{customdata[2]})<br>%{customdata[3]}"
                                   "<extra></extra>"))
    fig.update_layout(
        barmode="overlay", bargap=0, height=260, margin=dict(l=10, r=10, t=10, b=40),
        xaxis=dict(title="message (transcript order)", range=[first - 0.5, first + n - 0.5],
                   showgrid=False),
        yaxis=dict(range=[-0.4, 1.25], tickvals=[-0.21, 0.5], ticktext=["session", "episode"],
                   showgrid=False, zeroline=False))
    return fig


# ---------------------------------------------------------------- Episodes

def candidates_figure(candidates: pd.DataFrame) -> go.Figure:
    """The earlier episodes a new one might continue, by similarity; the chosen one in colour."""
    frame = candidates.iloc[::-1]
    fig = go.Figure(go.Bar(
        x=frame["score"], y=frame["episode"], orientation="h",
        marker_color=[PASSED if c else NOT_PASSED for c in frame["chosen"]],
        customdata=[hover(c) for c in frame["cue"]],
        hovertemplate="%{y} (%{x:.3f})<br>%{customdata}<extra></extra>"))
    fig.update_layout(height=60 + 32 * len(frame), margin=dict(l=10, r=10, t=10, b=30),
                      xaxis=dict(title="similarity", range=[0, 1]))
    return fig


def narrative_block(title: str, text: EpisodeText | None) -> None:
    st.markdown(f"**{title}**")
    if not text:
        st.caption("none")
        return
    st.text(text.cue)
    st.caption("narrative")
    st.text(text.narrative)


# ---------------------------------------------------------------- Prediction error

def evoked_figure(frame: pd.DataFrame, tau: float, tau_applies: bool) -> go.Figure:
    """Every memory the cue looked at, by similarity, with τ as the line to pass."""
    rows = frame.iloc[::-1]
    labels = [f"{m} · {hover(t, 48)}" for m, t in zip(rows["memory"], rows["text"])]
    if tau_applies:
        why = evocations(rows, tau)
    else:   # naive RAG and the flat summary use what they looked at
        why = [ABOVE_TAU if p else BELOW_TAU for p in rows["passed"]]
    fig = go.Figure(go.Bar(
        x=rows["score"], y=labels, orientation="h",
        marker=dict(color=[EVOCATION_STYLE[w][0] for w in why],
                    pattern=dict(shape=[EVOCATION_STYLE[w][1] for w in why], fgcolor="white")),
        customdata=[[hover(t, 300), w] for t, w in zip(rows["text"], why)],
        hovertemplate="%{x:.3f} · %{customdata[1]}<br>%{customdata[0]}<extra></extra>"))
    if tau_applies:
        fig.add_vline(x=tau, line=dict(color="#c92a2a", width=2, dash="dash"),
                      annotation_text=f"τ = {tau:.2f}", annotation_position="top",
                      annotation_font=dict(color="#c92a2a", size=13))
    low = min(0.0, float(rows["score"].min())) if len(rows) else 0.0
    fig.update_layout(height=90 + 30 * len(rows), margin=dict(l=10, r=10, t=30, b=30),
                      xaxis=dict(title="cosine similarity to the cue", range=[low, 1.0]),
                      yaxis=dict(automargin=True))
    return fig


def similarity_histogram(frame: pd.DataFrame, tau: float) -> go.Figure:
    """The similarities evocation looked at, in bins, with τ as the line they must pass."""
    fig = go.Figure()
    why = evocations(frame, tau)
    for name in (BELOW_TAU, CONTINUED, RECALLED, ABOVE_TAU):
        part = frame[[w == name for w in why]]
        if name in (CONTINUED, RECALLED) and part.empty:
            continue
        colour = EVOCATION_STYLE[name][0]     # solid: a hatched legend swatch drew empty
        fig.add_trace(go.Histogram(x=part["score"], xbins=dict(start=-0.2, end=1.0, size=0.02),
                                   marker=dict(color=colour),
                                   name={CONTINUED: "below τ, continued",
                                         RECALLED: "below τ, called up by a statement"}
                                   .get(name, name)))
    fig.add_vline(x=tau, line=dict(color="#c92a2a", width=2, dash="dash"),
                  annotation_text=f"τ = {tau:.2f}", annotation_position="top",
                  annotation_font=dict(color="#c92a2a", size=13))
    fig.update_layout(barmode="stack", height=240, margin=dict(l=10, r=10, t=30, b=30),
                      xaxis=dict(title="cosine similarity of an episode to a memory it looked at",
                                 range=[max(-0.2, float(frame["score"].min()) - 0.05)
                                        if len(frame) else 0.0, 1.0]),
                      yaxis=dict(title="pairs"), legend=dict(orientation="h", y=1.15))
    return fig


def surprise_figure(table: pd.DataFrame, selected: str | None) -> go.Figure:
    """One bar per distilled episode in transcript order; height and colour are its surprise."""
    top = max(1.0, float(table["surprise"].max()) if len(table) else 1.0)
    ring = tints.chart_ink().strong
    fig = go.Figure(go.Bar(
        x=table["episode"], y=table["surprise"],
        marker=dict(color=table["surprise"], colorscale="YlOrRd", cmin=0, cmax=top,
                    line=dict(color=[ring if e == selected else "rgba(0,0,0,0)"
                                     for e in table["episode"]], width=3),
                    colorbar=dict(title="surprise", thickness=12)),
        customdata=[[hover(c, 90), s, i, n, cov] for c, s, i, n, cov in zip(
            table["cue"], table["span"], table["insights"], table["messages"], table["covered"])],
        hovertemplate=("<b>%{x}</b> · %{customdata[1]}<br>%{customdata[0]}<br>"
                       "%{customdata[2]} insights from %{customdata[3]} messages · "
                       "%{customdata[4]} predicted, not stored<br>surprise %{y:.2f}"
                       "<extra></extra>")))
    fig.update_layout(height=260, margin=dict(l=10, r=10, t=10, b=40),
                      xaxis=dict(title="episode, in the order the memory met them",
                                 type="category", tickangle=-45 if len(table) > 12 else 0,
                                 showticklabels=len(table) <= 80),
                      yaxis=dict(title="insights per message", range=[0, top * 1.05]))
    return fig


def clicked_episode(selection) -> str | None:
    """The episode of the bar clicked on the surprise strip, from the chart's selection state."""
    try:
        points = selection["selection"]["points"]
    except (KeyError, TypeError):
        return None
    return str(points[0]["x"]) if points else None


def _chip(status: str, label: str | None = None) -> str:
    bg, border, fg = STYLE[status]
    return (f"<span style='background:{bg};border:1px solid {border};color:{fg};"
            f"border-radius:4px;padding:0 6px;font-size:0.8em;white-space:nowrap'>"
            f"{_safe(label or status)}</span>")


def legend_html() -> str:
    return " ".join([_chip(LEARNT, "learnt: became an insight"), _chip(PREDICTED),
                     _chip(CARRIED), _chip(PLAIN, "plain: nothing to keep")])


def prediction_html(lines: list[PredictionLine]) -> str:
    if not lines:
        return f"<div style='{tints.MUTED}'><i>empty: nothing known was evoked</i></div>"
    parts = []
    for line in lines:
        n = len(line.held)
        tag = f" {_chip(PREDICTED, f'held {n} raw statement' + ('s' if n > 1 else ''))}" if n else ""
        parts.append(f"<div style='border-left:3px solid #4dabf7;padding:2px 8px;"
                     f"margin:4px 0'>{_safe(line.text)}{tag}</div>")
    return "".join(parts)


def raw_html(rows: list[ComparedMessage]) -> str:
    parts = []
    for row in rows:
        bg, border, fg = STYLE[row.status]
        # a statement that only repeats its message says nothing the highlight does not
        said = f"{row.speaker}: {row.text}".strip()
        shown = [t for t in row.learnt if t.strip() != said]
        notes = "".join(
            f"<div style='font-size:0.85em;margin-top:2px'>{_chip(LEARNT)} "
            f"{_safe(text)}</div>" for text in (row.learnt if shown else []))
        notes += "".join(
            f"<div style='font-size:0.85em;margin-top:2px'>"
            f"{_chip(PREDICTED if c.kind == 'predicted' else CARRIED)} "
            f"{'' if c.text.strip() == said else _safe(c.text)} "
            f"<span style='{tints.MUTED}'>held by the prediction “"
            f"{_safe(c.predicted_by or '')}” ({float(c.score or 0):.2f})"
            f"{f', first said in {_safe(c.learnt_from)}' if c.learnt_from else ''}</span></div>"
            for c in row.covered)
        parts.append(
            f"<div style='background:{bg};border-left:4px solid {border};color:{fg};"
            f"padding:4px 8px;margin:4px 0;border-radius:3px'>"
            f"<span style='font-size:0.75em;{tints.MUTED}'>{_safe(row.message)} · "
            f"{_safe(row.time)}</span><br><b>{_safe(row.speaker)}</b>: "
            f"{_safe(row.text)}{notes}</div>")
    return "".join(parts)


def _outcome(outcome: Outcome | None) -> str:
    if outcome is None:
        return "not consolidated"
    action, result = outcome.action, outcome.result_id or ""
    if outcome.unchanged:
        return f"already held by {result}"
    if action in ("merge", "conflict") and outcome.targets:
        return f"{action}: {', '.join(outcome.targets)} → {result}"
    return f"{action} → {result}"


def insights_html(insights: list[ProducedInsight]) -> str:
    parts = []
    for ins in insights:
        sources = "".join(
            f"<div style='font-size:0.85em;{tints.SOFT};margin-left:12px'>↳ "
            f"{_safe(s.message)} · <b>{_safe(s.speaker)}</b>: {_safe(s.text)}</div>"
            for s in ins.sources) or (f"<div style='font-size:0.85em;{tints.MUTED};"
                                         "margin-left:12px'>↳ cites no message</div>")
        bg, border, fg = STYLE[LEARNT]
        parts.append(
            f"<div style='margin:6px 0'><span style='background:{bg};color:{fg};"
            f"border-bottom:2px solid {border};padding:1px 4px'>{_safe(ins.text)}</span> "
            f"<span style='font-size:0.8em;{tints.MUTED}'>· {_safe(_outcome(ins.outcome))}"
            f"</span>{sources}</div>")
    return "".join(parts)
