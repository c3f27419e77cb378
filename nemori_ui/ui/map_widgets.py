"""The memory space on screen: cached FAISS indexes and layouts, plotly figures, selections."""

from __future__ import annotations

import textwrap
from concurrent.futures import Future
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative
import streamlit as st

from ..core.pipeline.state import MemoryState
from ..core.projection import pca_basis, project, warm_umap
from ..core.views.run_data import RunData
from .projection_worker import ProjectionWorker
from .safe import html_text
from .state import home
from .tints import chart_ink

COLOR_BY = ("kind", "status", "session", "window", "speaker", "time", "decision")
SYMBOLS = {"episode": "diamond", "memory": "circle"}
# Fixed colours, so a category looks the same whatever else is on the map; the theme's
# default colourway put both kinds in two shades of blue.
PALETTE = {"kind": {"episode": "#ff7f0e", "memory": "#1f77b4"},
           "status": {"active": "#1f77b4", "superseded": "#9e9e9e"},
           "decision": {"episode": "#ff7f0e", "integrated": "#8c564b", "new": "#1f77b4",
                        "merge": "#2ca02c", "conflict": "#d62728", "append": "#9467bd",
                        "summary": "#17becf"}}
CYCLE = qualitative.Plotly
UNKNOWN = "#9e9e9e"
# Beyond this many points WebGL draws the map; SVG makes one page element per point.
WEBGL_FROM = 1000
HOVER_WIDTH, HOVER_CHARS = 70, 600


def run_stamp(data: RunData) -> str:
    """Changes whenever the run does, so caches keyed on it never serve stale content."""
    info = data.info
    return f"{info.updated_at}|{info.windows_done}|{info.status}"


@st.cache_resource(show_spinner=False, max_entries=8)
def _memory_state(home_path: str, run_id: str, stamp: str, _data: RunData) -> MemoryState | None:
    vectors = [x.embedding for x in [*_data.episodes, *_data.memories] if x.embedding]
    if not vectors:
        return None
    # the run's own index kind: an approximate index may rank neighbours differently
    return MemoryState.restore(len(vectors[0]), _data.episodes, _data.memories,
                               index_kind=getattr(_data.info.config, "index", "flat"))


def memory_state(data: RunData) -> MemoryState | None:
    """The run's active episodes and memories in their FAISS indexes, built once per run
    version and shared by every session (searches only read it)."""
    return _memory_state(str(home()), data.run_id, run_stamp(data), data)


@st.cache_data(show_spinner=False, max_entries=32)
def _layout(home_path: str, run_id: str, stamp: str, method: str, n_neighbors: int,
            min_dist: float, metric: str, _vectors: np.ndarray) -> np.ndarray:
    return project(_vectors, method, n_neighbors=n_neighbors, min_dist=min_dist, metric=metric)


def layout(data: RunData, vectors: np.ndarray, method: str, n_neighbors: int = 15,
           min_dist: float = 0.1, metric: str = "cosine") -> np.ndarray:
    """The 2-d layout of all the run's points, cached per run version, method and parameters."""
    params = (n_neighbors, min_dist, metric) if method == "umap" else (0, 0.0, "")
    return _layout(str(home()), data.run_id, run_stamp(data), method, *params, vectors)


@st.cache_resource(show_spinner=False)
def _projector() -> ProjectionWorker:
    """One background process for UMAP layouts, shared by every session, started when the map
    is first opened. Its first task imports UMAP and loads its kernels (numba: about 4 s of CPU
    once they are on disk, 10 s to a minute when compiled), while the map shows PCA; being
    another process it takes no time from the pages' own work."""
    worker = ProjectionWorker()
    worker.submit(warm_umap)
    return worker


def warm_projection() -> None:
    """Start loading UMAP in the background process, once per server process."""
    _projector()


@st.cache_resource(show_spinner=False, max_entries=32)
def _umap_future(home_path: str, run_id: str, stamp: str, n_neighbors: int, min_dist: float,
                 metric: str, _vectors: np.ndarray) -> Future:
    return _projector().submit(project, _vectors, "umap", n_neighbors=n_neighbors,
                               min_dist=min_dist, metric=metric)


def umap_layout(data: RunData, vectors: np.ndarray, n_neighbors: int = 15,
                min_dist: float = 0.1, metric: str = "cosine") -> np.ndarray | None:
    """The UMAP layout, or None while it is computed in the background (a page never waits for
    it: it shows PCA meanwhile)."""
    future = _umap_future(str(home()), data.run_id, run_stamp(data), n_neighbors, min_dist,
                          metric, vectors)
    return future.result() if future.done() else None


@st.cache_data(show_spinner=False, max_entries=8)
def _basis(home_path: str, run_id: str, stamp: str, _vectors: np.ndarray):
    return pca_basis(_vectors)


def active_pca(data: RunData, vectors: np.ndarray):
    """A PCA basis of the given (active) points, cached per run version."""
    return _basis(str(home()), data.run_id, run_stamp(data), vectors)


def hover_html(text: str) -> str:
    text = " ".join(str(text).split())
    if len(text) > HOVER_CHARS:
        text = text[:HOVER_CHARS - 1] + "…"
    return "<br>".join(html_text(line) for line in textwrap.wrap(text, HOVER_WIDTH)) or "(empty)"


def _trace(cls, group: pd.DataFrame, name: str, color, **marker):
    # an episode's decision repeats its kind unless it was integrated: said once
    said = group["kind"] + " · " + group["status"] + np.where(
        group["decision"] == group["kind"], "", " · " + group["decision"])
    custom = np.column_stack([group["row"], group["id"], said,
                              group["text"].map(hover_html)])
    return cls(x=group["x"], y=group["y"], mode="markers", name=name, customdata=custom,
               marker=dict(color=color, size=9, line=dict(width=0.5, color=chart_ink().gap),
                           symbol=[SYMBOLS.get(k, "circle") for k in group["kind"]],
                           opacity=np.where(group["status"] == "active", 0.9, 0.35), **marker),
               hovertemplate="<b>%{customdata[1]}</b> %{customdata[2]}<br>%{customdata[3]}"
                             "<extra></extra>")


def _time_ticks(seconds: pd.Series) -> tuple[list[float], list[str]]:
    ticks = np.linspace(seconds.min(), seconds.max(), 5)
    labels = [pd.Timestamp(t, unit="s").strftime("%Y-%m-%d %H:%M") for t in ticks]
    return ticks.tolist(), labels


def map_figure(frame: pd.DataFrame, xy: np.ndarray, color_by: str = "kind", *,
               marked: list[str] = (), marked_name: str = "retrieved",
               query_xy: np.ndarray | None = None, height: int = 560) -> go.Figure:
    """A scatter of the points: symbol by kind, faded when superseded, coloured by
    `color_by`; `marked` ids ringed and the query drawn as a star."""
    df = frame.assign(x=xy[:, 0] if len(xy) else [], y=xy[:, 1] if len(xy) else [],
                      row=np.arange(len(frame)))
    cls = go.Scattergl if len(df) >= WEBGL_FROM else go.Scatter
    fig = go.Figure()
    if color_by == "time":
        timed = df[df["time"].notna()]
        if len(timed):
            seconds = (timed["time"] - pd.Timestamp(0)).dt.total_seconds()
            tickvals, ticktext = _time_ticks(seconds)
            fig.add_trace(_trace(cls, timed, "time", seconds, colorscale="Viridis",
                                 colorbar=dict(title="time", tickvals=tickvals,
                                               ticktext=ticktext)))
        if len(timed) < len(df):
            fig.add_trace(_trace(cls, df[df["time"].isna()], "no time", "#9e9e9e"))
    else:
        values = df[color_by]
        named = {"session": lambda v: f"session {v}", "window": lambda v: f"window {v + 1}"}
        labels = values.map(lambda v: "unknown" if pd.isna(v) else
                            named.get(color_by, str)(v))
        # legend in the values' own order (session 2 before session 10), unknown last
        order = [labels[i] for i in values.dropna().sort_values(kind="stable").index]
        order += ["unknown"] if values.isna().any() else []
        fixed = PALETTE.get(color_by, {})
        for i, value in enumerate(dict.fromkeys(order)):
            color = UNKNOWN if value == "unknown" else fixed.get(value, CYCLE[i % len(CYCLE)])
            fig.add_trace(_trace(cls, df[labels == value], value, color))
    if len(marked):
        ring = df[df["id"].isin(list(marked))]
        fig.add_trace(cls(x=ring["x"], y=ring["y"], mode="markers", name=marked_name,
                          hoverinfo="skip", marker=dict(size=18, color="rgba(0,0,0,0)",
                                                        line=dict(width=2.5, color=chart_ink().strong))))
    if query_xy is not None:
        fig.add_trace(cls(x=[float(query_xy[0])], y=[float(query_xy[1])], mode="markers",
                          name="question", hoverinfo="name",
                          marker=dict(size=20, symbol="star", color="#ffc400",
                                      line=dict(width=1, color=chart_ink().strong))))
    fig.update_layout(height=height, margin=dict(l=10, r=10, t=30, b=10),
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0),
                      hoverlabel=dict(align="left"))
    fig.update_xaxes(showticklabels=False, title=None, zeroline=False)
    fig.update_yaxes(showticklabels=False, title=None, zeroline=False)
    return fig


def selected_rows(event) -> list[int]:
    """Rows of the frame picked by a click, box or lasso, in the order the chart sent them."""
    points = (event or {}).get("selection", {}).get("points", []) if event else []
    rows = []
    for p in points:
        custom = p.get("customdata")
        if custom:
            row = int(float(custom[0]))
            if row not in rows:
                rows.append(row)
    return rows


@dataclass(frozen=True)
class KeptSelection:
    """The last selection made on the map: its rows of the points shown, and which points were
    shown (`points`: run, kinds, window...), for the rows to mean the same points."""
    points: tuple
    rows: tuple[int, ...]


def kept_selection(rows: list[int], points: tuple, kept: KeptSelection | None, *,
                   cleared: bool = False) -> tuple[list[int], KeptSelection | None, bool]:
    """What the map's selection lists: (rows, what to keep, whether they were kept).

    A chart drawn anew (UMAP replacing PCA, another colouring, or back to the drawing the
    selection was made on) starts with nothing selected; the last selection is kept while the
    same points are shown, until one is made on the chart or the chart's selection is cleared
    (`cleared`: the chart reported a change to nothing selected)."""
    if rows:
        return rows, KeptSelection(points, tuple(rows)), False
    if kept is not None and kept.points == points and not cleared:
        return list(kept.rows), kept, True
    return [], None, False


def show_map(fig: go.Figure, key: str, *, selectable: bool = True,
             on_select=None) -> list[int]:
    """The chart, and the rows selected on it; `on_select` is called when the user changes the
    selection (a clear included), before the rerun that follows."""
    if not selectable:
        st.plotly_chart(fig, key=key, config={"displaylogo": False})
        return []
    event = st.plotly_chart(fig, key=key, on_select=on_select or "rerun",
                            selection_mode=("points", "box", "lasso"),
                            config={"displaylogo": False})
    return selected_rows(event)


def index_facts(state: MemoryState | None) -> None:
    """Kind, dimension and entries of both FAISS indexes."""
    if state is None:
        st.caption("No vectors in this run yet: the indexes are empty.")
        return
    for col, (name, index) in zip(st.columns(2), (("Episode index", state.episode_index),
                                                  ("Memory index", state.memory_index))):
        info = index.info()
        with col.container(border=True):
            st.markdown(f"**{name}** (FAISS)")
            c = st.columns(3)
            c[0].metric("Kind", info["kind"])
            c[1].metric("Dimension", info["dimension"])
            c[2].metric("Entries", info["entries"])
            st.caption(f"Metric: {info['metric']}; only active items are indexed.")
