"""The presenter's banners: which moment of a run is "predicted, not stored", which is a
conflict, and what each says, read from real offline runs of the live demo and the sample."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.live_input import DEMO, DEMO_WINDOW
from nemori_ui.core.live_view import window_story
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.presenter_banners import demo_banners, skipped_banner, window_banners
from nemori_ui.core.store import open_store
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.tuning.demo import SkippedFact
from nemori_ui.core.views.run_data import load_run_data
from tests.conftest import SAMPLE


def played(tmp_path_factory, path):
    store = open_store(tmp_path_factory.mktemp("banners"))
    config = PipelineConfig(window=DEMO_WINDOW)
    clients = build_clients(config, store)
    conv = load_transcript(path).conversations[0]
    run_id = start_run(store, conv, config, clients, source=str(path), fmt="plain")
    run_windows(store, run_id, clients)
    return load_run_data(store, run_id)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return played(tmp_path_factory, DEMO)


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    return played(tmp_path_factory, SAMPLE)


def banners(data, window):
    return window_banners(data, window, window_story(data, window))


def test_a_window_that_contradicts_memories_gets_a_conflict_banner(demo):
    assert banners(demo, 1) == []
    conflict = next(b for b in banners(demo, 3) if b.kind == "conflict")
    assert conflict.title == "Window 3: conflict"
    assert "contradicts 2 memories" in conflict.note
    lisbon = next(line for line in conflict.lines if "Lisbon" in line)
    # the new fact and the one it replaces, by id and text
    assert "replaces sm0001" in lisbon and "Porto" in lisbon


def _predicted_lines(data):
    return [line for w in range(1, data.info.windows_done + 1) for b in banners(data, w)
            if b.kind == "predicted" for line in b.lines]


def test_the_live_demo_predicts_facts_told_again_and_points_at_both_tellings(demo):
    lines = _predicted_lines(demo)
    assert len(lines) >= 3, lines
    for line in lines:
        first, again = re.search(r"said in session (\d+) \((m\d+)\), again in session (\d+) "
                                 r"\((m\d+)\)", line).group(1, 3)
        assert int(first) < int(again), line
    beagle = next(line for line in lines if "beagle" in line)
    # the memory merged two messages: the banner names the one that told the fact
    assert "said in session 2 (m0015), again in session 3 (m0026)" in beagle


def test_the_sample_predicts_six_facts_from_earlier_sessions_and_none_of_its_own(sample):
    lines = _predicted_lines(sample)
    assert len(lines) >= 6, lines
    # an episode that continues another re-reads nothing: no fact is "said again" in the
    # message it was first said in
    for line in lines:
        first, again = re.search(r"\((m\d+)\), again in session \d+ \((m\d+)\)",
                                 line).groups()
        assert first != again, line
    assert not any("approved Maya's leave" in line for line in lines)


def test_a_window_whose_prediction_held_a_statement_gets_a_predicted_banner(sample):
    [held] = banners(sample, 9)
    assert (held.kind, held.title) == ("predicted", "Window 9: predicted, not stored")
    assert held.note == ("4 facts told again: the memory predicted them from what it learnt "
                         "the first time, so they were not stored again.")
    line = held.lines[0]
    assert line.startswith("Maya: “Maya joined Finch Labs as a data engineer.”, said in "
                           "session 1 (m0003), again in session 5 (m0082)")
    assert line.endswith("(similarity 1.00)")
    assert banners(sample, 1) == [] and banners(sample, 2) == []
    assert [b.kind for b in banners(sample, 6)] == ["conflict"]


def test_the_demo_steps_through_its_skipped_facts_and_wraps_round():
    rows = [SkippedFact(text="Maya drinks coffee.", message_id="m0030", episode_id="ep0004",
                        predicted_by="Maya drinks three cups of coffee.", score=0.91,
                        memory_id="sm0002", first_message_id="m0004",
                        first_said="I drink three cups of coffee a day", first_session=1,
                        again_said="Coffee, as always!", again_session=2, speaker="Maya",
                        nemori_s="stored again as a new memory"),
            SkippedFact(text="x " * 200, message_id=None, episode_id="ep0009",
                        predicted_by=None, score=None)]
    first = skipped_banner(rows, 0)
    assert first.title == "Predicted, not stored (1 of 2)"
    assert first.lines == [
        "Said in session 1 (m0004): “I drink three cups of coffee a day”",
        "Again in session 2 (m0030): “Coffee, as always!”",
        "Nemori's memory “Maya drinks three cups of coffee.” held it (similarity 0.91); "
        "Nemori-s, which does not predict: stored again as a new memory."]
    assert first.lines_to_show() == first.lines     # all of it in sight
    second = skipped_banner(rows, 1)
    assert "(2 of 2)" in second.title and second.lines[0].endswith("…” · ep0009")
    assert "Nemori-s stored it" in second.lines[1]
    assert skipped_banner(rows, 2) == first
    said_again = skipped_banner([replace(rows[0], predicted_by="Maya drinks coffee. ")], 0)
    assert said_again.lines[2] == ("Nemori's memory said it in the very same words "
                                   "(similarity 0.91); Nemori-s, which does not predict: "
                                   "stored again as a new memory.")
    assert skipped_banner([], 0) is None


def test_the_demo_counts_its_predicted_facts_apart_from_its_conflicts(sample):
    skipped = [SkippedFact(text="Maya drinks strong coffee.", predicted_by="Maya loves coffee.",
                           score=0.81, message_id="m0030", episode_id="ep0004",
                           first_message_id="m0005", first_session=1),
               SkippedFact(text="Jonas cycles.", predicted_by=None, score=None,
                           message_id="m0090", episode_id="ep0099",
                           first_message_id="m0006", first_session=1)]
    told = demo_banners(sample, skipped)
    conflicts = [b for b in told if b.kind == "conflict"]
    assert len(conflicts) == 1 and len(told) == 3, [b.title for b in told]
    # the headline's number is the predicted facts': conflicts are counted on their own
    assert [b.title for b in told] == ["Predicted, not stored (1 of 2)", "Conflict (1 of 1)",
                                       "Predicted, not stored (2 of 2)"]
    assert " replaces " in conflicts[0].lines[0]
    assert demo_banners(sample, []) == conflicts


def test_a_banner_shows_a_few_lines_and_says_how_many_more_there_are(sample):
    [held] = banners(sample, 9)
    assert len(held.lines) == 4
    shown = held.lines_to_show(3)
    assert shown[:2] == held.lines[:2]
    assert shown[2] == "… and 2 more: the Prediction error page lists every one"
    assert held.lines_to_show(4) == held.lines
