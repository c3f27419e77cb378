"""The presenter's banners: which moment of a run is "predicted, not stored", which is a
conflict, and what each says, read from real offline runs of the live demo and the sample."""

from __future__ import annotations

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
    assert banners(demo, 1) == [] and banners(demo, 2) == []
    [conflict] = banners(demo, 3)
    assert (conflict.kind, conflict.title) == ("conflict", "Window 3: conflict")
    assert "contradicts 2 memories" in conflict.note
    lisbon = next(line for line in conflict.lines if "Lisbon" in line)
    # the new fact and the one it replaces, by id and text
    assert "replaces sm0001" in lisbon and "Porto" in lisbon


def test_a_window_whose_prediction_held_a_statement_gets_a_predicted_banner(sample):
    [held] = banners(sample, 3)
    assert (held.kind, held.title) == ("predicted", "Window 3: predicted, not stored")
    assert "held 4 statements, so they were not stored again" in held.note
    line = held.lines[0]
    assert line.startswith("Maya: “Maya's manager approved Maya's leave")
    assert "(similarity 1.00)" in line
    # the prediction said it in the very same words: not quoted twice
    assert "held by the prediction" not in line
    assert banners(sample, 1) == [] and banners(sample, 2) == []
    assert [b.kind for b in banners(sample, 6)] == ["conflict"]


def test_the_demo_steps_through_its_skipped_facts_and_wraps_round():
    rows = [SkippedFact(text="Maya drinks coffee.", message_id="m0010", episode_id="ep0004",
                        predicted_by="Maya drinks three cups of coffee.", score=0.91),
            SkippedFact(text="x " * 200, message_id=None, episode_id="ep0009",
                        predicted_by=None, score=None)]
    first = skipped_banner(rows, 0)
    assert first.title == "Predicted, not stored (1 of 2)"
    assert first.lines == ["“Maya drinks coffee.” · m0010 · ep0004",
                           "Nemori already held it: “Maya drinks three cups of coffee.” "
                           "(similarity 0.91)"]
    second = skipped_banner(rows, 1)
    assert "(2 of 2)" in second.title and second.lines[0].endswith("…” · ep0009")
    assert "Nemori-s stored it" in second.lines[1]
    assert skipped_banner(rows, 2) == first
    said_again = skipped_banner([replace(rows[0], predicted_by="Maya drinks coffee. ")], 0)
    assert said_again.lines[1] == ("Nemori's prediction said it in the very same words "
                                   "(similarity 0.91).")
    assert skipped_banner([], 0) is None


def test_the_demo_tells_its_skipped_facts_and_its_conflicts_in_the_transcripts_order(sample):
    skipped = [SkippedFact(text="Maya drinks strong coffee.", predicted_by="Maya loves coffee.",
                           score=0.81, message_id="m0030", episode_id="ep0004"),
               SkippedFact(text="Jonas cycles.", predicted_by=None, score=None,
                           message_id="m0090", episode_id="ep0099")]
    told = demo_banners(sample, skipped)
    conflicts = [b for b in told if b.kind == "conflict"]
    assert len(conflicts) == 1 and len(told) == 3, [b.title for b in told]
    assert [b.title for b in told][-1] == "Predicted, not stored (3 of 3)"
    assert told[0].title == "Predicted, not stored (1 of 3)"
    assert conflicts[0].title == "Conflict (2 of 3)" and " replaces " in conflicts[0].lines[0]
    assert demo_banners(sample, []) == conflicts[:0] + [
        b.model_copy(update={"title": "Conflict (1 of 1)"}) for b in conflicts]


def test_a_banner_shows_a_few_lines_and_says_how_many_more_there_are(sample):
    [held] = banners(sample, 3)
    assert len(held.lines) == 4
    shown = held.lines_to_show(3)
    assert shown[:2] == held.lines[:2]
    assert shown[2] == "… and 2 more: the Prediction error page lists every one"
    assert held.lines_to_show(4) == held.lines
