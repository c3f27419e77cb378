"""Consolidation gated by similarity: no call for an insight with nothing stored near it."""

from __future__ import annotations

import hashlib
import json

import pytest

from nemori_ui.core.config import _TRANSPORT, PipelineConfig
from nemori_ui.core.store import records
from tests.llm_responder import prompt_of, respond
from tests.test_pipeline_openai import CONFIG, requests_by_prompt, run

GATE = 0.58   # HashEmbedder similarities: gates some insights of the fixture, not all


NEW = {"reason": "nothing stored says this", "action": "new", "targets": [],
       "merged_text": None}


def answers_new(body: dict) -> dict:
    if prompt_of(body) == "consolidate":
        return NEW
    if prompt_of(body) == "consolidate_episode":
        return {"decisions": [{"fact": n, **NEW} for n in range(1, 20)]}
    return respond(body)


def _decisions(store, run_id):
    return [e.payload for e in records.load_events(store, run_id) if e.stage == "consolidate"]


def _stored(store, run_id) -> list[str]:
    return sorted(m.text for m in records.load_memories(store, run_id) if m.status == "active")


@pytest.fixture
def store(tmp_path):
    from nemori_ui.core.store import open_store
    s = open_store(tmp_path / "home")
    yield s
    s.conn.close()


@pytest.mark.parametrize("unit", ["insight", "episode"])
def test_a_gated_run_stores_what_an_always_run_stores_where_every_call_would_say_new(
        store, openai_server, unit):
    openai_server.responder = answers_new
    always = run(store, openai_server, CONFIG.model_copy(update={"consolidation": "always"}))
    asked = requests_by_prompt(openai_server)["consolidate"]
    gated = run(store, openai_server, CONFIG.model_copy(
        update={"consolidation": "gated", "consolidation_gate": GATE,
                "consolidation_unit": unit}))
    assert _stored(store, gated) == _stored(store, always)

    decided = _decisions(store, gated)
    skipped = [d for d in decided if d.skipped and "gate" in d.skipped]
    assert skipped, "the gate skipped no call"
    called = [d for d in decided if d.candidates and not d.skipped]
    requests = requests_by_prompt(openai_server)
    if unit == "insight":
        assert len(called) + len(skipped) == asked
        # the ones above the gate were asked again (served from the response cache), no others
        assert requests["consolidate"] == asked and not requests["consolidate_episode"]
    else:
        # one call for each episode with an insight above the gate, fewer than the insights;
        # each insight's candidates are those stored before its episode's first insight
        assert len(called) + len(skipped) <= asked
        assert requests["consolidate"] == asked
        assert requests["consolidate_episode"] == len({d.episode_id for d in called})
        assert requests["consolidate_episode"] < len(called)
    for d in skipped:
        # the Knowledge page still shows why: the nearest candidates and their scores
        assert d.action == "new" and d.candidates and max(c.score for c in d.candidates) < GATE


def test_always_asks_for_every_insight_with_a_candidate(store, openai_server):
    openai_server.responder = respond
    run_id = run(store, openai_server, CONFIG.model_copy(update={"consolidation": "always"}))
    decided = _decisions(store, run_id)
    with_candidates = [d for d in decided if d.candidates]
    assert with_candidates and all(not d.skipped for d in with_candidates)
    assert requests_by_prompt(openai_server)["consolidate"] == len(with_candidates)


def test_off_stores_every_statement_without_a_call(store, openai_server):
    openai_server.responder = respond
    run_id = run(store, openai_server, CONFIG.model_copy(update={"consolidation": "off"}))
    decided = _decisions(store, run_id)
    assert decided and requests_by_prompt(openai_server)["consolidate"] == 0
    assert all(d.action == "new" and not d.targets for d in decided)
    assert len(_stored(store, run_id)) == len(decided)


def test_runs_stored_before_the_gate_consolidate_every_insight_and_keep_their_fingerprint():
    old = PipelineConfig().model_dump(exclude={"consolidation", "consolidation_gate",
                                               "consolidation_unit", "episode_match",
                                               "semantic_order", "cold_start"})
    restored = PipelineConfig.from_stored(json.dumps(old, default=str))
    assert restored.consolidation == "always" and restored.semantic_order == "sequential"
    data = {k: v for k, v in old.items() if k not in _TRANSPORT}
    before = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
    assert restored.fingerprint() == before
    assert PipelineConfig().consolidation == "gated"
    assert PipelineConfig().fingerprint() != before


def test_gated_runs_stored_before_the_unit_ask_per_insight_and_keep_their_fingerprint():
    old = PipelineConfig().model_dump(exclude={"consolidation_unit", "episode_match"})
    restored = PipelineConfig.from_stored(json.dumps(old, default=str))
    assert restored.consolidation == "gated" and restored.consolidation_unit == "insight"
    # the fingerprint as it was: settings at the value runs had before them left out
    at_before = {"semantic_order": "sequential", "cold_start": "prediction"}
    data = {k: v for k, v in old.items()
            if k not in _TRANSPORT and not (k in at_before and at_before[k] == v)}
    before = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
    assert restored.fingerprint() == before
    assert PipelineConfig().consolidation_unit == "episode"
    assert PipelineConfig().fingerprint() != before
    # the unit only changes what gated does
    always = PipelineConfig(consolidation="always")
    assert always.fingerprint() == always.model_copy(
        update={"consolidation_unit": "insight"}).fingerprint()


def test_the_gate_has_a_default_per_embedder():
    assert PipelineConfig().consolidation_gate == 0.83          # MiniLM, derived
    assert PipelineConfig(embedder="openai").consolidation_gate == 0.90   # the official code's
    # an embedder nothing is known of is never gated: a call rather than a missed merge
    assert PipelineConfig(embedder="openai", embedding_model="other").consolidation_gate == -1.0
