"""The sweep's line plot spans the parameter's values, a single point included."""

from __future__ import annotations

import pandas as pd

from nemori_ui.ui.tuning_widgets import line_plots


def test_the_parameter_axis_spans_the_points_even_for_one_point():
    one = pd.DataFrame({"tau": [0.57], "window": [20], "insights": [56]})
    lo, hi = line_plots(one, "tau", "insights", best=0).layout.xaxis.range
    assert lo < 0.57 < hi and hi - lo < 0.2
    three = pd.DataFrame({"tau": [0.5, 0.6, 0.7], "window": [20] * 3, "insights": [60, 56, 50]})
    lo, hi = line_plots(three, "tau", "insights").layout.xaxis.range
    assert lo <= 0.5 and hi >= 0.7 and hi - lo < 0.3
