"""What the prediction holds is not stored again; a statement that gives another name, number
or date than the prediction's line is news, not a repeat (same person, attribute and value)."""

from __future__ import annotations

import numpy as np

from nemori_ui.core.config import OfflineThresholds
from nemori_ui.core.offline.knowledge import prediction_gaps, values_known


def test_another_value_is_news_however_close_the_rest_reads():
    assert values_known("Maya moved to York in 2021.", "Maya moved to York in 2021.")
    assert not values_known("Maya moved to Leeds in 2021.", "Maya moved to York in 2021.")
    assert not values_known("Launch is April 5.", "Launch is March 15.")
    assert not values_known("Omar has three kids.", "Omar has two kids.")
    assert values_known("Maya moved to York.", "Maya moved to York in 2021.")   # says less


def test_a_prediction_line_with_another_value_does_not_hold_the_statement():
    said = ["Tomas swims at Portobello lido with Ana."]
    vec = np.asarray([[1.0, 0.0]], dtype=np.float32)
    near = np.asarray([[0.95, 0.31]], dtype=np.float32)
    limits = OfflineThresholds()
    assert prediction_gaps(said, vec, ["Tomas swims at Portobello lido with Ana."], near,
                           limits)[0] is not None
    # no conflict (he may swim with both), but Ben is not who the statement names
    assert prediction_gaps(said, vec, ["Tomas swims at Portobello lido with Ben."], near,
                           limits) == [None]
