"""The knowledge benchmark's measures: 'states' needs meaning and a shared word; the labelled
scorer counts resolved changes, false conflicts, talk and duplicated repeats."""

import numpy as np

from nemori_ui.core.eval.knowledge import locomo_observations, score, states_matrix
from nemori_ui.core.eval.labelled import score_labelled
from nemori_ui.core.models import Message, SemanticMemory
from nemori_ui.core.stage_events import ConsolidatePayload, event_of


def unit(*xs):
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_states_needs_a_shared_content_word_besides_the_speakers_names():
    close = np.stack([unit(1, 0.1), unit(1, 0.1)])
    hit = states_matrix(["Maya loves her job.", "Maya works as a nurse at the clinic."],
                        close, ["Maya works as a nurse."], close[:1], ["Maya"])
    assert hit[:, 0].tolist() == [False, True]


def test_states_needs_closeness_in_meaning():
    hit = states_matrix(["Maya works as a nurse."], np.stack([unit(1, 0)]),
                        ["Maya works nights."], np.stack([unit(0, 1)]), ["Maya"])
    assert not hit.any()


def test_precision_recall_and_memories_per_message():
    vecs = {"Maya works as a nurse.": unit(1, 0), "Maya works as a nurse in Leeds.": unit(1, 0.05),
            "Maya said hi.": unit(0, 1), "Maya has a cat.": unit(0.7, -0.7)}
    s = score(["Maya works as a nurse in Leeds.", "Maya said hi."],
              ["Maya works as a nurse.", "Maya has a cat."], ["Maya"], 8,
              lambda texts: np.stack([vecs.get(t, unit(1, 1)) for t in texts]))
    assert (s.precision, s.recall, s.per_message) == (0.5, 0.5, 0.25)


def test_observations_are_read_with_their_evidence():
    extra = {"observation": {"session_1_observation": {
        "Jon": [["Jon lost his job.", "D1:2"], ["Jon opened a studio.", ["D1:4", "D1:6"]]]}}}
    assert locomo_observations(extra) == [("Jon", "Jon lost his job.", ["D1:2"]),
                                          ("Jon", "Jon opened a studio.", ["D1:4", "D1:6"])]


def test_labelled_scorer_tells_a_resolved_change_from_a_false_conflict():
    messages = [Message(id=f"m{i}", speaker="Nora", text=t) for i, t in enumerate(
        ["I live in Leeds.", "Hi!", "I moved to York.", "I went to Whitby.", "I went to Hull."])]
    memories = [
        SemanticMemory(id="s1", text="Nora lives in Leeds.", status="superseded",
                       source_message_ids=["m0"]),
        SemanticMemory(id="s2", text="Nora moved to York.", origin="conflict", supersedes=["s1"],
                       source_message_ids=["m2", "m0"]),
        SemanticMemory(id="s3", text="Nora went to Whitby.", status="superseded",
                       source_message_ids=["m3"]),
        SemanticMemory(id="s4", text="Nora went to Hull.", source_message_ids=["m4", "m3"]),
        SemanticMemory(id="s5", text="Nora said hi.", source_message_ids=["m1"])]

    def conflict(targets, sources):
        return event_of(ConsolidatePayload(action="conflict", episode_id="e1", insight="x",
                                           source_message_ids=sources, targets=targets),
                        window=0, seq=0)
    labels = {"facts": [{"message": "Leeds", "fact": "Nora lives in Leeds."}],
              "changes": [["Leeds", "York"]], "distinct": [["Whitby", "Hull"]],
              "phatic": ["Hi!"], "repeats": [], "details": [["Leeds", "York"]]}
    r = score_labelled(labels, messages, memories, [conflict(["s1"], ["m2"]),
                                                    conflict(["s3"], ["m4"])],
                       ["Nora"], lambda texts: np.stack([unit(1, 0) for _ in texts]))
    assert (r.changes, r.resolved, r.conflicts, r.false_conflicts) == (1, 1, 2, 1)
    assert r.talk_share == 1 / 3
    assert (r.details, r.details_stored) == (1, 1)
