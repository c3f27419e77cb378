"""The LLM decider on every branch, with the scripted backend behind a real gateway."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.llm import LLMGateway, ScriptedBackend
from nemori_ui.core.models import Episode, Message, SemanticMemory
from nemori_ui.core.deciders.offline import OfflineDecider
from nemori_ui.core.deciders.llm import LLMDecider
from tests.fakes import HashEmbedder

T0 = datetime(2023, 5, 8, 13, 56)
CONFIG = PipelineConfig(backend="openai", model="gpt-4o-mini", temperature=0.3,
                        answer_temperature=0.0)


def msgs(*texts: str) -> list[Message]:
    return [Message(id=f"m{i + 1:04d}", speaker="Ana" if i % 2 == 0 else "Ben", text=t,
                    timestamp=T0 + timedelta(minutes=i)) for i, t in enumerate(texts)]


def ep(eid: str, cue: str) -> Episode:
    return Episode(id=eid, cue=cue, narrative=f"{cue}, told in full.", message_ids=["m0001"],
                   start=T0, end=T0 + timedelta(minutes=5))


def mem(mid: str, text: str) -> SemanticMemory:
    return SemanticMemory(id=mid, text=text)


MESSAGES = msgs("I adopted a dog named Rex on Saturday.", "What breed is he?",
                "A beagle, two years old.", "Nice! I moved to Porto in March.")


def make(*, model: str = "gpt-4o-mini"):
    backend = ScriptedBackend(model)
    gateway = LLMGateway(backend, None, temperature=CONFIG.temperature, sleep=lambda s: None)
    offline = OfflineDecider(HashEmbedder())
    return LLMDecider(gateway, CONFIG, fallback=offline), backend, gateway, offline


def ids_of(gateway):
    return [r.id for r in gateway.drain_records()]


def test_label_names_backend_and_model():
    decider, *_ = make(model="llama3.1:8b")
    assert decider.label == "scripted:llama3.1:8b"


def test_partition_passes_groups_and_topics_through():
    decider, backend, gateway, _ = make()
    # an imperfect partition is passed on as returned: the stage repairs and shows it
    backend.enqueue({"episodes": [{"indices": [1, 2], "topic": " dog "},
                                  {"indices": [4, 4], "topic": "move"}]}, prompt="partition")
    out = decider.partition(MESSAGES)
    assert out.groups == [[1, 2], [4, 4]] and out.topics == ["dog", "move"]
    assert out.fallback is None and out.call_ids == ids_of(gateway)
    call = backend.calls_for("partition")[0]
    assert call.temperature == 0.3
    assert "[3] (2023-05-08 Mon 13:58) Ana: A beagle, two years old." in call.messages[1]["content"]


def test_narrate_maps_cue_and_narrative():
    decider, backend, gateway, _ = make()
    backend.enqueue({"cue": "  Ana adopts  Rex\n", "narrative": " On 6 May 2023 Ana adopted Rex. "},
                    prompt="narrate")
    out = decider.narrate(MESSAGES[:3])
    assert (out.cue, out.narrative) == ("Ana adopts Rex", "On 6 May 2023 Ana adopted Rex.")
    assert out.call_ids == ids_of(gateway) and out.fallback is None


@pytest.mark.parametrize("idx", [2, -1, 7])
def test_select_passes_the_index_through(idx):
    decider, backend, gateway, _ = make()
    backend.enqueue({"reason": "why", "idx": idx}, prompt="select")
    cands = [(ep("ep0001", "Ana and Ben on films"), 0.8), (ep("ep0002", "Ana adopts Rex"), 0.7)]
    out = decider.select_integration(ep("ep0003", "Rex the beagle"), cands)
    assert (out.idx, out.reason, out.fallback) == (idx, "why", None)
    assert out.call_ids == ids_of(gateway)
    text = backend.calls_for("select")[0].messages[1]["content"]
    assert "Candidate [2]" in text and "Ana adopts Rex" in text and "Rex the beagle" in text


def test_merge_episodes_uses_the_integrate_prompt():
    decider, backend, gateway, _ = make()
    backend.enqueue({"cue": "Ana adopts Rex, a beagle", "narrative": "Both parts."},
                    prompt="integrate")
    out = decider.merge_episodes(ep("ep0001", "Ana adopts Rex"), ep("ep0002", "Rex is a beagle"),
                                 MESSAGES)
    assert (out.cue, out.narrative) == ("Ana adopts Rex, a beagle", "Both parts.")
    assert out.call_ids == ids_of(gateway)
    assert "Earlier part:" in backend.calls_for("integrate")[0].messages[1]["content"]


def test_anticipate_sees_only_the_cue_and_the_known_statements():
    decider, backend, gateway, _ = make()
    backend.enqueue({"prediction": "Ana talks about her dog.\n"}, prompt="anticipate")
    out = decider.anticipate("Ana adopts Rex", [(mem("sm0001", "Ana likes dogs."), 0.9)])
    assert out.prediction == "Ana talks about her dog." and out.call_ids == ids_of(gateway)
    text = backend.calls_for("anticipate")[0].messages[1]["content"]
    assert "Ana adopts Rex" in text and "- Ana likes dogs." in text
    assert "beagle" not in text   # the raw episode is not shown to the predictor


def test_distill_maps_line_numbers_to_message_ids():
    decider, backend, gateway, _ = make()
    backend.enqueue({"insights": [
        {"text": "Ana adopted a beagle named Rex on 6 May 2023.", "lines": [3, 1, 3]},
        {"text": "Ben moved to Porto in March 2023.", "lines": [4, 9, 0]},   # 9 and 0 dropped
        {"text": "Rex is two years old.", "lines": [12]},                  # nothing valid: all
        {"text": "   ", "lines": [1]},                                     # empty: skipped
    ]}, prompt="distill")
    out = decider.distill(MESSAGES, "Ana talks about a pet.")
    assert [(i.text, i.source_message_ids) for i in out.insights] == [
        ("Ana adopted a beagle named Rex on 6 May 2023.", ["m0003", "m0001"]),
        ("Ben moved to Porto in March 2023.", ["m0004"]),
        ("Rex is two years old.", ["m0001", "m0002", "m0003", "m0004"]),
    ]
    assert out.call_ids == ids_of(gateway) and out.fallback is None
    assert "Predicted content:\nAna talks about a pet." in backend.calls_for("distill")[0].messages[1]["content"]


def test_distill_direct_uses_its_own_prompt_and_the_same_mapping():
    decider, backend, gateway, _ = make()
    backend.enqueue({"insights": [{"text": "Ana has a dog.", "lines": [1]}]},
                    prompt="distill_direct")
    out = decider.distill_direct(MESSAGES)
    assert [(i.text, i.source_message_ids) for i in out.insights] == [("Ana has a dog.", ["m0001"])]
    assert out.call_ids == ids_of(gateway) and not backend.calls_for("distill")


CANDS = [(mem("sm0001", "Ana has a dog."), 0.9), (mem("sm0002", "Ana lives in Lisbon."), 0.8)]


@pytest.mark.parametrize("reply,expected", [
    ({"reason": "unrelated", "action": "new", "targets": [], "merged_text": None},
     ("new", [], None)),
    # a stray merged_text on "new" or "conflict" is not passed on
    ({"reason": "same dog", "action": "merge", "targets": [1], "merged_text": " Ana has a dog, Rex. "},
     ("merge", [1], "Ana has a dog, Rex.")),
    ({"reason": "moved", "action": "conflict", "targets": [2], "merged_text": "ignored"},
     ("conflict", [2], None)),
    ({"reason": "no action given"}, ("new", [], None)),
    ({"reason": "blank merge", "action": "merge", "targets": [1, 5], "merged_text": "  "},
     ("merge", [1, 5], None)),
])
def test_consolidate_branches(reply, expected):
    decider, backend, gateway, _ = make()
    backend.enqueue(reply, prompt="consolidate")
    out = decider.consolidate("Ana's dog is called Rex.", CANDS)
    assert (out.action, out.targets, out.merged_text) == expected
    assert out.reason == reply["reason"] and out.call_ids == ids_of(gateway)
    assert out.fallback is None


def test_summarize_and_answer():
    decider, backend, gateway, _ = make()
    backend.enqueue({"summary": "Ana has a dog.\nAna lives in Porto."}, prompt="summarize")
    backend.enqueue("Rex")   # the paper preset's answer is plain text, asked without a schema
    s = decider.summarize("Ana has a dog.", ["Ana lives in Porto."])
    a = decider.answer("What is the dog called?", "Ana has a dog named Rex.")
    assert s.summary == "Ana has a dog.\nAna lives in Porto." and a.answer == "Rex"
    assert s.call_ids + a.call_ids == ids_of(gateway)
    # the answer, asked in plain text, carries no schema name
    temps = {c.prompt: c.temperature for c in backend.calls}
    assert temps == {"summarize": 0.3, None: 0.0}
    assert backend.calls[-1].response_format is None


# -- failure: the offline engine decides, and says so ---------------------------------------

def _fail(backend, prompt):
    # an unusable reply and an unusable repair: the gateway records a failed call
    if prompt == "answer":
        # asked in plain text, without a schema to name it: any text is usable but none
        backend.enqueue("", "  ")
        return
    backend.enqueue("not json at all", "{still not json", prompt=prompt)


FAILING = {
    "partition": lambda d: d.partition(MESSAGES),
    "narrate": lambda d: d.narrate(MESSAGES),
    "select": lambda d: d.select_integration(ep("ep0003", "Rex"), [(ep("ep0001", "Rex"), 0.9)]),
    "integrate": lambda d: d.merge_episodes(ep("ep0001", "Rex"), ep("ep0002", "Rex"), MESSAGES),
    "anticipate": lambda d: d.anticipate("Ana adopts Rex", CANDS),
    "distill": lambda d: d.distill(MESSAGES, "Ana has a dog."),
    "distill_direct": lambda d: d.distill_direct(MESSAGES),
    "cold_start": lambda d: d.distill_cold(ep("ep0001", "Rex"), MESSAGES),
    "consolidate": lambda d: d.consolidate("Ana's dog is Rex.", CANDS),
    "summarize": lambda d: d.summarize("Ana has a dog.", ["Ana lives in Porto."]),
    "answer": lambda d: d.answer("Dog's name?", "Ana has a dog named Rex."),
}


@pytest.mark.parametrize("prompt", sorted(FAILING))
def test_failed_call_falls_back_to_the_offline_engine(prompt):
    decider, backend, gateway, offline = make()
    _fail(backend, prompt)
    out = FAILING[prompt](decider)
    records = gateway.drain_records()
    assert [r.status for r in records] == ["failed"]
    assert out.call_ids == [records[0].id]
    assert out.fallback == f"LLM call failed ({records[0].error}); offline engine decided"
    assert "invalid reply after one repair attempt" in out.fallback
    # the decision itself is exactly the offline engine's
    expected = FAILING[prompt](offline)
    assert out.model_dump(exclude={"call_ids", "fallback"}) == \
        expected.model_dump(exclude={"call_ids", "fallback"})


def test_backend_error_falls_back_with_its_message():
    decider, backend, gateway, _ = make()
    backend.enqueue(RuntimeError("model not found"), prompt="distill")
    out = decider.distill(MESSAGES, "")
    record = gateway.drain_records()[0]
    assert record.status == "failed" and out.call_ids == [record.id]
    assert out.fallback == "LLM call failed (RuntimeError: model not found); offline engine decided"


def test_repaired_reply_is_used_not_fallen_back():
    decider, backend, gateway, _ = make()
    backend.enqueue("oops", {"prediction": "fixed"}, prompt="anticipate")
    out = decider.anticipate("cue", [])
    record = gateway.drain_records()[0]
    assert record.status == "repaired"
    assert (out.prediction, out.fallback, out.call_ids) == ("fixed", None, [record.id])


@pytest.mark.parametrize("prompt,reply,call", [
    ("narrate", {"cue": "", "narrative": "text"}, lambda d: d.narrate(MESSAGES)),
    ("integrate", {"cue": "c", "narrative": " "},
     lambda d: d.merge_episodes(ep("ep0001", "a"), ep("ep0002", "b"), MESSAGES)),
    ("summarize", {"summary": "  "}, lambda d: d.summarize("Ana has a dog.", ["x"])),
])
def test_empty_text_is_unusable_and_falls_back(prompt, reply, call):
    decider, backend, gateway, _ = make()
    backend.enqueue(reply, prompt=prompt)
    out = call(decider)
    record = gateway.drain_records()[0]
    assert record.status == "ok" and out.call_ids == [record.id]
    assert out.fallback.startswith("LLM reply unusable (") and "offline engine decided" in out.fallback


def test_cached_reply_still_records_a_call_id():
    backend = ScriptedBackend()
    from nemori_ui.core.llm import MemoryResponseCache
    gateway = LLMGateway(backend, MemoryResponseCache(), temperature=0.3)
    decider = LLMDecider(gateway, CONFIG, fallback=OfflineDecider(HashEmbedder()))
    backend.enqueue({"prediction": "p"}, prompt="anticipate")
    first, second = decider.anticipate("cue", []), decider.anticipate("cue", [])
    records = gateway.drain_records()
    assert len(backend.calls) == 1 and [r.cached for r in records] == [False, True]
    assert first.prediction == second.prediction == "p"
    assert first.call_ids == [records[0].id] and second.call_ids == [records[1].id]
