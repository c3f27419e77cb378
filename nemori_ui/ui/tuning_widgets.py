"""Charts and runners shared by the tuning pages: sweeps, comparison, demo, memory over time."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go

from ..core.clients import build_clients
from ..core.jobs import Job
from ..core.pipeline.runner import start_run
from ..core.projection import pca_basis, pca_project
from ..core.store import runs
from ..core.transcripts import load_transcript
from ..core.tuning.demo import VARIANTS, demo_config, stored_demo_runs
from ..core.tuning.sweep import flat, sorted_points
from ..core.views.run_data import RunData
from .jobs.runs import start_job
from .map_widgets import PALETTE, SYMBOLS
from .safe import html_text
from .state import get_store, list_runs, sweep_point

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample_conversation.txt"
FIGURES = ["evidence_recall", "episodes", "integrated", "insights", "active_memories", "merges",
           "conflicts", "stored_tokens", "calls_made", "calls_reused"]


def sibling_points(info: runs.RunInfo) -> pd.DataFrame:
    """Every finished run of the same conversation is a point of one big sweep, sorted by τ
    then w."""
    same = [r for r in list_runs() if r.conversation_id == info.conversation_id
            and r.source == info.source and r.status == "done"]
    return sorted_points(pd.DataFrame([asdict(flat(sweep_point(r))) for r in same]))


def figure_label(name: str) -> str:
    return "evidence recall@k" if name == "evidence_recall" else name.replace("_", " ")


def span(values: pd.Series) -> list[float]:
    """An axis range that spans the data; a constant gets a small margin around itself."""
    lo, hi = float(values.min()), float(values.max())
    if hi > lo:
        return [lo, hi]
    pad = abs(lo) * 0.05 or 0.5
    return [lo - pad, hi + pad]


def line_plots(frame: pd.DataFrame, param: str, figure: str, best: int | None = None
               ) -> go.Figure:
    data = frame.sort_values(param)
    # one line per value of the other parameter: points of one τ at two w are not a line
    other = {"tau": "window", "window": "tau"}.get(param)
    colour = next((c for c in (other, "variant") if c and c != param and c in frame
                   and frame[c].nunique() > 1), None)
    if colour:
        data = data.assign(**{colour: data[colour].astype(str)})
    fig = px.line(data, x=param, y=figure, color=colour, markers=True,
                  title=f"{figure_label(figure)} against {param}",
                  labels={figure: figure_label(figure)})
    if best is not None and best in frame.index and pd.notna(frame.loc[best, figure]):
        fig.add_scatter(x=[frame.loc[best, param]], y=[frame.loc[best, figure]], mode="markers",
                        name="best point", marker={"size": 16, "symbol": "star",
                                                   "color": "#d62728"})
    if pd.api.types.is_numeric_dtype(frame[param]):
        lo, hi = span(frame[param])
        pad = (hi - lo) * 0.05
        fig.update_xaxes(range=[lo - pad, hi + pad])
    if frame[figure].notna().any():
        lo, hi = span(frame[figure].dropna())
        margin = (hi - lo) * 0.08       # room for the best point's star
        fig.update_yaxes(range=[lo - margin, hi + margin])
    return fig


def parallel(frame: pd.DataFrame, ranges: dict[str, tuple], colour: str = "insights"
             ) -> go.Figure:
    dims = []
    for col in ["tau", "window", *FIGURES]:
        if col.startswith("calls_") and col in frame and not frame[col].any():
            continue        # the offline engine makes no call: no axis of zeros
        if col in frame and frame[col].notna().all():
            dim = {"label": figure_label(col), "values": frame[col], "range": span(frame[col])}
            if col in ranges:
                dim["constraintrange"] = list(ranges[col])
            dims.append(dim)
    shade = colour if colour in frame and frame[colour].notna().all() else "insights"
    fig = go.Figure(go.Parcoords(line={"color": frame[shade], "colorscale": "Viridis",
                                       "showscale": True,
                                       "colorbar": {"title": figure_label(shade)}},
                                 dimensions=dims))
    fig.update_layout(height=380, margin={"l": 40, "r": 40, "t": 40, "b": 20})
    return fig


def stable_positions(datas: list[RunData]) -> dict[tuple[str, str], tuple[float, float]]:
    """One PCA basis for every episode and memory of the given runs, so maps share axes and a
    point keeps its place whatever else is shown."""
    items = [(d.run_id, x.id, x.embedding) for d in datas
             for x in [*d.episodes, *d.memories] if x.embedding]
    if len(items) < 2:
        return {}
    vectors = np.asarray([v for _, _, v in items], dtype=np.float32)
    xy = pca_project(vectors, pca_basis(vectors))
    return {(r, i): (float(p[0]), float(p[1])) for (r, i, _), p in zip(items, xy)}


def map_figure(rows: list[dict], title: str, colour: str = "kind",
               axes: tuple[list[float], list[float]] | None = None) -> go.Figure:
    """`axes` (x range, y range) fixes the view, so two maps side by side share their axes."""
    frame = pd.DataFrame(rows)
    if frame.empty:
        return go.Figure().update_layout(title=title + " (empty)", height=420)
    frame["hover"] = frame["text"].map(lambda t: html_text(t[:160]))
    # the Memory map's colours and symbols: an episode looks the same on every page
    fig = px.scatter(frame, x="x", y="y", color=colour, hover_name="id", symbol="kind",
                     symbol_map=SYMBOLS, color_discrete_map=PALETTE.get(colour, {}),
                     hover_data={"hover": True, "x": False, "y": False}, title=title)
    fig.update_layout(height=420, margin={"l": 10, "r": 10, "t": 40, "b": 10})
    if axes:
        fig.update_xaxes(range=axes[0])
        fig.update_yaxes(range=axes[1])
    return fig


def shared_axes(positions: dict) -> tuple[list[float], list[float]] | None:
    """One x and one y range holding every position, with a margin."""
    if not positions:
        return None
    xs, ys = zip(*positions.values())
    out = []
    for values in (xs, ys):
        lo, hi = min(values), max(values)
        pad = (hi - lo) * 0.05 or 0.5
        out.append([lo - pad, hi + pad])
    return out[0], out[1]


def map_rows(data: RunData, positions: dict, keep: set[str] | None = None) -> list[dict]:
    rows = []
    for kind, items in (("episode", data.episodes), ("memory", data.memories)):
        for x in items:
            if (data.run_id, x.id) not in positions or (keep is not None and x.id not in keep):
                continue
            px_, py_ = positions[(data.run_id, x.id)]
            text = getattr(x, "cue", None) or getattr(x, "text", "")
            rows.append({"id": x.id, "kind": kind, "status": x.status, "x": px_, "y": py_,
                         "text": text})
    return rows


def sample_conversation():
    transcript = load_transcript(SAMPLE)
    return transcript, transcript.conversations[0]


def demo_pair() -> tuple[str, str] | None:
    """(Nemori run, Nemori-s run) of the demo, from the store; None until both have finished."""
    found = stored_demo_runs(get_store(), sample_conversation()[1], SAMPLE.name)
    return (found["nemori"], found["nemori-s"]) if len(found) == len(VARIANTS) else None


def start_demo() -> list[Job]:
    """Jobs for the demo runs not stored yet; an unfinished one is continued, not doubled."""
    store = get_store()
    transcript, conv = sample_conversation()
    found = stored_demo_runs(store, conv, SAMPLE.name)
    jobs = []
    for variant in VARIANTS:
        if variant in found:
            continue
        config = demo_config(variant)
        clients = build_clients(config, store)
        run_id = start_run(store, conv, config, clients, source=SAMPLE.name,
                           fmt=transcript.format, name=f"demo · {variant}")
        jobs.append(start_job(run_id, clients, kind="demo"))
    return jobs
