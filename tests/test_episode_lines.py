"""Answers find an episode by its best message as well as by its narrative."""

from __future__ import annotations

import numpy as np

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.episode_lines import attach_lines, find_episodes, line_text
from nemori_ui.core.models import Episode, Message
from nemori_ui.core.pipeline.state import MemoryState
from nemori_ui.core.retrieval import load_memory
from nemori_ui.core.store import records

from .conftest import run_sample


def _unit(*xs: float) -> list[float]:
    v = np.asarray(xs, dtype=np.float32)
    return (v / np.linalg.norm(v)).tolist()


class _Lines:
    """Vectors of message lines by hand: "the bakery job" points along the question."""
    dim = 3

    def __init__(self, vectors: dict[str, list[float]]):
        self.vectors = vectors

    def embed(self, texts):
        return np.asarray([self.vectors[t] for t in texts], dtype=np.float32)


def _memory():
    messages = {
        "m1": Message(id="m1", speaker="Ana", text="we talked about films"),
        "m2": Message(id="m2", speaker="Ana", text="I start the bakery job on Monday"),
        "m3": Message(id="m3", speaker="Ben", text="the weather was grim"),
    }
    # ep1's narrative is about films, though one of its messages answers the question;
    # ep2's narrative is a little nearer the question and none of its messages is
    episodes = [Episode(id="ep1", cue="films", narrative="films", message_ids=["m1", "m2"],
                        window=0, embedding=_unit(0.2, 1, 0)),
                Episode(id="ep2", cue="weather", narrative="weather", message_ids=["m3"],
                        window=0, embedding=_unit(0.4, 0, 1))]
    embedder = _Lines({line_text(messages["m1"]): _unit(0, 1, 0),
                       line_text(messages["m2"]): _unit(1, 0.1, 0),
                       line_text(messages["m3"]): _unit(0.3, 0, 1)})
    return MemoryState.restore(3, episodes, []), messages, embedder


QUESTION = np.asarray(_unit(1, 0, 0), dtype=np.float32)


def test_an_episode_is_found_by_the_message_that_answers_when_lines_are_attached():
    state, messages, embedder = _memory()
    assert [e.id for e, _ in find_episodes(state, QUESTION, 1)] == ["ep2"]   # narratives only
    attach_lines(state, messages, embedder, PipelineConfig())
    (top, score), = find_episodes(state, QUESTION, 1)
    assert top.id == "ep1"
    # the mean of the narrative's similarity and the best line's
    assert abs(score - (_unit(0.2, 1, 0)[0] + _unit(1, 0.1, 0)[0]) / 2) < 1e-5


def test_matching_by_narrative_alone_is_the_papers_ranking():
    state, messages, embedder = _memory()
    attach_lines(state, messages, embedder, PipelineConfig(episode_match="narrative"))
    assert state.lines is None
    assert [e.id for e, _ in find_episodes(state, QUESTION, 2)] == ["ep2", "ep1"]


def test_how_answers_rank_episodes_leaves_the_runs_fingerprint_as_it_was():
    # runs stored before the setting existed must still be found to resume
    assert PipelineConfig(episode_match="narrative").fingerprint() == \
        PipelineConfig().fingerprint()


def test_a_built_run_has_every_line_embedded_before_anyone_asks(tmp_path):
    from nemori_ui.core.store import open_store

    store = open_store(tmp_path / "home")
    run_id = run_sample(store)
    clients = build_clients(PipelineConfig(), store)      # a fresh in-process embedder
    state, messages = load_memory(store, run_id, clients.embedder, PipelineConfig())
    assert state.lines is not None and clients.embedder.misses == 0
    held = {mid for e in state.active_episodes() for mid in e.message_ids}
    assert held == {m.id for m in records.load_messages(store, run_id)} == set(messages)
