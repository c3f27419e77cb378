"""Prediction that is real: no message is distilled twice, a statement is "predicted" only when
an earlier episode's knowledge held it, a fact told again in a later session in other words is
predicted, and a new detail about a known topic is stored."""

from __future__ import annotations

import pytest

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval.prediction import (CARRIED, MERGED, PREDICTED, STORED, fates,
                                            labelled_repeats, prediction_figures, read_twice)
from nemori_ui.core.models import Message, SemanticMemory
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.run_figures import run_figures
from nemori_ui.core.pipeline.skipped import classify, first_told, unread
from nemori_ui.core.stage_events import CoveredStatement
from nemori_ui.core.store import open_store
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.views.run_data import load_run_data
from tests.conftest import SAMPLE

TOLD_AGAIN = """## Session 1
[2024-03-02 09:00] Nora: Morning! Guess what, I started teaching piano at the Riverside music school.
[2024-03-02 09:01] Sam: That's brilliant, congratulations!
[2024-03-02 09:02] Nora: Thanks! Mostly children, on Tuesday and Thursday afternoons.
[2024-03-02 09:03] Sam: You'll be great at it.
[2024-03-02 09:04] Nora: My cat Juniper hates the practice scales though.
[2024-03-02 09:05] Sam: Ha, poor Juniper.
## Session 2
[2024-04-20 18:00] Sam: How was the trip to Galway?
[2024-04-20 18:01] Nora: Wet and windy, we hiked the cliffs anyway and ate far too much chowder.
[2024-04-20 18:02] Sam: Sounds perfect.
[2024-04-20 18:03] Nora: Back to work on Monday, I teach piano at the Riverside music school, so the kids are waiting.
[2024-04-20 18:04] Nora: The ferry back was delayed by three hours.
[2024-04-20 18:05] Sam: Ugh, ferries.
## Session 3
[2024-05-11 10:00] Sam: Any news?
[2024-05-11 10:01] Nora: I teach an adult beginners class at the Riverside music school on Saturdays now.
[2024-05-11 10:02] Sam: Busy you!
"""


def _run(path, tmp_path, **settings):
    store = open_store(tmp_path / "home")
    config = PipelineConfig(**settings)
    clients = build_clients(config, store)
    conv = load_transcript(path).conversations[0]
    run_id = start_run(store, conv, config, clients, source=str(path), fmt="auto")
    run_windows(store, run_id, clients)
    return load_run_data(store, run_id), clients.embedder


@pytest.mark.parametrize("settings", [
    {}, {"window": 10}, {"variant": "nemori-s"}, {"semantic_order": "window"},
    {"management": "naive"}])
def test_no_message_is_distilled_twice(tmp_path, settings):
    data, _ = _run(SAMPLE, tmp_path, **settings)
    integrated = [e for e in data.episodes if e.supersedes]
    assert integrated, "the sample has episodes that continue earlier ones"
    assert read_twice(data) == {}
    # and every message was read by one distillation
    read = {m for ev in data.stage("distill") for m in ev.message_ids
            if m not in ev.payload.carried_message_ids}
    assert read == {m.id for m in data.messages}


def test_the_sample_predicts_only_from_earlier_episodes(tmp_path):
    data, embedder = _run(SAMPLE, tmp_path)
    figures = prediction_figures(data, [], embedder.embed)
    assert figures.skipped >= 6 and figures.precision == 1.0
    # the run's headline (the Overview, `run --json`) counts the same class
    assert run_figures(open_store(tmp_path / "home"), data.run_id).predicted == figures.skipped
    for f in fates(data):
        if f.fate == PREDICTED:
            memory = data.memory_by_id[f.memory_id]
            assert not set(memory.source_message_ids) & f.episode_messages, f


def test_a_fact_told_again_in_other_words_is_predicted_and_a_new_detail_is_stored(tmp_path):
    path = tmp_path / "told_again.txt"
    path.write_text(TOLD_AGAIN)
    data, _ = _run(path, tmp_path)
    by_message = {}
    for f in fates(data):
        for mid in f.message_ids:
            by_message.setdefault(mid, []).append(f)
    said_again = next(m.id for m in data.messages if "Back to work on Monday" in m.text)
    detail = next(m.id for m in data.messages if "adult beginners" in m.text)
    piano = [f for f in by_message[said_again] if "piano" in f.text]
    assert [f.fate for f in piano] == [PREDICTED]
    assert data.memory_by_id[piano[0].memory_id].source_message_ids == ["m0001"]
    assert {f.fate for f in by_message[detail]} <= {STORED, MERGED}


def test_a_statement_calls_up_a_memory_the_cue_does_not():
    """The rule the test above needs: evocation by statement. A memory far from the episode's
    cue (a trip) but above τ to one of its statements (the piano lessons) is evoked, with that
    statement; without a reading of statements, or below τ, it is not."""
    import numpy as np

    from nemori_ui.core.pipeline.decisions import Recall
    from nemori_ui.core.pipeline.semantic import evoke
    from nemori_ui.core.pipeline.state import MemoryState
    from nemori_ui.core.models import Episode

    def unit(*xs):
        v = np.asarray(xs, dtype=np.float32)
        return (v / np.linalg.norm(v)).tolist()

    state = MemoryState(3)
    piano = SemanticMemory(id="sm0001", text="Nora teaches piano at the Riverside school.",
                           source_message_ids=["m0001"], embedding=unit(0, 1, 0))
    state.add_memory(piano)
    trip = Episode(id="ep0002", cue="A wet trip to Galway", narrative="", message_ids=["m0008"],
                   embedding=unit(1, 0, 0))
    said = Recall(statements=["Nora teaches piano at the Riverside music school."],
                  vectors=np.asarray([unit(0, 0.9, 0.1)], dtype=np.float32))
    config = PipelineConfig()
    evoked, listing = evoke(state, trip, config, said)
    assert [m.id for m, _ in evoked] == ["sm0001"]
    assert listing[0].recalled_by == said.statements[0] and listing[0].recall_score > config.tau
    assert listing[0].score <= config.tau          # the cue alone would not have called it up
    assert evoke(state, trip, config)[0] == []
    far = Recall(statements=["Nora hiked the cliffs."],
                 vectors=np.asarray([unit(1, 0.2, 0)], dtype=np.float32))
    assert evoke(state, trip, config, far)[0] == []


def test_an_evoked_memory_from_the_episode_itself_is_carried_not_predicted():
    inside = SemanticMemory(id="sm0001", text="Maya's manager approved Maya's leave.",
                            source_message_ids=["m0017"])
    outside = SemanticMemory(id="sm0002", text="Maya works at Finch Labs.",
                             source_message_ids=["m0003"])
    merged = SemanticMemory(id="sm0003", text="Maya runs. Maya ran 12 km.",
                            source_message_ids=["m0020", "m0004"])
    held = {m.text: m for m in (inside, outside, merged)}
    covered = [CoveredStatement(text="Maya's leave was approved.", message_id="m0019",
                                predicted_by=inside.text, score=0.9),
               CoveredStatement(text="Maya is at Finch Labs.", message_id="m0021",
                                predicted_by=outside.text, score=0.9),
               CoveredStatement(text="Maya runs.", message_id="m0022",
                                predicted_by=merged.text, score=0.9),
               CoveredStatement(text="Something.", message_id="m0023",
                                predicted_by="a line of no memory", score=0.9)]
    out = classify(covered, held, ["m0017", "m0019", "m0020", "m0021", "m0022", "m0023"])
    assert [c.kind for c in out] == ["carried", "predicted", "carried", "carried"]
    assert (out[1].memory_id, out[1].learnt_from) == ("sm0002", "m0003")
    assert out[3].memory_id is None
    # the class is stored: the payload keeps it
    assert out[1].stored()["kind"] == "predicted"


def test_the_message_a_merged_memory_learnt_a_fact_from_is_the_nearest_one():
    memory = SemanticMemory(id="sm0005", text="Ana's dog Biscuit loves walks. Biscuit is a beagle.",
                            source_message_ids=["m0015", "m0008"])
    said = {"m0008": Message(id="m0008", speaker="Ana", text="My dog Biscuit loves the walks."),
            "m0015": Message(id="m0015", speaker="Ana", text="Biscuit is a beagle, you know.")}

    def embed(texts):
        import numpy as np
        return np.asarray([[1.0, 0.0] if "beagle" in t else [0.0, 1.0] for t in texts])

    assert first_told(memory) == "m0008"        # no embedder: the earliest
    assert first_told(memory, "Ana's dog Biscuit is a beagle.", said, embed) == "m0015"
    assert first_told(SemanticMemory(id="x", text="t", source_message_ids=["m10000", "m9999"])) \
        == "m9999"


def test_unread_leaves_out_what_an_earlier_distillation_read():
    messages = [Message(id=f"m000{i}", speaker="A", text=str(i)) for i in range(1, 5)]
    fresh, carried = unread(messages, {"m0001", "m0002"})
    assert [m.id for m in fresh] == ["m0003", "m0004"] and carried == ["m0001", "m0002"]


def test_labelled_repeats_name_the_later_telling():
    messages = [Message(id="m0001", speaker="Ana", text="I work at Café Aurora."),
                Message(id="m0002", speaker="Ana", text="Still at Café Aurora!")]
    labels = {"facts": [{"message": "I work at Café", "speaker": "Ana",
                         "fact": "Ana works at Café Aurora."}],
              "repeats": [["I work at Café", "Still at Café"]]}
    [r] = labelled_repeats(labels, messages)
    assert (r.first, r.later_messages) == ("Ana works at Café Aurora.", ["m0002"])
    assert CARRIED != PREDICTED
