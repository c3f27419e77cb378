"""Runs that stay small: a merge stores one bounded statement, and stage events keep the ids
and scores of what they looked at, the pages looking the stored texts up."""

from __future__ import annotations

import pytest

from nemori_ui.core.offline.knowledge import merged_text
from nemori_ui.core.pipeline.statement_bound import MAX_STATEMENT_CHARS, bounded_statement
from nemori_ui.core.store import records
from nemori_ui.core.views import episodes as ev
from nemori_ui.core.views import knowledge as kv
from nemori_ui.core.views import prediction as pv
from nemori_ui.core.views.run_data import load_run_data
from tests.llm_responder import _NUMBERED, prompt_of, respond
from tests.test_pipeline_openai import CONFIG, run


# ---- the bound ----------------------------------------------------------------------------
def test_a_memory_merged_again_and_again_stays_one_bounded_statement():
    text = "Caroline goes to a support group on Tuesdays."
    for n in range(60):
        insight = f"Caroline met friend number {n} at the support group in week {n}."
        text = bounded_statement(merged_text(insight, [text]), insight)
        assert len(text) <= MAX_STATEMENT_CHARS
        assert text.endswith(insight)            # what caused the merge is kept whole
    assert text.count(".") < 60                  # older details gave way, not the newest


def test_a_statement_within_the_bound_is_stored_as_it_is():
    text = "Melanie painted a sunset.\nShe took the kids camping."
    assert bounded_statement(text, "She took the kids camping.") is text


def test_a_sentence_said_twice_is_kept_once_and_an_overlong_one_is_cut_at_a_word():
    repeated = " ".join(["Jon lost his job at the bank."] * 30)
    assert bounded_statement(repeated, "Jon lost his job at the bank.") == \
        "Jon lost his job at the bank."
    long = " ".join(["word"] * 200)
    cut = bounded_statement(long, long)
    assert len(cut) <= MAX_STATEMENT_CHARS and cut.endswith("word…")


def concatenating(body: dict) -> dict:
    """A model that merges by copying every stored fact and the new one into its reply."""
    if prompt_of(body) != "consolidate":
        return respond(body)
    text = body["messages"][-1]["content"]
    stored = [t for _, t in _NUMBERED.findall(text)]
    if not stored:
        return {"reason": "nothing stored", "action": "new", "targets": [], "merged_text": None}
    fact = text.split("\n", 1)[0].removeprefix("New fact: ")
    padding = " ".join(f"Detail {n} of the same story was said again." for n in range(20))
    return {"reason": "all the same", "action": "merge", "targets": [1],
            "merged_text": " ".join(stored + [padding, fact])}


def test_an_llm_merge_that_concatenates_is_bounded_too(tmp_path, openai_server):
    from nemori_ui.core.store import open_store
    store = open_store(tmp_path / "home")
    openai_server.responder = concatenating
    run_id = run(store, openai_server, CONFIG.model_copy(update={"consolidation": "always"}))
    memories = records.load_memories(store, run_id, with_vectors=False)
    merges = [m for m in memories if m.origin == "merge"]
    assert merges, "the model merged nothing"
    assert max(len(m.text) for m in memories) <= MAX_STATEMENT_CHARS
    store.close()


# ---- events keep ids, the pages look the texts up -----------------------------------------
@pytest.fixture(scope="module")
def data(sample_run):
    store, run_id = sample_run
    return load_run_data(store, run_id)


def test_consolidation_events_keep_candidate_ids_and_scores_and_the_page_shows_their_texts(
        data):
    decided = [e for e in data.stage("consolidate") if e.payload.candidates]
    assert decided
    for event in decided:
        p = event.payload
        assert all(c.text == "" for c in p.candidates) and p.result_text == ""
        stored = p.stored()["candidates"]        # as the events table holds it
        assert all(set(c) == {"id", "score"} for c in stored)
    d = kv.decision(data, decided[0].seq)
    assert list(d.candidates["text"]) == \
        [data.memory_by_id[c.id].text for c in decided[0].payload.candidates]
    assert d.result_text == data.memory_by_id[d.result_id].text != ""
    table = kv.decision_table(data)
    assert (table["result_text"] != "").all()


def test_anticipation_keeps_what_it_evoked_by_id_and_the_page_shows_the_text(data):
    looked = [e for e in data.stage("anticipate") if e.payload.evoked]
    assert looked
    assert all(m.text == "" for e in looked for m in e.payload.evoked)
    shown = pv.evoked(data, looked[0].payload.episode_id).frame
    assert list(shown["text"]) == [data.memory_by_id[m.id].text
                                   for m in looked[0].payload.evoked]


def test_an_integration_keeps_episode_ids_and_the_page_shows_the_three_texts(data):
    merged = next(e.payload for e in data.stage("integrate") if e.payload.target)
    assert merged.before is None and merged.after is None and merged.incoming is None
    assert all(c.cue == "" for c in merged.candidates)
    d = ev.integration_detail(data, merged.episode_id)
    for key, episode_id in (("before", merged.target), ("incoming", merged.episode_id),
                            ("after", merged.result_id)):
        assert getattr(d, key).narrative == data.episode_by_id[episode_id].narrative != ""
    assert list(d.candidates["cue"]) == [data.episode_by_id[c.id].cue
                                         for c in merged.candidates]
