"""The page list, the sidebar every page shows, and the standard page opening."""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit.runtime.pages_manager import PagesManager

from ..core.deciders.offline import OFFLINE_LABEL
from ..core.store import runs
from ..core.views.run_data import RunData
from .look import app_style
from .safe import md_escape
from .resume import resume_button
from .state import current_run, health, init_state, list_runs, run_data

# the tab icon, a file served by the app: a Material or emoji icon is fetched from a font or
# image server, which fails offline on every page
ICON = Path(__file__).resolve().parents[1] / "data" / "favicon.png"
# (file, title, icon, section): the sections group the navigation so every page stays in view;
# Material icons, which ship with Streamlit (emoji draw as boxes without an emoji font)
PAGES = [
    ("pages/overview.py", "Overview", ":material/home:", "Start"),
    ("pages/run.py", "Run", ":material/play_arrow:", "Start"),
    ("pages/demo.py", "Prediction demo", ":material/slideshow:", "Start"),
    ("pages/live.py", "Live", ":material/bolt:", "Start"),
    ("pages/partitions.py", "Partitions", ":material/view_week:", "Stages"),
    ("pages/episodes.py", "Episodes", ":material/auto_stories:", "Stages"),
    ("pages/prediction_error.py", "Prediction error", ":material/track_changes:", "Stages"),
    ("pages/knowledge.py", "Knowledge", ":material/psychology:", "Stages"),
    ("pages/memory_map.py", "Memory map", ":material/scatter_plot:", "Explore"),
    ("pages/ask.py", "Ask", ":material/chat:", "Explore"),
    ("pages/timeline.py", "Memory over time", ":material/timeline:", "Explore"),
    ("pages/calls.py", "Calls and cost", ":material/receipt_long:", "Explore"),
    ("pages/trace.py", "Trace", ":material/view_timeline:", "Explore"),
    ("pages/tuning.py", "Tuning", ":material/tune:", "Research"),
    ("pages/compare.py", "Compare runs", ":material/compare_arrows:", "Research"),
    ("pages/evaluation.py", "Evaluation", ":material/bar_chart:", "Research"),
]


def method_label(config) -> str:
    """How the semantic stages ran, with each choice that follows the v1 code named. The
    offline engine makes no call, so what only sets the calls is left out for it."""
    offline = config.backend == "offline"
    if offline and config.consolidation != "off":
        parts = ["consolidation of every insight by the offline rules"]
    elif config.consolidation == "gated":
        parts = [f"consolidation gated at {config.consolidation_gate:g}, "
                 f"one call per {config.consolidation_unit}"]
    else:
        parts = [f"consolidation {config.consolidation}"]
    if config.semantic_order == "window":
        parts.append("window order (v1)")
    if config.cold_start == "narrative" and not offline:
        parts.append("narrative cold start (v1)")
    return " · ".join(parts)


def navigation_pages() -> dict[str, list]:
    sections: dict[str, list] = {}
    for i, (path, title, icon, section) in enumerate(PAGES):
        sections.setdefault(section, []).append(
            st.Page(path, title=title, icon=icon, default=(i == 0)))
    return sections


def prefetch_charts() -> None:
    """Draw an empty 10-pixel chart at the foot of the sidebar on a session's first page.

    The browser loads the charting code the first time a page holds a chart, which took
    4-6 s of the memory map's first visit after a start (2 s once the code was loaded);
    loaded while the visitor reads the first page, no page waits for it later.
    """
    if st.session_state.get("charts_prefetched"):
        return
    st.session_state.charts_prefetched = True
    import plotly.graph_objects as go

    blank = go.Figure().update_layout(height=10, margin=dict(l=0, r=0, t=0, b=0),
                                      xaxis=dict(visible=False), yaxis=dict(visible=False),
                                      paper_bgcolor="rgba(0,0,0,0)",
                                      plot_bgcolor="rgba(0,0,0,0)")
    with st.sidebar:
        st.plotly_chart(blank, key="prefetch_charts",
                        config={"staticPlot": True, "displayModeBar": False})


def sidebar() -> None:
    with st.sidebar:
        st.markdown("### Nemori Inspector")
        listed = list_runs()
        info = current_run()
        if not listed:
            st.caption("No run yet. Start one on the Run page.")
            return
        ids = [r.id for r in listed]
        # the picker has its own key: run_id stays plain state that any page may set
        # the closed picker cuts a long name to its width (its open list wraps each option):
        # the whole name in its help, and wrapped under it
        st.selectbox("Run", ids, index=ids.index(info.id),
                     format_func=dict(zip(ids, picker_labels(listed))).get,
                     key=f"run_picker_{info.id}", on_change=_pick_run, args=(info.id,),
                     help=md_escape(f"{info.name} · {info.id}"))
        engine = "offline engine, no LLM" if info.decider == OFFLINE_LABEL else info.decider
        st.caption(f"**{md_escape(info.name)}**" + (
            f" ({info.status})" if info.status != "done" else "") + "  \n"
                   f"Decided by: **{md_escape(engine)}**  \n"
                   f"τ = {info.config.tau:g} · w = {info.config.window} · "
                   f"{info.config.variant} · {info.config.management} · "
                   f"{method_label(info.config)}")
        note = health(info).describe()
        if note:
            st.warning(md_escape(f"{note[0].upper()}{note[1:]}."))
        resume_button(info)


def picker_labels(listed: list[runs.RunInfo]) -> list[str]:
    """One distinct label per run. The selectbox keeps its choice by label, so two runs of one
    transcript started in the same minute must still differ: every label ends in the run id
    (which starts with the run's UTC start time)."""
    return [f"{r.name}" + ("" if r.status == "done" else f" ({r.status})") + f" · {r.id}"
            for r in listed]


def run_page_link() -> None:
    try:
        st.page_link("pages/run.py", label="Go to the Run page", icon=":material/play_arrow:")
    except Exception:  # a page opened without the router has no page registry to link into
        st.caption("Open the Run page from the navigation.")


def _pick_run(shown: str) -> None:
    st.session_state.run_id = st.session_state[f"run_picker_{shown}"]


@st.cache_resource(show_spinner=False)
def _router() -> dict:
    return {"ran": False}


def router_ran() -> None:
    """app.py says it has declared the navigation in this server."""
    _router()["ran"] = True


def leave_automatic_navigation() -> None:
    """Rerun through the router when Streamlit ran this page with its automatic pages/ menu.

    Until some script has called st.navigation, a server whose app has a folder named pages/
    serves every file in it as a page of an automatic menu (app.py included, as "app"), and a
    session whose first request is a page's URL runs that page without app.py: the sidebar
    then lists file names and its Overview link finds no page. Ending that mode and rerunning
    lets app.py's navigation resolve the same URL.
    """
    if PagesManager.uses_pages_directory and not _router()["ran"]:
        PagesManager.uses_pages_directory = False
        st.rerun()


def page_setup(title: str, *, needs_run: bool = True, run_notes: bool = True,
               whole_run: bool = True) -> RunData | runs.RunInfo | None:
    """Every page starts here, so any page also works when opened on its own.

    With `whole_run=False` the page gets the run's `RunInfo` and reads what it shows itself
    (counts and pages of rows from the store): loading a big run whole takes seconds."""
    leave_automatic_navigation()
    # again here, not only in app.py: a page opened by its URL before the router has run
    # would otherwise render narrow, under Streamlit's default title
    st.set_page_config(page_title=f"{title} · Nemori Inspector", page_icon=str(ICON),
                       layout="wide")
    init_state()
    app_style()
    sidebar()
    prefetch_charts()
    st.title(title)
    info = current_run()
    if info is None:
        if needs_run:
            st.info("No run to show yet: run the bundled sample or a transcript of yours first.")
            run_page_link()
        return None
    data = run_data(info) if whole_run else info
    if not run_notes:
        return data
    if info.decider == OFFLINE_LABEL:
        st.caption("Results from the **offline engine, no LLM**: decisions made from embeddings "
                   "and rules.")
    if info.status != "done":
        st.warning(f"This run is {info.status} ({info.windows_done} of "
                   f"{info.windows_total} windows done)"
                   + (f": {md_escape(info.error)}" if info.error else "."))
    return data
