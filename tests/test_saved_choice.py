"""The saved-run controls' rules: which run they act on, when the rename box is refilled, and
how a button names the run."""

from __future__ import annotations

from nemori_ui.ui.saved_choice import acted_on, box_refill, quoted

IDS = ["r3", "r2", "r1"]        # newest first, as the store lists them


def test_the_run_chosen_last_is_kept_while_it_exists():
    assert acted_on(IDS, "r1", "r3") == "r1"


def test_without_a_choice_the_shown_run_then_the_newest():
    assert acted_on(IDS, None, "r2") == "r2"
    assert acted_on(IDS, None, None) == "r3"


def test_a_deleted_choice_falls_back_to_the_shown_run():
    assert acted_on(IDS, "gone", "r2") == "r2"
    assert acted_on(IDS, "gone", "also gone") == "r3"


def test_a_stale_label_falls_back_to_the_run_acted_on_last():
    assert acted_on(IDS, "Finch Labs · r2", "r2", "r3") == "r2"
    assert acted_on(IDS, None, "r1", "r3") == "r1"


def test_the_box_follows_the_selection():
    assert box_refill(("r1", "first"), "r2", "second") == "second"


def test_the_box_shows_a_new_name_once_the_run_is_renamed():
    assert box_refill(("r1", "first"), "r1", "Lisbon planning") == "Lisbon planning"


def test_what_is_being_typed_is_left_alone():
    assert box_refill(("r1", "first"), "r1", "first") is None


def test_a_box_never_filled_is_filled():
    assert box_refill(None, "r1", "first") == "first"


def test_a_button_names_the_run_cut_and_escaped():
    assert quoted("first") == "“first”"
    long = quoted("conv-26 · nemori · τ=0.57 · w=20 · strict prompts")
    assert long.endswith("…”") and len(long) < 50
    assert quoted("*bold* [x](y)") == "“\\*bold\\* \\[x\\]\\(y\\)”"
