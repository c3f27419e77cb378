"""A map you can search: words that light up points, colour by speaker or window, the memory
as it stood after a window, and the selection exported."""

from __future__ import annotations

import pandas as pd
import pytest

from nemori_ui.core.projection import known_by, matching, points_frame
from nemori_ui.core.views.run_data import load_run_data
from nemori_ui.ui.map_widgets import map_figure


@pytest.fixture(scope="module")
def frame(sample_run):
    store, run_id = sample_run
    return points_frame(load_run_data(store, run_id))


def test_a_search_lights_the_points_holding_every_word_whatever_their_case():
    points = pd.DataFrame({"text": ["Maya moved to LISBON", "Lisbon flights", "Porto", None]})
    assert matching(points, "lisbon").tolist() == [True, True, False, False]
    assert matching(points, "  maya   lisbon ").tolist() == [True, False, False, False]
    assert not matching(points, "").any() and not matching(points, "   ").any()
    # words, not patterns: a bracket or a dot is looked for as written
    assert not matching(pd.DataFrame({"text": ["a.b"]}), "a*").any()


def test_each_point_names_who_said_what_it_holds(frame, sample_run):
    store, run_id = sample_run
    data = load_run_data(store, run_id)
    speakers = {m.speaker for m in data.messages}
    memories = frame[frame["kind"] == "memory"]
    assert set(memories["speaker"]) <= speakers | {" & ".join(sorted(speakers))}
    assert memories["speaker"].nunique() > 1


def test_the_scrubber_keeps_what_was_made_by_the_end_of_a_window(frame):
    first = known_by(frame, 0)
    assert first.any() and not first.all()
    assert (frame[first]["window"] == 0).all()
    assert known_by(frame, int(frame["window"].max())).all()


def test_colouring_by_window_or_speaker_gives_one_legend_entry_per_value(frame):
    xy = frame[["window"]].to_numpy().repeat(2, axis=1).astype(float)
    by_window = map_figure(frame, xy, "window")
    assert {t.name for t in by_window.data} == {f"window {w + 1}" for w in frame["window"]}
    by_speaker = map_figure(frame, xy, "speaker", marked=frame["id"][:2].tolist(),
                            marked_name="matches search")
    names = [t.name for t in by_speaker.data]
    assert set(frame["speaker"]) <= set(names) and names[-1] == "matches search"
