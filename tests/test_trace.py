"""A window as one trace: spans in the method's order with their calls' time, tokens, cache hits
and retries; offline decisions in order with the rule and score that decided them."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest

from nemori_ui.core.llm import LLMGateway, OpenAIChatBackend
from nemori_ui.core.deciders.offline import OFFLINE_LABEL
from nemori_ui.core.replay import decision_changes, replay_call, replays_of
from nemori_ui.core.store import call_log, open_store, records
from nemori_ui.core.llm.store_sink import StoreCallSink
from nemori_ui.core.views.trace import STAGE_ORDER, stage_totals, window_trace
from tests.llm_responder import prompt_of, respond
from tests.test_pipeline_openai import CONFIG, run


@pytest.fixture
def store(tmp_path):
    s = open_store(tmp_path / "home")
    yield s
    s.conn.close()


def _trace(store, run_id, window=0):
    events = records.load_events(store, run_id, window=window)
    calls = records.load_calls_by_id(store, run_id, [i for e in events for i in e.call_ids])
    return events, calls, window_trace(window, events, calls)


def test_a_model_run_traces_every_decision_of_a_window_with_its_calls(store, openai_server):
    openai_server.responder = respond
    run_id = run(store, openai_server)
    events, calls, trace = _trace(store, run_id)
    assert [s.seq for s in trace.spans] == sorted(e.seq for e in events)
    assert {s.stage for s in trace.spans} >= {"partition", "narrate", "anticipate", "distill"}
    assert trace.timed and trace.duration_s > 0
    timed = [s for s in trace.spans if s.start_s is not None]
    assert timed and all(s.start_s >= 0 and s.start_s + s.duration_s <= trace.duration_s + 1e-3
                         for s in timed)
    # the partition is asked first: its span starts the window
    assert trace.spans[0].stage == "partition" and trace.spans[0].start_s == 0
    # every call of the window belongs to one span, its tokens counted once
    assert sorted(i for s in trace.spans for i in s.call_ids) == sorted(c.id for c in calls)
    assert sum(s.input_tokens for s in trace.spans) == sum(c.input_tokens for c in calls)
    assert all(s.decided_by == "openai:test-model" for s in trace.spans if s.calls)
    totals = stage_totals(trace)
    assert [t.stage for t in totals] == [s for s in STAGE_ORDER if s in {t.stage for t in totals}]
    assert sum(t.calls for t in totals) == len(calls)


def test_no_span_passes_the_end_of_its_window_once_rounded(store, openai_server):
    openai_server.responder = respond
    events, calls, _ = _trace(store, run(store, openai_server))
    # sends and replies a fraction of a millisecond off the rounding steps, as real ones fall
    draw = random.Random(7)
    for _ in range(200):
        moved = [c.model_copy(update={
            "latency_s": c.latency_s + draw.random() / 1000,
            "created_at": c.created_at + timedelta(microseconds=draw.randrange(1000))})
            for c in calls]
        trace = window_trace(0, events, moved)
        assert all(round(s.start_s + s.duration_s, 6) <= trace.duration_s
                   for s in trace.spans if s.start_s is not None)


def test_a_window_run_again_from_the_cache_is_traced_untimed(store, openai_server):
    openai_server.responder = respond
    run(store, openai_server)
    again = run(store, openai_server)
    _, calls, trace = _trace(store, again)
    assert calls and all(c.cached for c in calls)
    assert not trace.timed and sum(s.cached for s in trace.spans) == len(calls)


def test_offline_decisions_keep_their_order_rule_and_score(sample_run):
    store, run_id = sample_run
    _, calls, trace = _trace(store, run_id, window=1)
    assert not calls and not trace.timed
    assert all(s.decided_by == OFFLINE_LABEL for s in trace.spans)
    decided = [s for s in trace.spans if s.stage == "consolidate" and s.score is not None]
    assert decided and all(s.label in ("new", "merge", "conflict") and s.rule for s in decided)
    evoked = [s for s in trace.spans if s.stage == "anticipate"]
    assert evoked and all(s.rule.startswith("τ = ") for s in evoked)


# -- replay with an edited prompt ----------------------------------------------------------

def test_only_the_fields_that_differ_are_changes():
    before = {"insights": [{"text": "Ana has a dog"}], "reason": "x"}
    after = {"insights": [], "reason": "x", "extra": 1}
    assert [(c.field, c.before, c.after) for c in decision_changes(before, after)] == [
        ("insights", [{"text": "Ana has a dog"}], []), ("extra", None, 1)]
    assert decision_changes(before, dict(before)) == []


def test_a_replayed_call_is_a_variant_beside_the_run(store, openai_server):
    openai_server.responder = respond
    run_id = run(store, openai_server)
    memories = sorted(m.text for m in records.load_memories(store, run_id))
    original = next(c for c in records.load_calls(store, run_id) if c.prompt_name == "distill")
    gateway = LLMGateway(OpenAIChatBackend("test-model", api_key="k", base_url=openai_server.url),
                         None, temperature=CONFIG.temperature, sleep=lambda s: None,
                         sink=StoreCallSink(store))

    same = replay_call(gateway, original, original.messages, CONFIG, run_id)
    assert same.ok and not same.edited and same.changes == []

    def nothing_new(body):
        return {"insights": []} if prompt_of(body) == "distill" else respond(body)
    openai_server.responder = nothing_new
    edited = [dict(m) for m in original.messages]
    edited[0]["content"] += "\nKeep nothing: every statement is already known."
    changed = replay_call(gateway, original, edited, CONFIG, run_id)
    assert changed.ok and changed.edited
    assert [(c.field, c.after) for c in changed.changes] == [("insights", [])]
    # kept in the call log as replays of the original, the run itself untouched
    kept = replays_of(store, run_id, original)
    assert [r.call_id for r in kept] == [same.call_id, changed.call_id]
    assert [r.edited for r in kept] == [False, True] and kept[1].changes == changed.changes
    assert all(c.context["replay_of"] == original.id
               for c in call_log.calls_of_run(store, run_id, kind="replay"))
    assert sorted(m.text for m in records.load_memories(store, run_id)) == memories
    assert original.id in {c.id for c in records.load_calls(store, run_id)}
