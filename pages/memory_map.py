"""Memory map: episodes and semantic memories laid out in two dimensions (UMAP or PCA).
Select points to list them; pick one to see its nearest neighbours in the FAISS indexes."""

import streamlit as st

from nemori_ui.core.csv_cells import csv_text
from nemori_ui.core.projection import (METRICS, known_by, matching, nearest_neighbours,
                                       point_vectors, points_frame)
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.safe import md_escape
from nemori_ui.ui.map_widgets import (COLOR_BY, kept_selection, layout, map_figure,
                                      memory_state, run_stamp, show_map, umap_layout,
                                      warm_projection)
from nemori_ui.core.views.wording import plural

# Above this many points UMAP takes tens of seconds: PCA is shown until UMAP is asked for.
UMAP_ON_REQUEST_FROM = 2000
METHODS = {"umap": "UMAP", "pca": "PCA (instant)"}
TEXT = st.column_config.TextColumn(width="large")

# UMAP's kernels start loading in the background the first time a session opens the map, not
# at every server start: a server nobody asks for a map spends nothing on them
warm_projection()
data = page_setup("Memory map")
if data is None:
    st.stop()
frame = points_frame(data)
if frame.empty:
    st.info("No episodes or memories with vectors in this run yet.")
    st.stop()
vectors = point_vectors(data, frame)
large = len(frame) >= UMAP_ON_REQUEST_FROM
kinds_count = frame["kind"].value_counts()
st.caption(f"{plural(len(frame), 'point')}: {plural(int(kinds_count.get('episode', 0)), 'episode')}"
           f" (◆) and "
           f"{plural(int(kinds_count.get('memory', 0)), 'semantic memory', 'semantic memories')}"
           f" (●), one embedding space of dimension {vectors.shape[1]}. Faded points are "
           "superseded. Click a point, or pick the "
           "box or lasso tool above the chart and draw, to list what it holds.")

c1, c2, c3 = st.columns([1.2, 1, 1.6])
method = c1.radio("Layout", list(METHODS), format_func=METHODS.get, horizontal=True,
                  index=1 if large else 0, key="map_method")
color_by = c2.selectbox("Colour by", COLOR_BY, key="map_color")
kinds = c3.multiselect("Show", ["episode", "memory"], default=["episode", "memory"],
                       key="map_kinds")
superseded = c3.checkbox("Include superseded", value=True, key="map_superseded")
with st.expander("UMAP parameters", expanded=False):
    p1, p2, p3 = st.columns(3)
    n_neighbors = p1.slider("n_neighbors", 2, 100, 15, key="map_n_neighbors",
                            help="local (small) versus global (large) structure")
    min_dist = p2.slider("min_dist", 0.0, 0.99, 0.1, 0.01, key="map_min_dist",
                         help="how tightly points may pack")
    metric = p3.selectbox("metric", METRICS, key="map_metric")
    st.caption("PCA is linear and ignores these. Layouts are cached per run and parameters: "
               "coming back to one is instant.")

params = (n_neighbors, min_dist, metric)
requested = st.session_state.setdefault("map_umap_requested", [])
wanted = (data.run_id, run_stamp(data), *params)
if method == "umap" and large and list(wanted) not in requested:
    st.info(f"UMAP on {len(frame):,} points takes a while; PCA is shown until you ask for it.")
    if st.button("Compute UMAP", key="map_compute_umap"):
        requested.append(list(wanted))
        st.rerun()
    method = "pca"

# UMAP is computed in the background: the page shows PCA until it is ready, then redraws
xy = umap_layout(data, vectors, *params) if method == "umap" else None
pending = method == "umap" and xy is None
if xy is None:
    xy = layout(data, vectors, "pca")
shown_method = "pca" if pending else method
st.caption(f"Layout shown: **{METHODS[shown_method].split(' (')[0]}**" + (
    ". UMAP is being computed in the background and replaces it when ready (the first UMAP "
    "after a server start also compiles its kernels)." if pending else "."))
if pending:
    @st.fragment(run_every=1.0)
    def _swap_when_ready() -> None:
        if umap_layout(data, vectors, *params) is not None:
            st.rerun()

    _swap_when_ready()
s1, s2 = st.columns([2, 1.4])
query = s1.text_input("Search the map", key="map_search",
                      placeholder="words every lit point holds, e.g. a name or a place")
last = int(frame["window"].max())
upto = s2.slider("As the memory stood after window", 1, last + 1, last + 1, key="map_upto",
                 help="scrub through time: only what was made by the end of that window is "
                      "shown (its status is today's)") if last > 0 else 1
mask = frame["kind"].isin(kinds) & (superseded | (frame["status"] == "active"))
mask &= known_by(frame, upto - 1)
shown, shown_xy = frame[mask].reset_index(drop=True), xy[mask.to_numpy()]
if shown.empty:
    st.info("Nothing to show with these filters.")
    st.stop()
# the selection holds row numbers of `shown`: a chart per filter keeps them meaningful
chart_key = f"map_chart_{shown_method}_{'-'.join(sorted(kinds))}_{superseded}_{upto}"
hits = shown["id"][matching(shown, query)].tolist()
if query.strip():
    st.caption(f"**{len(hits)}** of {len(shown)} shown points hold every word of "
               f"“{md_escape(query.strip())}”: ringed on the map and listed below.")


def _selection_changed() -> None:
    st.session_state.map_selection_changed = True


rows = [r for r in show_map(map_figure(shown, shown_xy, color_by, marked=hits,
                                       marked_name="matches search"), key=chart_key,
                            on_select=_selection_changed)
        if r < len(shown)]
# a redrawn chart (UMAP arriving, another colouring) forgets its selection: the page keeps it
rows, st.session_state.map_kept, kept = kept_selection(
    rows, (data.run_id, run_stamp(data), tuple(sorted(kinds)), superseded, upto),
    st.session_state.get("map_kept"),
    cleared=st.session_state.pop("map_selection_changed", False))

st.subheader("Selection")
if kept:
    k1, k2 = st.columns([5, 1])
    k1.caption(f"Kept from before the map was redrawn: {plural(len(rows), 'point')}. Select on "
               "the map to replace it.")
    if k2.button("Clear", key="map_clear_kept"):
        st.session_state.map_kept = None
        st.rerun()
if not rows and hits:
    rows = shown.index[shown["id"].isin(hits)].tolist()
    st.caption("Nothing selected on the map: the search's matches are listed.")
if rows:
    columns = ["id", "kind", "status", "decision", "session", "window", "speaker", "time", "text"]
    picked = shown.iloc[rows][columns]
    # an episode's "decision" is its kind again unless it absorbed others (integrated)
    picked = picked.assign(decision=picked["decision"].where(picked["decision"] != "episode", ""),
                           window=picked["window"] + 1)
    st.dataframe(picked,
                 hide_index=True, key="map_selection", column_config={"text": TEXT})
    st.download_button(f"Export these {len(picked)} (CSV)", csv_text(
        columns, picked.astype(object).where(picked.notna(), "").itertuples(index=False)),
        file_name=f"{data.run_id}-map-selection.csv", mime="text/csv", key="map_export")
else:
    st.caption("Nothing selected: click a point, or use the box or lasso tool of the chart.")

st.subheader("Nearest neighbours")
state = memory_state(data)
ids = shown["id"].tolist()
clicked = shown.iloc[rows[0]]["id"] if len(rows) == 1 else None
if clicked and clicked != st.session_state.get("map_last_click"):
    # a new click moves the focus; reruns that follow leave a manual choice alone
    st.session_state.map_last_click = clicked
    st.session_state.map_focus = clicked
if st.session_state.get("map_focus") not in ids:
    st.session_state.map_focus = ids[0]
labels = dict(zip(shown["id"], shown["kind"] + " " + shown["id"] + " · " + shown["label"].str[:80]))
focus = st.selectbox("Neighbours of", ids, format_func=labels.get, key="map_focus")
k = st.slider("How many", 1, 30, 8, key="map_k")
if state is not None:
    vector = vectors[frame.index[frame["id"] == focus][0]]
    near = nearest_neighbours(state, vector, k, exclude=focus)
    st.caption(f"Cosine similarity in the run's FAISS indexes (active items only), "
               f"excluding {focus} itself.")
    st.dataframe(near, hide_index=True, key="map_neighbours", column_config={"text": TEXT})
