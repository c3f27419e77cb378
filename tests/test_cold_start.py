"""The v1 cold start: with nothing stored, an episode is distilled from its title and narrative."""

from __future__ import annotations

import pytest

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.prompts import cold_start, prompt_texts
from nemori_ui.core.store import open_store, records
from tests.llm_responder import prompt_of, respond
from tests.test_pipeline_openai import CONFIG, requests_by_prompt, run


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "home")
    yield s
    s.conn.close()


def _distills(store, run_id):
    return [e.payload for e in records.load_events(store, run_id) if e.stage == "distill"]


def test_the_narrative_cold_start_reads_the_narrative_of_the_first_episode_only(
        store, openai_server):
    seen: list[str] = []

    def recording(body: dict) -> dict:
        if prompt_of(body) == "cold_start":
            seen.append(body["messages"][-1]["content"])
        return respond(body)

    openai_server.responder = recording
    run_id = run(store, openai_server, CONFIG.model_copy(update={"cold_start": "narrative"}))
    asked = requests_by_prompt(openai_server)
    # the store is empty for the run's first episodes only: those, and no others, read it
    narrated = [d for d in _distills(store, run_id) if d.read == "narrative"]
    assert narrated and asked["cold_start"] == len(narrated) and asked["distill"] > 0
    first = records.load_episodes(store, run_id)
    by_id = {e.id: e for e in first}
    assert all(by_id[d.episode_id].narrative.strip() in text
               for d, text in zip(narrated, seen))
    # no raw message line reaches the prompt: it reads the episode as narrated
    assert not any("[1] (" in text for text in seen)
    # the Prediction error page says so beside that episode, and only that one
    from nemori_ui.core.views import prediction
    from nemori_ui.core.views.run_data import load_run_data
    data = load_run_data(store, run_id)
    reads = {d.episode_id: prediction.comparison(data, d.episode_id).read
             for d in _distills(store, run_id) if d.episode_id in by_id}
    assert {e for e, r in reads.items() if r == "narrative"} == {d.episode_id for d in narrated}
    # what it returned became memories, sourced from the whole episode
    stored = [m for m in records.load_memories(store, run_id) if m.text.startswith("Narrated: ")]
    assert stored and all(m.source_message_ids for m in stored)


def test_the_default_cold_start_distils_the_messages_against_an_empty_prediction(
        store, openai_server):
    openai_server.responder = respond
    run_id = run(store, openai_server)
    assert requests_by_prompt(openai_server)["cold_start"] == 0
    cold = [d for d in _distills(store, run_id) if d.cold_start]
    assert cold and all(d.read == "messages" and d.prediction == "" for d in cold)


def test_the_cold_start_is_stored_with_the_run_and_old_runs_keep_their_fingerprint():
    default = PipelineConfig()
    stored = default.model_dump_json(exclude={"cold_start"})
    assert PipelineConfig.from_stored(stored).cold_start == "prediction"
    assert PipelineConfig.from_stored(stored).fingerprint() == default.fingerprint()
    assert PipelineConfig(cold_start="narrative").fingerprint() != default.fingerprint()


def test_the_cold_start_prompt_is_pure_and_asks_for_no_line_citations():
    one = cold_start.render("Maya's new job", "Maya starts at the aquarium in May.", "paper")
    assert one == cold_start.render("Maya's new job", "Maya starts at the aquarium in May.", "paper")
    assert "Maya starts at the aquarium in May." in one[-1]["content"]
    for preset in ("paper", "strict"):
        text = prompt_texts(preset)["cold_start"]
        assert '"statements"' in text and '"lines"' not in text


def test_the_cli_stores_the_v1_choices_with_the_run(tmp_path):
    from nemori_ui.cli import main
    from nemori_ui.core.store import runs

    small = tmp_path / "small.txt"
    small.write_bytes(b"[2024-03-04 18:02] Maya: I started a new job at Finch Labs today.\n"
                      b"[2024-03-04 18:03] Jonas: Congratulations! Do you cycle there?\n")
    home = tmp_path / "home"
    assert main(["run", str(small), "--home", str(home), "--cold-start", "narrative",
                 "--semantic-order", "window"]) == 0
    (listed,) = runs.list_runs(open_store(home))
    assert (listed.config.cold_start, listed.config.semantic_order) == ("narrative", "window")
