"""Prompt presets: `paper` follows the official implementation's prompts, `strict` keeps our
texts; the run stores its preset, its requests carry that preset's texts, and the Calls page
shows them."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from streamlit.testing.v1 import AppTest

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.llm import LLMGateway, ScriptedBackend
from nemori_ui.core.models import Message
from nemori_ui.core.deciders.offline import OfflineDecider
from nemori_ui.core.prompts import PRESETS, PROMPTS, distill, narrate, partition, prompt_texts
from nemori_ui.core.deciders.llm import LLMDecider
from nemori_ui.core.store import open_store, runs
from tests.cli_runner import run_cli
from tests.conftest import ROOT, SAMPLE
from tests.fakes import HashEmbedder
from tests.llm_responder import respond

T0 = datetime(2023, 5, 8, 13, 56)
WINDOW = [Message(id=f"m{i:04d}", speaker="Ana" if i % 2 else "Ben", text=t,
                  timestamp=T0 + timedelta(minutes=i)) for i, t in
          enumerate(["I adopted a dog yesterday.", "Lovely! What is its name?", "Rex."], 1)]


def test_every_prompt_has_both_presets_and_they_differ_where_the_official_code_does():
    for preset in PRESETS:
        assert set(prompt_texts(preset)) == set(PROMPTS)
    paper, strict = prompt_texts("paper"), prompt_texts("strict")
    for name in ("partition", "narrate", "select", "integrate", "anticipate", "distill",
                 "consolidate", "answer"):
        assert paper[name] != strict[name], name
    assert "When in doubt, split" in paper["partition"] and "2 to 15" in paper["partition"]
    assert "Prefer a few coherent episodes" in strict["partition"]
    assert "six months" in paper["distill"] and "GOOD:" in paper["distill"]
    assert "fewer than 5-6 words" in paper["answer"] and "plain text" in paper["answer"]
    assert '"reasoning"' in strict["answer"] and '"reasoning"' not in paper["answer"]
    assert "Not mentioned in the conversation." in strict["answer"]


def test_paper_narration_states_when_the_conversation_happened():
    user = narrate.render(WINDOW, "paper")[1]["content"]
    assert user.startswith("The conversation took place: 2023-05-08 Mon 13:57 to "
                           "2023-05-08 Mon 13:59")
    assert "took place" not in narrate.render(WINDOW, "strict")[1]["content"]
    assert "in parentheses" in narrate.SYSTEMS["paper"]


@pytest.mark.parametrize("preset, policy, kept", [
    ("paper", "preset", False), ("paper", "keep", True), ("paper", "exclude", False),
    ("strict", "preset", True), ("strict", "exclude", False), ("strict", "keep", True)])
def test_the_date_policy_is_its_own_option(preset, policy, kept):
    text = distill.system(preset, policy)
    assert distill.dates_kept(preset, policy) is kept
    leaves_out = "leave time and date information out" in text.lower()
    assert leaves_out is not kept, (preset, policy)
    assert text == prompt_texts(preset, policy)["distill"]


@pytest.mark.parametrize("preset", PRESETS)
def test_the_decider_sends_the_runs_preset(preset):
    backend = ScriptedBackend()
    backend.enqueue({"episodes": [{"indices": [1, 2, 3], "topic": "a dog"}]}, prompt="partition")
    config = PipelineConfig(backend="openai", prompts=preset)
    decider = LLMDecider(LLMGateway(backend), config, fallback=OfflineDecider(HashEmbedder()))
    decider.partition(WINDOW)
    call = backend.calls_for("partition")[0]
    assert call.messages[0]["content"] == partition.SYSTEMS[preset]
    assert call.max_tokens and call.max_tokens > 0     # every stage sends an output cap


def test_a_run_stored_before_presets_reads_as_strict(sample_run, tmp_path):
    store, run_id = sample_run
    other = open_store(tmp_path / "old")
    row = dict(store.query("SELECT config_json FROM runs WHERE id = ?", (run_id,))[0])
    old = json.loads(row["config_json"])
    for key in ("prompts", "distill_dates", "timeout_s", "attempts", "retry_budget_s"):
        old.pop(key, None)
    assert PipelineConfig.from_stored(json.dumps(old)).prompts == "strict"
    assert PipelineConfig().prompts == "paper"
    other.close()


def cli(*args, home):
    return run_cli(*args, "--home", str(home))


@pytest.fixture(scope="module")
def preset_runs(tmp_path_factory):
    """The sample through the local test server once per preset, from the command line."""
    from tests.openai_server import OpenAIServer
    server = OpenAIServer().start()
    server.responder = respond
    home = tmp_path_factory.mktemp("presets")
    sent = {}
    try:
        for preset in PRESETS:
            before = len(server.chat_requests)
            out = cli("run", str(SAMPLE), "--backend", "openai", "--model", "test-model",
                      "--base-url", server.url, "--prompts", preset, "--json", home=home)
            assert out.returncode == 0, out.stderr
            sent[preset] = server.chat_requests[before:]
    finally:
        server.stop()
    return home, sent


@pytest.mark.parametrize("preset", PRESETS)
def test_a_cli_run_through_the_server_names_its_preset_and_sends_its_texts(preset_runs, preset):
    home, sent = preset_runs
    store = open_store(home)
    [info] = [r for r in runs.list_runs(store) if r.config.prompts == preset]
    store.close()
    texts = set(prompt_texts(preset).values())
    systems = {r.messages[0]["content"] for r in sent[preset]}
    assert systems and systems <= texts, systems - texts
    assert info.config.backend == "openai" and info.status == "done"


def test_the_calls_page_shows_the_runs_preset_and_its_texts(preset_runs, monkeypatch):
    home, _ = preset_runs
    monkeypatch.setenv("NEMORI_HOME", str(home))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    at.switch_page("pages/calls.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    store = open_store(home)
    current = runs.list_runs(store)[0]      # the newest run is the current one
    store.close()
    preset = current.config.prompts
    captions = " ".join(c.value for c in at.caption)
    assert f"Prompt preset **{preset}**" in captions
    shown = {c.value for c in at.code}
    assert set(prompt_texts(preset).values()) <= shown
