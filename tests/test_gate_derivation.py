"""The consolidation gate's default for MiniLM, on statement pairs of our own
(tests/fixtures/gate_pairs.json): the level of two statements saying the same fact, with the
contradictions the similarity cannot tell apart sent to a call by reading their parts."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.embed import load_minilm
from nemori_ui.core.llm import OpenAIChatBackend
from nemori_ui.core.models import Conversation, Message, SemanticMemory
from nemori_ui.core.pipeline.consolidation_gate import why_ask
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store, records
from tests.llm_responder import prompt_of, respond, user_text

PAIRS = json.loads((Path(__file__).parent / "fixtures" / "gate_pairs.json").read_text())["pairs"]
CONFIG = PipelineConfig(backend="openai")


@pytest.fixture(scope="module")
def scored() -> dict[str, list[tuple[dict, float]]]:
    embedder = load_minilm()
    out: dict[str, list[tuple[dict, float]]] = {}
    for pair in PAIRS:
        stored, insight = embedder.embed([pair["stored"], pair["insight"]])
        out.setdefault(pair["label"], []).append((pair, float(np.dot(stored, insight))))
    return out


def asked(pair: dict, score: float) -> bool:
    memory = SemanticMemory(id="sm0001", text=pair["stored"], origin="new", window=0,
                            embedding=[])
    return why_ask(pair["insight"], [(memory, score)], CONFIG.consolidation_gate,
                   CONFIG.offline) is not None


def share(items: list[tuple[dict, float]]) -> float:
    return sum(asked(p, s) for p, s in items) / len(items)


def test_the_gate_asks_about_statements_that_say_the_same_fact(scored):
    assert CONFIG.consolidation_gate == 0.83
    assert share(scored["same"]) >= 0.95


def test_the_gate_stores_other_facts_about_the_same_person_without_a_call(scored):
    # the old gate (0.60, every pair on a LoCoMo observation) asked about 38 % of them
    assert share(scored["distinct"]) <= 0.05


def test_contradictions_below_the_gate_still_reach_a_call_when_their_parts_say_so(scored):
    below = [(p, s) for p, s in scored["conflict"] if s < CONFIG.consolidation_gate]
    assert len(below) >= 8, "most contradictions sit among other facts of the same person"
    # "Tomas sold his Volvo and bought an electric car" (0.72) against "... drives an old blue
    # Volvo"; "Lena cancelled her trip to Japan" (0.82) against "... is planning a trip to Japan"
    assert sum(asked(p, s) for p, s in below) >= 2


def test_a_change_the_insight_spells_out_is_asked_about_as_far_as_the_offline_engine_looks():
    limits = CONFIG.offline
    memory = SemanticMemory(id="sm0001", text="Priya's piano recital is on 2 May.", origin="new",
                            window=0, embedding=[])
    between = (limits.explicit_change_sim + limits.conflict_sim) / 2
    why = why_ask("The piano recital got pushed to 9 May.", [(memory, between)],
                  CONFIG.consolidation_gate, limits)
    assert why and "sm0001" in why
    assert why_ask("Priya loves the piano.", [(memory, between)], CONFIG.consolidation_gate,
                   limits) is None


# -- through the pipeline: a contradiction below the gate is still asked about --------------

S1, S2 = datetime(2024, 3, 4, 8, 0), datetime(2024, 4, 20, 10, 0)
COFFEE = Conversation(id="coffee", speakers=["Maya", "Jonas"], messages=[
    Message(id=f"m{i + 1:04d}", speaker=("Maya", "Jonas")[i % 2], text=text,
            session=1 + i // 4, timestamp=(S1, S2)[i // 4] + timedelta(minutes=i % 4))
    for i, text in enumerate([
        "I drink three cups of strong coffee every morning before work.", "Three cups!",
        "Espresso from my little moka pot.", "Sounds like a ritual.",
        "I don't drink coffee anymore, I switched to green tea every morning.", "Since when?",
        "Since March, it helps me sleep.", "Then green tea it is."])])
STATEMENTS = {"green tea": "Maya no longer drinks coffee and drinks green tea every morning",
              "strong coffee": "Maya drinks three cups of strong coffee every morning"}


def statements(body: dict) -> dict:
    """The test responder, with statements as a model distils them and a model's verdict on
    the one contradiction."""
    name, text = prompt_of(body), user_text(body)
    if name == "distill":
        said = next(s for cue, s in STATEMENTS.items() if cue in text.partition("\n\nPredicted")[0])
        return {"insights": [{"text": said, "lines": [1]}]}
    verdict = {"reason": "she gave coffee up", "action": "conflict", "targets": [1],
               "merged_text": None}
    if name == "consolidate":
        return verdict
    if name == "consolidate_episode":
        return {"decisions": [{"fact": 1, **verdict}]}
    return respond(body)


def test_a_gated_run_asks_about_a_contradiction_the_similarity_alone_would_store_as_new(
        tmp_path, openai_server):
    openai_server.responder = statements
    config = PipelineConfig(backend="openai", model="test-model", window=4)
    store = open_store(tmp_path / "home")
    backend = OpenAIChatBackend(config.model, api_key="test-key", base_url=openai_server.url)
    clients = build_clients(config, store, RunEnvironment(backend=backend))
    run_id = start_run(store, COFFEE, config, clients, source="coffee", fmt="chat", resume=False)
    run_windows(store, run_id, clients)
    decided = [e.payload for e in records.load_events(store, run_id) if e.stage == "consolidate"]
    store.conn.close()
    tea = decided[-1]
    assert tea.candidates[0].score < config.consolidation_gate      # below the gate ...
    assert not tea.skipped and tea.action == "conflict"             # ... and asked all the same
    assert tea.asked.startswith("may contradict")                   # saying why
    assert sum(prompt_of(r.body) in ("consolidate", "consolidate_episode")
               for r in openai_server.chat_requests) == 1
