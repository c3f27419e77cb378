"""Partitions: where the transcript was cut into episodes, and why."""

import streamlit as st

from nemori_ui.core.store import page_reads
from nemori_ui.core.views.episodes import head_label, message_table
from nemori_ui.core.views.partitions import (PAGE_ROWS, boundaries, cuts_table, episodes_among,
                                             message_page, partition_figures, session_spans,
                                             window_table)
from nemori_ui.ui.append_form import mark_appends, stored_markers
from nemori_ui.ui.episodic_charts import ribbon_figure
from nemori_ui.ui.layout import page_setup
from nemori_ui.ui.mark_widgets import mark_control
from nemori_ui.ui.readable import readable_gaps, without_constant
from nemori_ui.ui.state import get_store, partition_source
from nemori_ui.core.views.wording import plural

info = page_setup("Partitions", whole_run=False)
if info is None:
    st.stop()

src = partition_source(info)
figures = partition_figures(src)
if not figures.partitioned:
    st.info("No window has been partitioned yet.")
    st.stop()

w = info.config.window
st.markdown(
    f"The transcript is buffered into windows of **w = {w}** messages; each full window is cut "
    "into episodes, and an episode may later be merged into an earlier one it continues.")

total = len(src.message_ids)
offset = 0
if total > PAGE_ROWS:     # a big run is read and drawn a page of messages at a time
    starts = list(range(0, total, PAGE_ROWS))
    offset = st.selectbox(
        "Messages", starts, key=f"part_page_{info.id}",
        format_func=lambda s: f"{s + 1:,}–{min(s + PAGE_ROWS, total):,} of {total:,}",
        help=f"The ribbon and the tables below show {PAGE_ROWS:,} messages at a time")
frame = message_page(get_store(), info.id, src, offset, PAGE_ROWS)
shown_windows = set(frame["window"])

COLOR_BY = {"episode": "Episode after integration", "raw_episode": "Episode as partitioned"}
color_by = st.radio("Colour messages by", list(COLOR_BY), format_func=COLOR_BY.get,
                    horizontal=True, key=f"part_color_{info.id}")
cuts = boundaries(frame)
ribbon = ribbon_figure(frame, color_by, w, cuts, session_spans(frame))
appended = stored_markers(info.id)
mark_appends(ribbon, appended)
st.plotly_chart(ribbon, key=f"part_ribbon_{info.id}_{color_by}_{offset}",
                config={"displayModeBar": False})
st.caption("One cell per message. Dotted lines: window edges (every w messages, or earlier "
           "where a flush or an append closed a window). Dashed lines and ▼: cuts inside a "
           "window (hover ▼ for the reason). Bottom strip: sessions, alternating shades. Hover "
           "a cell for its speaker and text."
           + (" Orange lines: where each append started, with its source." if appended else ""))

windows = window_table(src)
repaired = int(windows["repaired"].sum())
c = st.columns(4)
c[0].metric("Windows partitioned", f"{len(windows)} of {info.windows_total}")
c[1].metric("Episodes as partitioned", figures.raw_episodes)
c[2].metric("Episodes after integration", figures.episodes)
c[3].metric("Repaired partitions", repaired,
            help="windows whose proposed partition omitted, repeated or misplaced a message")

st.subheader("Windows")
if repaired:
    st.warning(f"{plural(repaired, 'window')} had a partition that was not a clean partition "
               f"of the "
               "window; the repairs are listed below and nothing was lost.")
else:
    st.caption("Every proposed partition was already valid: no repair was needed.")
only = st.toggle("Only repaired windows", key=f"part_only_repaired_{info.id}",
                 disabled=not repaired)
# the repaired windows of the whole run; otherwise those of the messages shown
st.dataframe(windows[windows["repaired"]] if only else
             windows[windows["window"].isin(shown_windows)], hide_index=True,
             column_config={"repaired": st.column_config.CheckboxColumn("repaired"),
                            "proposed (1-based)": st.column_config.TextColumn(
                                width="medium",
                                help="groups of positions within the window, as proposed"),
                            "kept (1-based)": st.column_config.TextColumn(
                                width="medium",
                                help="the groups after repair; '|' separates episodes")})

st.subheader("Cuts and their reasons")
st.caption("One row per episode a window was cut into. The reason is the partitioner's: a "
           "topic label from an LLM, or the signal the offline engine cut at.")
cut_rows = cuts_table(src)
cut_rows = cut_rows[cut_rows["window"].isin(shown_windows)].copy()
cut_rows["reason"] = cut_rows["reason"].map(readable_gaps)
# a group is always contiguous after repair; the column only matters when one is not
st.dataframe(without_constant(cut_rows, "contiguous"), hide_index=True,
             column_config={"reason": st.column_config.TextColumn(width="large")})

st.subheader("Messages of an episode")
# those of the messages shown: a list of every episode of a long run is not one to pick from
options = episodes_among(src, frame["message"])
chosen = st.selectbox("Episode", options, format_func=lambda i: head_label(src.episode_by_id, i),
                      key=f"part_episode_{info.id}",
                      help=None if len(options) == len(src.episodes) else
                      f"The {len(options):,} of {plural(len(src.episodes), 'episode')} with a "
                      f"message "
                      "among those shown; choose other messages above for the others")
if chosen:
    episode = src.episode_by_id[chosen]
    if episode.status != "active":
        st.caption(f"{chosen} was merged into {episode.superseded_by}.")
    cut = next((e for e in src.partitions if e.window == episode.window), None)
    if cut is not None:
        mark_control(info.id, cut.seq, f"partition of window {episode.window + 1}")
    told = page_reads.messages_by_id(get_store(), info.id, episode.message_ids)
    st.dataframe(message_table(told)[["time", "speaker", "text", "message"]], hide_index=True)
