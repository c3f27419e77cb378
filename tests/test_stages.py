"""Each stage's exact behaviour on every branch, with a scripted decider."""

from datetime import datetime, timedelta

import numpy as np
import pytest

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.models import Message, SemanticMemory
from nemori_ui.core.pipeline.bundle import StageContext
from nemori_ui.core.pipeline.decisions import (ConsolidationDecision, Insight, PartitionDecision,
                                               SelectDecision)
from nemori_ui.core.pipeline.episodic import (build_episode, integrate_episode, make_windows,
                                              partition_window, repair_partition)
from nemori_ui.core.pipeline.events import EventLog
from nemori_ui.core.pipeline.consolidation import consolidate
from nemori_ui.core.pipeline.semantic import anticipate_and_distill, evoke
from nemori_ui.core.pipeline.state import MemoryState
from nemori_ui.core.models import RawEpisode
from nemori_ui.core.pipeline.decisions import NarrationDecision

from tests.fakes import HashEmbedder, ScriptedDecider

T0 = datetime(2024, 3, 4, 18, 0)


def kit(decider, log, emb=None, state=None, by_id=None, **settings) -> StageContext:
    """The bundle a stage takes, with what these tests leave out filled in."""
    return StageContext(decider=decider, embedder=HashEmbedder() if emb is None else emb,
                        state=MemoryState(64) if state is None else state,
                        config=PipelineConfig(**settings), log=log,
                        by_id={} if by_id is None else by_id)


def msgs(*texts):
    return [Message(id=f"m{i + 1:04d}", speaker="Ana" if i % 2 == 0 else "Ben", text=t,
                    timestamp=T0 + timedelta(minutes=i)) for i, t in enumerate(texts)]


def test_windows_cover_every_message_once():
    m = msgs(*[f"message {i}" for i in range(45)])
    windows = make_windows(m, 20)
    assert [len(w) for w in windows] == [20, 20, 5]
    assert [x.id for w in windows for x in w] == [x.id for x in m]


@pytest.mark.parametrize("groups,n,expected,repairs", [
    ([[1, 2], [3, 4]], 4, [[1, 2], [3, 4]], 0),
    ([[1, 2], [4]], 4, [[1, 2, 3], [4]], 1),                  # omitted 3 joins its predecessor
    ([[1, 2, 2], [2, 3]], 3, [[1, 2], [3]], 2),               # repeats dropped
    ([[0, 1, 9], [2, 3]], 3, [[1], [2, 3]], 2),               # out of range dropped
    ([[3, 4], [1, 2]], 4, [[1, 2], [3, 4]], 0),               # ordered by first index
    ([[]], 3, [[1, 2, 3]], 1),                                # nothing usable
    ([[2], [3]], 3, [[1, 2], [3]], 1),                        # omitted 1 joins the first group
])
def test_repair_partition(groups, n, expected, repairs):
    fixed, notes = repair_partition(groups, n)
    assert fixed == expected
    assert len(notes) == repairs
    assert sorted(i for g in fixed for i in g) == list(range(1, n + 1))


def test_partition_records_repairs_and_maps_ids():
    window = msgs("a b", "c d", "e f")
    decider = ScriptedDecider().enqueue("partition", PartitionDecision(groups=[[1], [1, 3]]))
    log = EventLog(0, 0)
    raws = partition_window(kit(decider, log), window)
    assert [r.message_ids for r in raws] == [["m0001", "m0002"], ["m0003"]]
    payload = log.events[0].payload
    assert payload.proposed == [[1], [1, 3]]
    assert any("repeated index 1" in r for r in payload.repairs)
    assert any("omitted index 2" in r for r in payload.repairs)


def _episode(state, emb, texts, by_id, window=0):
    raw = RawEpisode(window=window, index=0, message_ids=[m.id for m in texts])
    return build_episode(kit(ScriptedDecider(), EventLog(window, 0), emb, state, by_id), raw,
                         NarrationDecision(cue=texts[0].text,
                                           narrative=" ".join(m.text for m in texts)))


def test_integrate_without_candidates_skips_the_decider():
    emb, state = HashEmbedder(), MemoryState(64)
    m = msgs("lisbon trip flights booked", "we stay in alfama")
    by_id = {x.id: x for x in m}
    decider, log = ScriptedDecider(), EventLog(0, 0)
    ep = _episode(state, emb, m, by_id)
    out = integrate_episode(kit(decider, log, emb, state, by_id), ep)
    assert out.id == ep.id and "select" not in decider.seen
    assert log.events[0].payload.skipped


def test_integrate_minus_one_keeps_both():
    emb, state = HashEmbedder(), MemoryState(64)
    m = msgs("lisbon trip flights booked", "we stay in alfama", "my cat is grey", "cat sleeps")
    by_id = {x.id: x for x in m}
    decider, log = ScriptedDecider(), EventLog(0, 0)
    first = _episode(state, emb, m[:2], by_id)
    integrate_episode(kit(decider, log, emb, state, by_id), first)
    second = _episode(state, emb, m[2:], by_id)
    decider.enqueue("select", SelectDecision(idx=-1, reason="different topic"))
    out = integrate_episode(kit(decider, log, emb, state, by_id), second)
    assert out.id == second.id
    assert [e.id for e in state.active_episodes()] == [first.id, second.id]
    assert log.events[-1].payload.candidates[0].id == first.id


def test_integrate_match_supersedes_both_and_concatenates_messages():
    emb, state = HashEmbedder(), MemoryState(64)
    m = msgs("lisbon trip flights booked", "we stay in alfama", "lisbon trip sintra day", "tram 28")
    by_id = {x.id: x for x in m}
    decider, log = ScriptedDecider(), EventLog(0, 0)
    first = _episode(state, emb, m[:2], by_id)
    integrate_episode(kit(decider, log, emb, state, by_id), first)
    second = _episode(state, emb, m[2:], by_id, window=1)
    decider.enqueue("select", SelectDecision(idx=1, reason="same trip"))
    merged = integrate_episode(kit(decider, log, emb, state, by_id), second)
    assert merged.message_ids == ["m0001", "m0002", "m0003", "m0004"]
    assert merged.supersedes == [first.id, second.id]
    assert state.episodes[first.id].superseded_by == merged.id
    assert state.episodes[second.id].status == "superseded"
    assert [e.id for e in state.active_episodes()] == [merged.id]
    assert len(state.episode_index) == 1
    payload = log.events[-1].payload
    assert payload.target == first.id and payload.result_id == merged.id
    assert payload.after is None    # the stored episodes hold the texts, looked up by id


def test_integrate_out_of_range_choice_is_repaired_to_new():
    emb, state = HashEmbedder(), MemoryState(64)
    m = msgs("lisbon trip", "alfama", "lisbon trip again", "more")
    by_id = {x.id: x for x in m}
    decider, log = ScriptedDecider(), EventLog(0, 0)
    integrate_episode(kit(decider, log, emb, state, by_id), _episode(state, emb, m[:2], by_id))
    decider.enqueue("select", SelectDecision(idx=7))
    out = integrate_episode(kit(decider, log, emb, state, by_id), _episode(state, emb, m[2:], by_id))
    assert out.status == "active" and len(state.active_episodes()) == 2
    assert "not a candidate" in log.events[-1].payload.repair


def _memory(state, emb, text):
    mem = SemanticMemory(id=state.next_memory_id(), text=text, embedding=emb.embed([text])[0].tolist(),
                         source_episode_ids=["ep0000"], source_message_ids=["m0000"])
    state.add_memory(mem)
    return mem


def test_evoke_filters_by_tau_strictly():
    emb, state = HashEmbedder(), MemoryState(64)
    a = _memory(state, emb, "maya drinks coffee every morning at home")
    _memory(state, emb, "pixel is a grey cat")
    m = msgs("maya drinks coffee every morning")
    by_id = {x.id: x for x in m}
    ep = _episode(state, emb, m, by_id)
    score_a = float(np.dot(ep.embedding, a.embedding))
    passed, listing = evoke(state, ep, PipelineConfig(tau=score_a - 1e-4))
    assert [x.id for x, _ in passed] == [a.id]
    assert len(listing) == 2 and [r.passed for r in listing] == [True, False]
    passed, _ = evoke(state, ep, PipelineConfig(tau=score_a + 1e-4))
    assert passed == []


def test_nemori_s_skips_anticipation():
    emb, state = HashEmbedder(), MemoryState(64)
    m = msgs("maya joined finch labs as engineer")
    ep = _episode(state, emb, m, {x.id: x for x in m})
    decider, log = ScriptedDecider(), EventLog(0, 0)
    insights = anticipate_and_distill(kit(decider, log, emb, state, variant="nemori-s"), ep, m)
    assert "anticipate" not in decider.seen and len(insights) == 1
    assert [e.stage for e in log.events] == ["distill"] and log.events[0].payload.mode == "direct"


def _consolidate(action, targets, merged=None, management="native"):
    emb, state = HashEmbedder(), MemoryState(64)
    old = _memory(state, emb, "maya drinks three cups of coffee")
    other = _memory(state, emb, "maya has a grey cat")
    m = msgs("maya drinks green tea")
    ep = _episode(state, emb, m, {x.id: x for x in m})
    decider, log = ScriptedDecider(), EventLog(0, 0)
    decider.enqueue("consolidate", ConsolidationDecision(action=action, targets=targets, merged_text=merged))
    # the decision as the decider gives it, whatever the gate would have skipped
    consolidate(kit(decider, log, emb, state, management=management, consolidation="always"), ep,
                [Insight(text="maya drinks green tea now", source_message_ids=["m0001"])])
    return state, old, other, log


def test_consolidate_new():
    state, old, other, log = _consolidate("new", [])
    assert len(state.active_memories()) == 3 and log.events[0].payload.action == "new"


def test_consolidate_merge_supersedes_targets_with_merged_text():
    state, old, other, log = _consolidate("merge", [1], merged="maya drinks coffee and green tea")
    active = state.active_memories()
    new = [m for m in active if m.id not in (old.id, other.id)][0]
    assert new.text == "maya drinks coffee and green tea" and new.origin == "merge"
    assert state.memories[old.id].status == "superseded" and state.memories[old.id].superseded_by == new.id
    assert set(new.source_message_ids) == {"m0001", "m0000"}
    assert old.id not in state.memory_index


def test_consolidate_conflict_replaces_with_the_insight():
    state, old, other, log = _consolidate("conflict", [1])
    new = state.memories[state.memories[old.id].superseded_by]
    assert new.text == "maya drinks green tea now" and new.origin == "conflict"
    assert len(state.active_memories()) == 2


def test_consolidate_bad_targets_become_new():
    state, old, other, log = _consolidate("conflict", [9])
    assert len(state.active_memories()) == 3
    assert "without a valid target" in log.events[0].payload.repair


def test_naive_management_appends_without_asking():
    state, old, other, log = _consolidate("conflict", [1], management="naive")
    assert len(state.active_memories()) == 3
    assert log.events[0].payload.action == "new" and "naive" in log.events[0].payload.skipped


def test_merge_into_an_identical_text_keeps_the_memory_as_it_is():
    emb, state = HashEmbedder(), MemoryState(64)
    old = _memory(state, emb, "maya drinks green tea now")
    m = msgs("maya drinks green tea")
    ep = _episode(state, emb, m, {x.id: x for x in m})
    decider, log = ScriptedDecider(), EventLog(0, 0)
    decider.enqueue("consolidate", ConsolidationDecision(action="merge", targets=[1],
                                                         merged_text="maya drinks green tea now"))
    consolidate(kit(decider, log, emb, state), ep,
                [Insight(text="maya drinks green tea now", source_message_ids=["m0001"])])
    assert [x.id for x in state.active_memories()] == [old.id] and len(state.memories) == 1
    payload = log.events[0].payload
    assert payload.unchanged and payload.result_id == old.id
