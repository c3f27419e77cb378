"""One consolidation call for an episode's insights, and no select call for candidates too far
off in time for the select prompt to merge."""

from __future__ import annotations

from datetime import timedelta

from nemori_ui.core.models import SemanticMemory
from nemori_ui.core.pipeline.consolidation import consolidate
from nemori_ui.core.pipeline.decisions import ConsolidationDecision, Insight
from nemori_ui.core.pipeline.episodic import close_in_time, integrate_episode
from nemori_ui.core.pipeline.events import EventLog
from nemori_ui.core.pipeline.state import MemoryState
from nemori_ui.core.prompts.select import MAX_GAP
from tests.fakes import HashEmbedder, ScriptedDecider
from tests.test_llm_decider import ids_of, make, mem
from tests.test_stages import _episode, kit, msgs

DOG, CITY, JOB = (mem("sm0001", "Ana has a dog."), mem("sm0002", "Ana lives in Lisbon."),
                  mem("sm0003", "Ana works at a bakery."))


def test_one_call_decides_each_insight_against_its_own_candidates():
    decider, backend, gateway, _ = make()
    backend.enqueue({"decisions": [
        {"fact": 2, "reason": "moved", "action": "conflict", "targets": [2]},
        {"fact": 1, "reason": "same dog", "action": "merge", "targets": [1],
         "merged_text": "Ana has a beagle."},
        {"fact": 3, "reason": "not its candidate", "action": "merge", "targets": [1],
         "merged_text": "x"}]}, prompt="consolidate_episode")
    out = decider.consolidate_episode([
        ("Ana's dog is a beagle.", [(DOG, 0.9), (CITY, 0.5)], None),
        ("Ana moved to Porto.", [(JOB, 0.6), (CITY, 0.8)], None),
        ("Ana bakes bread at night.", [(JOB, 0.7)], None)])
    [call] = backend.calls
    assert call.prompt == "consolidate_episode"
    user = call.messages[-1]["content"]
    # every candidate listed once, numbered in order of first appearance
    assert user.count("Ana lives in Lisbon.") == 1
    assert "[1] Ana has a dog." in user and "[3] Ana works at a bakery." in user
    assert "[2] Ana moved to Porto. (similar: 3, 2)" in user
    # targets come back as each insight's own candidate numbers
    assert (out[0].action, out[0].targets, out[0].merged_text) == ("merge", [1], "Ana has a beagle.")
    assert (out[1].action, out[1].targets) == ("conflict", [2])
    assert out[2].targets == [0]            # stored fact 1 is not a candidate of fact 3
    assert {tuple(d.call_ids) for d in out} == {tuple(ids_of(gateway))}


def test_a_fact_the_reply_leaves_out_is_decided_offline_and_says_so():
    decider, backend, _, _ = make()
    backend.enqueue({"decisions": [{"fact": 1, "reason": "new", "action": "new"}]},
                    prompt="consolidate_episode")
    out = decider.consolidate_episode([("Ana has a cat.", [(DOG, 0.7)], None),
                                       ("Ana moved to Porto.", [(CITY, 0.8)], None)])
    assert out[0].fallback is None and out[0].action == "new"
    assert "no decision for fact 2" in out[1].fallback
    assert out[1].call_ids == out[0].call_ids


def test_a_failed_call_leaves_every_fact_to_the_offline_engine():
    decider, backend, gateway, _ = make()
    backend.enqueue("not json", "{still not", prompt="consolidate_episode")
    out = decider.consolidate_episode([("Ana has a cat.", [(DOG, 0.7)], None),
                                       ("Ana moved to Porto.", [(CITY, 0.8)], None)])
    [failed] = ids_of(gateway)
    assert all(d.call_ids[0] == failed and "offline engine decided" in d.fallback for d in out)


def test_a_word_for_word_copy_is_not_asked_about():
    decider, backend, _, _ = make()
    out = decider.consolidate_episode([("Ana has a dog.", [(DOG, 1.0)], None)])
    assert not backend.calls and out[0].action == "merge" and out[0].call_ids == []


class _Batched(ScriptedDecider):
    """A scripted decider that answers per episode, as the LLM decider does."""

    def __init__(self, replies: list[ConsolidationDecision]):
        super().__init__()
        self.replies, self.batches = replies, []

    def consolidate_episode(self, items):
        self.batches.append([text for text, _, _ in items])
        return self.replies[:len(items)]


def test_an_episode_is_asked_about_once_and_a_target_replaced_earlier_is_left_out():
    emb, state, log = HashEmbedder(), MemoryState(64), EventLog(0, 0)
    old = SemanticMemory(id="sm0001", text="Ana lives in Lisbon.",
                         embedding=emb.embed(["Ana lives in Lisbon."])[0].tolist())
    state.add_memory(old)
    # both insights name the same stored memory; the second finds it already replaced
    replies = [ConsolidationDecision(action="conflict", targets=[1], call_ids=["c1"]),
               ConsolidationDecision(action="merge", targets=[1], merged_text="Ana lives in "
                                     "Lisbon and Porto.", call_ids=["c1"])]
    decider = _Batched(replies)
    c = kit(decider, log, emb, state, consolidation="gated", consolidation_gate=-1.0)
    insights = [Insight(text="Ana moved to Porto in Lisbon's place.", source_message_ids=["m1"]),
                Insight(text="Ana lives in Lisbon and Porto now.", source_message_ids=["m2"])]
    said = msgs("a", "b")
    consolidate(c, _episode(state, emb, said, {x.id: x for x in said}), insights)
    assert len(decider.batches) == 1 and len(decider.batches[0]) == 2
    first, second = [e.payload for e in log.events if e.stage == "consolidate"]
    assert first.action == "conflict" and first.targets == ["sm0001"]
    assert second.action == "new" and "already replaced" in second.repair
    assert [m.status for m in state.memories.values()] == ["superseded", "active", "active"]


def test_per_insight_asks_once_each():
    emb, state, log = HashEmbedder(), MemoryState(64), EventLog(0, 0)
    state.add_memory(SemanticMemory(id="sm0001", text="Ana lives in Lisbon.",
                                    embedding=emb.embed(["Ana lives in Lisbon."])[0].tolist()))
    decider = _Batched([])
    c = kit(decider, log, emb, state, consolidation="gated", consolidation_gate=-1.0,
            consolidation_unit="insight")
    said = msgs("a", "b")
    consolidate(c, _episode(state, emb, said, {x.id: x for x in said}),
                [Insight(text="Ana moved to Porto.", source_message_ids=["m1"]),
                 Insight(text="Ana likes Porto.", source_message_ids=["m2"])])
    assert not decider.batches and len(decider.seen["consolidate"]) == 2


def test_candidates_further_off_than_the_prompt_merges_are_not_asked_about():
    emb, state, log = HashEmbedder(), MemoryState(64), EventLog(0, 0)
    m = msgs("lisbon trip flights booked", "we stay in alfama", "lisbon trip sintra day",
             "tram 28")
    later = [x.model_copy(update={"timestamp": x.timestamp + timedelta(hours=3)}) for x in m[2:]]
    by_id = {x.id: x for x in m[:2] + later}
    decider = ScriptedDecider()
    first = _episode(state, emb, m[:2], by_id)
    integrate_episode(kit(decider, log, emb, state, by_id), first)
    second = _episode(state, emb, later, by_id, window=1)
    out = integrate_episode(kit(decider, log, emb, state, by_id), second)
    assert out.id == second.id and "select" not in decider.seen
    assert "no earlier episode within 2 h of it" in log.events[-1].payload.skipped
    assert "close in time: no call" in log.events[-1].payload.skipped


def test_close_in_time_keeps_what_the_prompt_could_merge_and_what_has_no_time():
    emb, state = HashEmbedder(), MemoryState(64)
    m = msgs("a", "b", "c", "d")
    new = _episode(state, emb, m[2:], {x.id: x for x in m})
    near = new.model_copy(update={"end": new.start - MAX_GAP["paper"]})
    far = new.model_copy(update={"end": new.start - MAX_GAP["paper"] - timedelta(minutes=1)})
    untimed = new.model_copy(update={"end": None})
    kept = close_in_time(new, [(near, 0.9), (far, 0.9), (untimed, 0.9)], MAX_GAP["paper"])
    assert [e for e, _ in kept] == [near, untimed]
