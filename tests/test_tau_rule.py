"""One rule for what τ lets through, shared by the run, the τ view and what-if τ."""

from __future__ import annotations

import pandas as pd

from nemori_ui.core.pipeline.tau_rule import passes_tau
from nemori_ui.core.store import open_store
from nemori_ui.core.store.runs import list_runs
from nemori_ui.core.tuning.whatif import what_if_tau
from nemori_ui.core.views import prediction as pr
from nemori_ui.core.views.run_data import load_run_data
from tests.test_old_database import NATIVE, copy_home


def test_above_tau_or_continued_passes_and_equal_to_tau_does_not():
    assert passes_tau(0.61, False, 0.6) and not passes_tau(0.6, False, 0.6)
    assert passes_tau(0.1, True, 0.6)    # known from the episode this one continues
    column = passes_tau(pd.Series([0.7, 0.6, 0.2]), pd.Series([False, False, True]), 0.6)
    assert column.tolist() == [True, False, True]
    # a statement of the episode above τ to the memory calls it up, whatever the cue's score
    assert passes_tau(0.1, False, 0.6, 0.65) and not passes_tau(0.1, False, 0.6, 0.6)
    said = passes_tau(pd.Series([0.1, 0.1, 0.7]), pd.Series([False] * 3), 0.6,
                      pd.Series([0.65, None, None], dtype=float))
    assert said.tolist() == [True, False, True]


def test_the_view_and_what_if_count_what_the_run_let_through(tmp_path):
    store = open_store(copy_home(tmp_path / "home"))
    data = load_run_data(store, next(r.id for r in list_runs(store) if r.name == NATIVE))
    tau = data.info.config.tau
    frame = pr.looked_similarities(data)
    assert pr.admitted(frame, tau).passing == int(frame["passed"].sum()) > 0
    # at the run's own τ nothing would change; a τ above every score keeps only continued ones
    assert {row.changes for row in what_if_tau(data, tau)} == {"same"}
    kept = {i for row in what_if_tau(data, 1.0) for i in row.evoked_then}
    assert kept == set(frame[frame["continued"]]["memory"]) != set()


def test_the_evoked_legend_counts_each_reason_once():
    frame = pd.DataFrame({"score": [0.8, 0.45, 0.3, 0.57], "continued": [False, True, False, False]})
    assert pr.evocation(0.8, False, 0.57) == pr.ABOVE_TAU
    assert pr.evocation(0.45, True, 0.57) == pr.CONTINUED
    assert pr.evocation(0.57, False, 0.57) == pr.BELOW_TAU     # τ itself does not pass
    assert pr.evocation(0.3, False, 0.57, 0.6) == pr.RECALLED
    assert pr.evocation(0.3, False, 0.57, 0.57) == pr.BELOW_TAU
    assert pr.evoked_counts(frame, 0.57) == {pr.ABOVE_TAU: 1, pr.CONTINUED: 1, pr.RECALLED: 0,
                                             pr.BELOW_TAU: 2}
    said = frame.assign(**{"recall score": [None, None, 0.7, 0.5]})
    assert pr.evoked_counts(said, 0.57)[pr.RECALLED] == 1
    assert "called up by what was said (1)" in pr.evoked_caption(said, 0.57)
    caption = pr.evoked_caption(frame, 0.57)
    assert caption.startswith("2 of 4 evoked") and "(1); hatched" in caption
    assert "hatched" not in pr.evoked_caption(frame.assign(continued=False), 0.57)
