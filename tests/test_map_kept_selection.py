"""The map's selection outlives a redraw of the same points (UMAP replacing PCA, another
colouring, or back to the drawing it was made on) and nothing else: not a change of which
points are shown, nor a clear on the chart."""

from __future__ import annotations

from nemori_ui.ui.map_widgets import KeptSelection, kept_selection

POINTS = ("run-1", "stamp", ("episode", "memory"), True, 3)


def test_a_selection_is_listed_and_kept():
    rows, kept, was_kept = kept_selection([4, 2], POINTS, None)
    assert rows == [4, 2] and not was_kept
    assert kept == KeptSelection(POINTS, (4, 2))


def test_a_chart_drawn_anew_with_nothing_selected_lists_the_kept_selection():
    _, kept, _ = kept_selection([4, 2], POINTS, None)
    rows, still, was_kept = kept_selection([], POINTS, kept)
    assert rows == [4, 2] and was_kept and still == kept
    # and goes on listing it while nothing is selected on the chart, whichever drawing it is
    assert kept_selection([], POINTS, still) == ([4, 2], kept, True)


def test_a_selection_made_on_the_chart_replaces_the_kept_one():
    _, kept, _ = kept_selection([4, 2], POINTS, None)
    rows, now, was_kept = kept_selection([7], POINTS, kept)
    assert rows == [7] and not was_kept and now == KeptSelection(POINTS, (7,))


def test_a_selection_cleared_on_the_chart_is_dropped():
    _, kept, _ = kept_selection([4, 2], POINTS, None)
    assert kept_selection([], POINTS, kept, cleared=True) == ([], None, False)


def test_other_points_shown_drop_the_selection_whose_rows_meant_other_points():
    _, kept, _ = kept_selection([4, 2], POINTS, None)
    for other in (("run-1", "stamp", ("memory",), True, 3),      # a kind hidden
                  ("run-1", "stamp", ("episode", "memory"), True, 2),   # scrubbed back
                  ("run-1", "stamp-2", ("episode", "memory"), True, 3)):  # the run grew
        assert kept_selection([], other, kept) == ([], None, False)
