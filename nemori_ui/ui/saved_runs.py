"""The Run page's saved runs: the table, and open, rename, export and delete of one run.

Every control names the run it acts on, the rename box follows the selection, and the
selection stays on a run through its rename (see saved_choice for why that needs care).
"""

from __future__ import annotations

import json

import pandas as pd
import streamlit as st

from ..core.errors import StoreError
from ..core.export import run_document
from ..core.store import runs
from ..core.store.sweeps import SweepInfo, members
from ..core.tuning.across import conversation_label, short_point
from ..core.views.sweep_groups import sweep_groups
from .safe import md_escape
from .saved_choice import acted_on, box_refill, quoted
from .state import clear_data_cache, get_store, list_runs
from ..core.views.wording import plural

CHOICE = "saved_run_choice"         # the run the controls acted on last, apart from the widget
FILLED = "rename_box_filled_for"    # (run id, name) the rename box was last filled with
NOTE = "saved_run_note"             # what the last action did, said once


def saved_runs() -> None:
    st.subheader("Saved runs")
    listed = list_runs()
    if not listed:
        st.caption("No saved runs yet.")
        return
    by_id = {r.id: r for r in listed}
    loose, groups = sweep_groups(get_store(), list(by_id))
    if loose:
        run_table([by_id[i] for i in loose])
    for sweep, ids in groups:
        sweep_group(sweep, [by_id[i] for i in ids])
    ids = [r.id for r in listed]
    names = {r.id: r.name for r in listed}
    # set before the draw, so a renamed run keeps its place under its new label
    st.session_state.manage_run = acted_on(ids, st.session_state.get("manage_run"),
                                           st.session_state.get(CHOICE),
                                           st.session_state.get("run_id"))
    chosen = st.selectbox("Saved run", ids, format_func=lambda i: f"{names[i]} · {i}",
                          key="manage_run")
    st.session_state[CHOICE] = chosen
    if st.session_state.get("confirm_delete") not in (None, chosen):
        st.session_state.confirm_delete = None      # asked about another run: ask again
    note = st.session_state.pop(NOTE, None)
    if note:
        st.success(note)
    controls(chosen, names[chosen])


def run_table(infos: list[runs.RunInfo], where: dict[str, dict] | None = None) -> None:
    """The runs as a table; `where` adds each run's point and conversation in its sweep."""
    # in a sweep's group its point and conversation say what the name would
    st.dataframe(pd.DataFrame([{"run": r.id, **(where[r.id] if where else {"name": r.name}),
                                "status": r.status,
                                "windows": f"{r.windows_done}/{r.windows_total}",
                                "decided by": r.decider, "created": r.created_at}
                               for r in infos]), hide_index=True,
                 # sized for the longest status ("interrupted"), which the grid cut short
                 column_config={"status": st.column_config.TextColumn(width=110)})


def sweep_group(sweep: SweepInfo, infos: list[runs.RunInfo]) -> None:
    """A sweep's runs as one closed group under its name: a sweep of 4 points on 3
    conversations is one line of the list, not 12."""
    where = {r.id: {"name": r.name} for r in infos}
    where.update({m.run_id: {"conversation": conversation_label(m.conversation),
                             "point": short_point(m.point, sweep.grid)}
                  for m in members(get_store(), sweep.id)})
    conversations = len({where[r.id].get("conversation") for r in infos})
    with st.expander(f"Sweep {quoted(sweep.name, 60)} · {plural(len(infos), 'run')} over "
                     f"{plural(conversations, 'conversation')}"):
        run_table(infos, where)


def controls(run_id: str, name: str) -> None:
    """Open, rename, export and delete, each labelled with the run it acts on."""
    said, whole = quoted(name), f"{md_escape(name)} ({run_id})"     # help renders markdown
    refill = box_refill(st.session_state.get(FILLED), run_id, name)
    if refill is not None:      # set before the box is drawn: a drawn widget cannot be set
        st.session_state.rename_text = refill
        st.session_state[FILLED] = (run_id, name)
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    new_name = c1.text_input(f"New name for {said}", key="rename_text")
    if c2.button(f"Rename {said}", key="rename_run", help=f"Rename {whole}"):
        try:
            runs.rename_run(get_store(), run_id, new_name)
        except (ValueError, StoreError) as exc:
            st.error(md_escape(str(exc)))
        else:
            st.session_state[NOTE] = (f"Renamed {md_escape(name)} to "
                                      f"{md_escape(new_name.strip())} ({run_id}).")
            st.rerun()
    row = st.container(horizontal=True)
    if row.button(f"Open {said}", key="open_run", help=f"Show {whole} on every page"):
        st.session_state.run_id = run_id
        st.rerun()
    row.download_button(f"Export {said} as JSON", key="export_run",
                        file_name=f"nemori-run-{run_id}.json", mime="application/json",
                        help=f"Everything stored for {whole}, in one JSON file",
                        data=lambda: json.dumps(run_document(get_store(), run_id), indent=2))
    if row.button(f"Delete {said}…", key="delete_run", help=f"Delete {whole}; asks first"):
        st.session_state.confirm_delete = run_id
    if st.session_state.get("confirm_delete") == run_id:
        confirm_delete(run_id, name)


def confirm_delete(run_id: str, name: str) -> None:
    """Deleting drops the run's episodes, memories, events and calls: ask first."""
    with st.container(border=True):
        st.warning(f"Delete **{md_escape(name)}** ({run_id}) with its episodes, memories, "
                   "events and calls? This cannot be undone; Export JSON keeps a copy.")
        row = st.container(horizontal=True)
        if row.button(f"Delete {quoted(name)} for good", type="primary",
                     key="delete_confirmed"):
            runs.delete_run(get_store(), run_id)
            st.session_state.confirm_delete = None
            st.session_state[NOTE] = f"Deleted {md_escape(name)} ({run_id})."
            clear_data_cache()
            st.rerun()
        if row.button("Keep it", key="delete_cancelled"):
            st.session_state.confirm_delete = None
            st.rerun()
