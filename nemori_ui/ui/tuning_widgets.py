"""Charts and runners shared by the tuning pages: sweeps, comparison, demo, memory over time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from ..core.clients import build_clients
from ..core.config import PipelineConfig
from ..core.pipeline.runner import run_windows, start_run
from ..core.projection import pca_basis, pca_project
from ..core.store import runs
from ..core.transcripts import load_transcript
from ..core.tuning.sweep import flat
from ..core.views.run_data import RunData
from .safe import html_text
from .state import clear_data_cache, get_store, list_runs, sweep_point

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample_conversation.txt"
FIGURES = ["episodes", "integrated", "insights", "active_memories", "merges", "conflicts",
           "stored_tokens", "calls_made", "calls_reused"]


def sibling_points(info: runs.RunInfo) -> pd.DataFrame:
    """Every finished run of the same conversation is a point of one big sweep."""
    same = [r for r in list_runs() if r.conversation_id == info.conversation_id
            and r.source == info.source and r.status == "done"]
    return pd.DataFrame([flat(sweep_point(r)) for r in same])


def line_plots(frame: pd.DataFrame, param: str, figure: str) -> go.Figure:
    data = frame.sort_values(param)
    colour = "variant" if frame["variant"].nunique() > 1 and param != "variant" else None
    return px.line(data, x=param, y=figure, color=colour, markers=True,
                   title=f"{figure.replace('_', ' ')} against {param}")


def parallel(frame: pd.DataFrame, ranges: dict[str, tuple]) -> go.Figure:
    dims = []
    for col in ["tau", "window", *FIGURES]:
        if col in frame and frame[col].nunique() >= 1:
            lo, hi = float(frame[col].min()), float(frame[col].max())
            dim = {"label": col.replace("_", " "), "values": frame[col],
                   "range": [lo, hi if hi > lo else lo + 1]}
            if col in ranges:
                dim["constraintrange"] = list(ranges[col])
            dims.append(dim)
    fig = go.Figure(go.Parcoords(line={"color": frame["insights"], "colorscale": "Viridis"},
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


def map_figure(rows: list[dict], title: str, colour: str = "kind") -> go.Figure:
    frame = pd.DataFrame(rows)
    if frame.empty:
        return go.Figure().update_layout(title=title + " (empty)", height=420)
    frame["hover"] = frame["text"].map(lambda t: html_text(t[:160]))
    fig = px.scatter(frame, x="x", y="y", color=colour, hover_name="id",
                     hover_data={"hover": True, "x": False, "y": False}, title=title)
    fig.update_layout(height=420, margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return fig


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


def run_demo_pair() -> tuple[str, str]:
    """Nemori and Nemori-s on the bundled sample with the offline engine (a few seconds)."""
    store = get_store()
    transcript = load_transcript(SAMPLE)
    conv = transcript.conversations[0]
    ids = []
    for variant in ("nemori", "nemori-s"):
        config = PipelineConfig(variant=variant)
        clients = build_clients(config, store)
        run_id = start_run(store, conv, config, clients, source=SAMPLE.name,
                           fmt=transcript.format, name=f"demo · {variant}")
        if runs.get_run(store, run_id).status != "done":
            run_windows(store, run_id, clients)
        ids.append(run_id)
    clear_data_cache()
    st.session_state.demo_runs = tuple(ids)
    return ids[0], ids[1]
