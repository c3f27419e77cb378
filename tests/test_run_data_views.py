"""Tables the pages derive from a loaded run are worked out once per load: a rerun asks again
and gets the same table without rebuilding it, each caller its own copy to change, and a run
loaded afresh works its tables out afresh."""

from __future__ import annotations

from nemori_ui.core.live_view import windows_log
from nemori_ui.core.projection import points_frame
from nemori_ui.core.store import open_store
from nemori_ui.core.views.knowledge import decision_table
from nemori_ui.core.views.prediction import surprise_table
from nemori_ui.core.views.run_data import derived, load_run_data
from tests.conftest import run_sample


def test_a_view_is_built_once_per_load_and_handed_out_as_copies(tmp_path):
    built = []

    @derived
    def count(data):
        built.append(data.run_id)
        return [len(data.messages)]

    store = open_store(tmp_path / "home")
    run_id = run_sample(store)
    data = load_run_data(store, run_id)
    first = count(data)
    first.append("changed by a caller")
    assert count(data) == [len(data.messages)] and built == [run_id]
    count(load_run_data(store, run_id))
    assert built == [run_id, run_id]

    for view in (surprise_table, decision_table, points_frame, windows_log):
        table = view(data)
        table.drop(table.index, inplace=True)
        assert len(view(data)) > 0, view.__name__
    merges = decision_table(data, ["merge"])
    assert set(merges["action"]) == {"merge"} and list(merges.index) == list(range(len(merges)))
    store.close()
