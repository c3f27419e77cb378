"""The map's selection outlives a redraw of the same points (UMAP replacing PCA, another
colouring) and nothing else: not a change of which points are shown, nor a clear."""

from __future__ import annotations

from nemori_ui.ui.map_widgets import KeptSelection, kept_selection

POINTS = ("run-1", "stamp", ("episode", "memory"), True, 3)
PCA, UMAP = ("pca", "kind"), ("umap", "kind")


def test_a_selection_is_listed_and_kept_with_its_drawing():
    rows, kept, was_kept = kept_selection([4, 2], POINTS, PCA, None)
    assert rows == [4, 2] and not was_kept
    assert kept == KeptSelection(POINTS, PCA, (4, 2))


def test_a_new_drawing_of_the_same_points_lists_the_kept_selection():
    _, kept, _ = kept_selection([4, 2], POINTS, PCA, None)
    rows, still, was_kept = kept_selection([], POINTS, UMAP, kept)
    assert rows == [4, 2] and was_kept and still == kept
    # and goes on listing it while nothing is selected on the new drawing
    assert kept_selection([], POINTS, UMAP, still) == ([4, 2], kept, True)


def test_a_selection_made_on_the_new_drawing_replaces_the_kept_one():
    _, kept, _ = kept_selection([4, 2], POINTS, PCA, None)
    rows, now, was_kept = kept_selection([7], POINTS, UMAP, kept)
    assert rows == [7] and not was_kept and now == KeptSelection(POINTS, UMAP, (7,))


def test_nothing_selected_on_the_drawing_it_was_made_on_means_cleared():
    _, kept, _ = kept_selection([4, 2], POINTS, PCA, None)
    assert kept_selection([], POINTS, PCA, kept) == ([], None, False)


def test_other_points_shown_drop_the_selection_whose_rows_meant_other_points():
    _, kept, _ = kept_selection([4, 2], POINTS, PCA, None)
    for other in (("run-1", "stamp", ("memory",), True, 3),      # a kind hidden
                  ("run-1", "stamp", ("episode", "memory"), True, 2),   # scrubbed back
                  ("run-1", "stamp-2", ("episode", "memory"), True, 3)):  # the run grew
        assert kept_selection([], other, UMAP, kept) == ([], None, False)
