"""Knowledge, projection and calls views on a real offline run of the bundled sample."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from nemori_ui.core.models import LLMCallRecord
from nemori_ui.core.pipeline.state import MemoryState
from nemori_ui.core.projection import (nearest_neighbours, pca_basis, pca_project, point_vectors,
                                       points_frame, project)
from nemori_ui.core.views import calls as cv
from nemori_ui.core.views import knowledge as kv
from nemori_ui.core.views.run_data import load_run_data


@pytest.fixture(scope="module")
def data(sample_run):
    store, run_id = sample_run
    return load_run_data(store, run_id)


def conflict_event(data):
    return next(e for e in data.stage("consolidate") if e.payload.action == "conflict")


# ---- memories -------------------------------------------------------------------------------
def test_memory_table_lists_every_memory_with_its_status_and_origin(data):
    table = kv.memory_table(data)
    assert len(table) == len(data.memories)
    assert set(table["status"]) == {"active", "superseded"}
    assert {"new", "conflict"} <= set(table["origin"])
    superseded = table[table["status"] == "superseded"]
    assert (superseded["superseded_by"] != "").all()
    assert table["seq"].notna().all()  # every memory was written by a recorded decision


def test_filters_combine_status_origin_and_literal_case_insensitive_search(data):
    table = kv.memory_table(data)
    assert set(kv.filter_memories(table, statuses=["superseded"])["status"]) == {"superseded"}
    conflicts = kv.filter_memories(table, origins=["conflict"])
    assert len(conflicts) == 1 and "drink coffee" in conflicts["text"][0]
    found = kv.filter_memories(table, search="DRINK COFFEE")
    assert conflicts["id"][0] in found["id"].tolist()
    assert found["text"].str.lower().str.contains("drink coffee").all()
    # regex characters are searched for literally: "Maya.s" would match "Maya's" as a pattern
    assert kv.filter_memories(table, search="Maya.s").empty
    assert not kv.filter_memories(table, search="Maya's").empty
    assert kv.filter_memories(table, statuses=["active"], origins=["conflict"],
                              search="coffee")["id"].tolist() == conflicts["id"].tolist()
    assert kv.filter_memories(table, search="no such text anywhere").empty


# ---- decisions ------------------------------------------------------------------------------
def test_decision_table_has_every_consolidation_with_candidates_and_result(data):
    table = kv.decision_table(data)
    assert len(table) == len(data.stage("consolidate"))
    assert table["seq"].is_monotonic_increasing
    counts = kv.decision_counts(data)
    assert counts["conflict"] == 1 and counts["merge"] >= 1
    assert sum(counts.values()) == len(table)
    only = kv.decision_table(data, ["conflict"])
    assert len(only) == 1 and only["action"][0] == "conflict"
    row = only.iloc[0]
    assert row["targets"] and row["result_id"] and "contradicts" in row["reason"]
    first = table.iloc[0]  # the first insight had nothing to compare with
    assert first["candidates"] == 0 and "no decider call" in first["note"]


def test_one_decision_marks_its_targets_among_the_scored_candidates(data):
    event = conflict_event(data)
    d = kv.decision(data, event.seq)
    cands = d.candidates
    assert list(cands["score"]) == sorted(cands["score"], reverse=True)
    assert cands[cands["targeted"]]["id"].tolist() == event.payload.targets
    assert (cands[cands["targeted"]]["status now"] == "superseded").all()
    assert d.result_text == data.memory_by_id[d.result_id].text
    with pytest.raises(KeyError):
        kv.decision(data, -5)


# ---- history and provenance -----------------------------------------------------------------
def test_history_of_a_conflict_shows_what_it_replaced_and_when(data):
    event = conflict_event(data)
    new_id, old_id = event.payload.result_id, event.payload.targets[0]
    versions = kv.history(data, new_id)
    assert [v.id for v in versions] == [old_id, new_id]
    old, new = versions
    assert old.replaced_by == new_id and new.replaced == [old_id]
    assert (new.window, new.seq) == (event.window, event.seq)
    assert (old.window, old.seq) < (new.window, new.seq)
    assert new.selected and not old.selected and new.origin == "conflict"
    # walking from the old version finds the same chain
    assert [v.id for v in kv.history(data, old_id)] == [old_id, new_id]


def test_history_walks_a_longer_chain_both_ways_from_its_middle(data):
    import copy
    # lengthen the conflict's chain by one earlier version: first → old → new
    data = copy.deepcopy(data)
    event = conflict_event(data)
    middle = data.memory_by_id[event.payload.targets[0]]
    first = next(m for m in data.memories if m.status == "active" and not m.supersedes
                 and m.id != event.payload.result_id)
    first.status, first.superseded_by, middle.supersedes = "superseded", middle.id, [first.id]
    versions = kv.history(data, middle.id)
    ids = [v.id for v in versions]
    assert len(ids) >= 3
    assert middle.supersedes[0] in ids and middle.superseded_by in ids
    assert ids.index(middle.supersedes[0]) < ids.index(middle.id) < ids.index(middle.superseded_by)
    assert versions[-1].status == "active"
    table = kv.history_table(versions)
    assert table.loc[table["selected"] == "◀", "id"].tolist() == [middle.id]
    with pytest.raises(KeyError):
        kv.history(data, "sm9999")


def test_provenance_goes_back_to_episodes_and_messages(data):
    event = conflict_event(data)
    prov = kv.provenance(data, event.payload.result_id)
    assert event.payload.episode_id in [e.id for e in prov.episodes]
    assert all(e.cue for e in prov.episodes)
    texts = {m.id: m for m in prov.messages}
    for mid in event.payload.source_message_ids:
        msg = data.message_by_id[mid]
        assert texts[mid].text == msg.text and texts[mid].speaker == msg.speaker
        assert texts[mid].time == msg.timestamp and texts[mid].episode


# ---- projection -----------------------------------------------------------------------------
def test_points_frame_holds_episodes_and_memories_with_their_vectors(data):
    frame = points_frame(data)
    assert len(frame) == len(data.episodes) + len(data.memories)
    assert frame["kind"].value_counts().to_dict() == {"memory": len(data.memories),
                                                      "episode": len(data.episodes)}
    assert {"episode", "new", "conflict"} <= set(frame["decision"])
    assert set(frame["status"]) == {"active", "superseded"}
    assert frame["time"].notna().all() and frame["session"].min() == 1
    vectors = point_vectors(data, frame)
    assert vectors.shape == (len(frame), 384)
    row = frame.index[frame["id"] == data.memories[0].id][0]
    assert np.allclose(vectors[row], data.memories[0].embedding)


def test_pca_is_deterministic_and_projects_new_vectors_in_the_same_basis(data):
    vectors = point_vectors(data, points_frame(data))
    a, b = project(vectors, "pca"), project(vectors.copy(), "pca")
    assert a.shape == (len(vectors), 2) and np.array_equal(a, b)
    basis = pca_basis(vectors)
    assert np.allclose(pca_project(vectors[:3], basis), a[:3], atol=1e-5)
    # the first axis spreads the points more than the second
    assert a[:, 0].var() >= a[:, 1].var()


def test_umap_is_repeatable_with_a_seed(data):
    vectors = point_vectors(data, points_frame(data))
    a = project(vectors, "umap", n_neighbors=10, min_dist=0.2, seed=7)
    b = project(vectors, "umap", n_neighbors=10, min_dist=0.2, seed=7)
    assert a.shape == (len(vectors), 2) and np.isfinite(a).all()
    assert np.allclose(a, b)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
@pytest.mark.parametrize("method", ["umap", "pca"])
def test_tiny_inputs_are_laid_out_without_error(n, method):
    rng = np.random.default_rng(n)
    vectors = rng.normal(size=(n, 16)).astype(np.float32)
    out = project(vectors, method, n_neighbors=15)  # more neighbours than points
    assert out.shape == (n, 2) and np.isfinite(out).all()


def test_bad_projection_arguments_are_refused():
    with pytest.raises(ValueError):
        project(np.zeros((5, 3)), "tsne")
    with pytest.raises(ValueError):
        project(np.ones((6, 3)), "umap", metric="hamming-ish")
    with pytest.raises(ValueError):
        project(np.zeros(5), "pca")


def test_nearest_neighbours_come_from_the_active_indexes(data):
    state = MemoryState.restore(384, data.episodes, data.memories)
    memory = next(m for m in data.memories if m.status == "active")
    near = nearest_neighbours(state, np.asarray(memory.embedding), 6, exclude=memory.id)
    assert len(near) == 6 and memory.id not in near["id"].tolist()
    assert list(near["score"]) == sorted(near["score"], reverse=True)
    active = {m.id for m in data.memories if m.status == "active"} | {
        e.id for e in data.episodes if e.status == "active"}
    assert set(near["id"]) <= active
    itself = nearest_neighbours(state, np.asarray(memory.embedding), 1, kinds=("memory",))
    assert itself["id"][0] == memory.id and itself["score"][0] == pytest.approx(1.0, abs=1e-4)


# ---- calls and cost -------------------------------------------------------------------------
def call(prompt="distill", model="gpt-4o-mini", tin=1000, tout=200, cached=False,
         status="ok", latency=0.5) -> LLMCallRecord:
    return LLMCallRecord(id=f"c{prompt}{tin}{cached}{status}", prompt_name=prompt, backend="openai",
                         model=model, messages=[{"role": "user", "content": "hi"}],
                         response_text='{"ok": true}', input_tokens=tin, output_tokens=tout,
                         latency_s=latency, cached=cached, status=status)


def test_the_offline_sample_run_has_no_calls_and_costs_nothing(data):
    assert data.calls == []
    assert cv.call_table(data.calls).empty and cv.totals(data.calls).empty
    assert cv.estimate_cost(data.calls, cv.DEFAULT_PRICES) == cv.CostEstimate()


def test_totals_per_stage_count_spent_tokens_but_not_cache_hits():
    calls = [call("distill"), call("anticipate", tin=500), call("distill", cached=True),
             call("partition", status="failed", tout=0)]
    by_stage = cv.totals(calls).set_index("stage")
    # calls are those sent to the server; cache hits are counted apart
    assert by_stage.loc["semantic", "calls"] == 2 and by_stage.loc["semantic", "cached"] == 1
    assert by_stage.loc["semantic", "input_tokens"] == 1500  # the cached 1000 are not spent
    assert by_stage.loc["partition", "failed"] == 1
    by_prompt = cv.totals(calls, by="prompt").set_index("prompt")
    assert by_prompt.loc["distill", "calls"] == 1 and by_prompt.loc["distill", "cached"] == 1
    assert by_prompt.loc["anticipate", "calls"] == 1
    table = cv.call_table(calls)
    assert list(table["stage"]) == ["semantic", "semantic", "semantic", "partition"]


def test_cost_uses_known_prices_and_says_unknown_otherwise():
    calls = [call(tin=1_000_000, tout=1_000_000), call(cached=True, tin=5_000_000)]
    cost = cv.estimate_cost(calls, cv.DEFAULT_PRICES)
    assert cost.total == pytest.approx(0.15 + 0.60)
    # a dated snapshot is priced like its model
    snap = cv.estimate_cost([call(model="gpt-4o-mini-2024-07-18", tin=2_000_000, tout=0)],
                            cv.DEFAULT_PRICES)
    assert snap.total == pytest.approx(0.30)
    mixed = cv.estimate_cost(calls + [call(model="my-local-llm")], cv.DEFAULT_PRICES)
    assert mixed.total is None and mixed.unknown == ["my-local-llm"]
    assert next(r for r in mixed.by_model if r.model == "my-local-llm").cost is None
    assert cv.format_cost(None) == "unknown" and cv.format_cost(0.75) == "$0.7500"
    # an empty cell is unknown, never zero
    blank = cv.prices_from_rows([cv.PriceRow(model="gpt-4o-mini", input_per_1m=math.nan,
                                             output_per_1m=0.6)])
    assert cv.estimate_cost(calls, blank).total is None


def test_price_table_edits_and_missing_models():
    rows = cv.price_rows({"a": (1.0, 2.0), "b": (3.0, 4.0)})
    rows = cv.with_models(rows, ["b", "c", "c"])
    assert [r.model for r in rows] == ["a", "b", "c"] and rows[2].input_per_1m is None
    edited = cv.apply_edits(rows, {"edited_rows": {2: {"input_per_1m": 0.5, "output_per_1m": 1.5}},
                                   "deleted_rows": [0],
                                   "added_rows": [{"model": "d", "input_per_1m": 9.0},
                                                  {"model": None}]})
    prices = cv.prices_from_rows(edited)
    assert prices == {"b": (3.0, 4.0), "c": (0.5, 1.5), "d": (9.0, None)}
    assert cv.price_for("d", prices) is None and cv.price_for("c", prices) == (0.5, 1.5)
    assert isinstance(cv.call_table([]), pd.DataFrame)
