"""The Knowledge, Memory map, Ask and Calls pages, run through Streamlit's AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.llm import OpenAIChatBackend
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store, runs
from nemori_ui.core.views.run_data import load_run_data
from nemori_ui.ui.map_widgets import hover_html
from tests.conftest import run_sample as run_sample_into
from tests.fakes import HashEmbedder
from tests.llm_responder import respond
from tests.test_pipeline_openai import CONV

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["knowledge", "memory_map", "ask", "calls"]
TIMEOUT = 180  # the first UMAP in a process compiles its numba kernels


def run_sample(home: Path) -> str:
    store = open_store(home)
    run_id = run_sample_into(store)
    store.conn.close()
    return run_id


@pytest.fixture(scope="module")
def sample_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("app-knowledge") / "home"
    run_sample(home)
    return home


@pytest.fixture
def with_sample(sample_home, isolated_home, monkeypatch) -> Path:
    """Point this test's home at the module's finished sample run (run once, read only)."""
    monkeypatch.setenv("NEMORI_HOME", str(sample_home))
    return sample_home


def open_page(page: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=TIMEOUT)
    at.run()
    at.switch_page(f"pages/{page}.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def frame_with(at: AppTest, *columns: str):
    """The first table holding these columns (only widget tables carry their key)."""
    hits = [d.value for d in at.dataframe if set(columns) <= set(d.value.columns)]
    assert hits, f"no table with columns {columns}"
    return hits[0]


def all_text(at: AppTest) -> str:
    parts = [x.value for kind in ("markdown", "caption", "text", "code", "info", "warning",
                                  "success", "error") for x in getattr(at, kind)]
    parts += [f"{m.label} {m.value}" for m in at.metric]
    parts += [d.value.to_string() for d in at.dataframe]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize("page", PAGES)
def test_each_page_without_a_run_points_to_the_run_page(page):
    at = open_page(page)
    assert any("No run to show yet" in i.value for i in at.info)


def test_knowledge_shows_memories_decisions_history_and_provenance(with_sample):
    at = open_page("knowledge")
    text = all_text(at)
    assert "green tea every morning" in text           # a memory's text
    memories = frame_with(at, "superseded_by", "episodes")
    assert set(memories["status"]) == {"active", "superseded"}
    # the decision detail opens on the conflict, with its candidates and scores
    assert "**conflict**" in text
    candidates = frame_with(at, "targeted", "score")
    assert candidates["targeted"].any() and candidates["score"].max() <= 1.0
    history = frame_with(at, "replaced_by")
    assert list(history["origin"])[-1] == "conflict" and len(history) == 2
    messages = frame_with(at, "speaker", "session")
    assert "Maya" in set(messages["speaker"])

    at.multiselect(key="knowledge_origin").set_value(["conflict"]).run()
    assert len(frame_with(at, "superseded_by", "episodes")) == 1
    at.text_input(key="knowledge_search").input("no memory says this").run()
    assert frame_with(at, "superseded_by", "episodes").empty
    assert not at.exception


def test_knowledge_opens_any_memory_history_from_a_decision(with_sample):
    at = open_page("knowledge")
    decisions = frame_with(at, "best_score")
    # a merge or a conflict that made a new version of a memory
    versions = decisions[decisions["action"].isin(["merge", "conflict"])]
    merge = versions[versions["result_id"] != versions["targets"]].iloc[0]
    at.selectbox(key="decision_seq").set_value(int(merge["seq"])).run()
    at.button(key=f"decision_focus_{int(merge['seq'])}").click().run()
    assert at.selectbox(key="knowledge_memory").value == merge["result_id"]
    history = frame_with(at, "replaced_by")
    assert merge["result_id"] in set(history["id"]) and len(history) >= 2


def test_memory_map_draws_both_kinds_with_escaped_hover_and_neighbours(with_sample):
    at = open_page("memory_map")
    charts = at.get("plotly_chart")
    assert len(charts) == 1
    spec = json.loads(charts[0].proto.spec)
    names = {t.get("name") for t in spec["data"]}
    assert names == {"episode", "memory"}             # coloured by kind
    hover = " ".join(str(c[3]) for t in spec["data"] for c in t["customdata"])
    assert "&#x27;" in hover and "'" not in hover      # quotes in the text arrive escaped
    near = frame_with(at, "kind", "score")
    assert len(near) == 8 and list(near["score"]) == sorted(near["score"], reverse=True)
    assert at.selectbox(key="map_focus").value not in set(near["id"])

    at.radio(key="map_method").set_value("pca").run()
    at.selectbox(key="map_color").set_value("decision").run()
    assert not at.exception
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert "conflict" in {t.get("name") for t in spec["data"]}
    at.selectbox(key="map_color").set_value("time").run()
    at.checkbox(key="map_superseded").uncheck().run()
    assert not at.exception
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    statuses = {c[2].split(" · ")[1] for t in spec["data"] for c in t.get("customdata", [])}
    assert statuses == {"active"}


def test_hover_text_is_html_escaped():
    assert hover_html("<b>bold</b> & more") == "&lt;b&gt;bold&lt;/b&gt; &amp; more"
    assert hover_html("x" * 2000).endswith("…")


def test_ask_shows_index_facts_then_an_answer_with_what_it_retrieved(with_sample):
    at = open_page("ask")
    metrics = [(m.label, m.value) for m in at.metric]
    assert metrics.count(("Kind", "flat")) == 2 and metrics.count(("Dimension", "384")) == 2
    entries = [int(v) for label, v in metrics if label == "Entries"]
    store = open_store(with_sample)
    data = load_run_data(store, runs.list_runs(store)[0].id)
    store.conn.close()
    assert entries == [sum(e.status == "active" for e in data.episodes),
                       sum(m.status == "active" for m in data.memories)]
    assert "offline engine, no LLM" in all_text(at)

    at.text_input(key="ask_question").input("What does Maya drink in the morning?")
    at.button(key="ask_button").click().run()
    assert not at.exception and not at.error
    assert at.success and at.success[0].value.strip()  # the answer
    assert any(m.label == "Context size" and "tokens" in m.value for m in at.metric)
    memories = frame_with(at, "score", "text")
    assert len(memories) == 20 and memories["score"].is_monotonic_decreasing
    assert len(frame_with(at, "score", "narrative")) == 10
    raw = frame_with(at, "episode_score", "message_id")
    assert len(raw) > 0 and raw["text"].str.len().min() > 0
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = {t.get("name") for t in spec["data"]}
    assert {"retrieved", "question"} <= names


def test_calls_page_says_the_offline_engine_makes_no_calls(with_sample):
    at = open_page("calls")
    assert any("the offline engine makes no LLM calls" in i.value for i in at.info)


def test_calls_page_lists_llm_calls_and_prices_a_local_server_at_zero(
        isolated_home, openai_server):
    openai_server.responder = respond
    store = open_store(isolated_home)
    config = PipelineConfig(backend="openai", model="test-model", window=10)
    backend = OpenAIChatBackend(config.model, api_key="test-key", base_url=openai_server.url)
    clients = build_clients(config, store, RunEnvironment(backend=backend, embedder=HashEmbedder()))
    run_windows(store, start_run(store, CONV, config, clients, source="fixture.json",
                                 fmt="chat", resume=False), clients)

    at = open_page("calls")
    metrics = {m.label: m.value for m in at.metric}
    # the test server listens on 127.0.0.1: a local model costs nothing and says so
    assert metrics["Estimated cost"] == "$0.0000"
    assert int(metrics["LLM calls"]) > 0
    by_model = frame_with(at, "model", "cost")
    assert by_model["model"].tolist() == ["test-model (local)"]
    assert by_model["input $/1M"].tolist() == ["local"]
    stages = frame_with(at, "stage", "failed")
    assert {"partition", "narration", "semantic"} <= set(stages["stage"])
    calls = frame_with(at, "prompt", "response")
    assert len(calls) == int(metrics["LLM calls"])
    # one call in full: its messages and response as code blocks
    assert len(at.code) >= 2 and any("Partition" in c.value or "[1]" in c.value for c in at.code)


MARKUP = ["Ana: I keep **three** <b>cats</b> named [Tom](http://x.test) and #1 at home.",
          "Ben: Really? Three cats, that is `a lot` of_fur_everywhere!",
          "Ana: My sister moved to *Porto* in 2019 <script>alert(1)</script>.",
          "Ben: Nice, Porto is lovely.",
          "Ana: I do not keep **three** <b>cats</b> anymore, only two.",
          "Ben: Oh, what happened?"]


def test_transcript_markup_is_shown_as_text_on_every_page(isolated_home):
    from nemori_ui.core.transcripts import parse_transcript
    store = open_store(isolated_home)
    transcript = parse_transcript("\n".join(MARKUP).encode(), source="markup.txt")
    config = PipelineConfig(window=6)
    clients = build_clients(config, store)
    run_windows(store, start_run(store, transcript.conversations[0], config, clients,
                                 source="markup.txt", fmt=transcript.format), clients)
    for page in PAGES:
        at = open_page(page)
        if page == "ask":
            at.text_input(key="ask_question").input("How many **cats** <b>now</b>?")
            at.button(key="ask_button").click().run()
            assert not at.exception
        rendered = [x.value for kind in ("markdown", "caption", "info", "warning", "success",
                                         "error") for x in getattr(at, kind)]
        for raw in ("**three**", "<b>", "<script>", "[Tom](", "`a lot`", "*Porto*"):
            assert not any(raw in r for r in rendered), (page, raw)
        if page == "knowledge":
            assert "**three**" in all_text(at)          # the text itself is there, as text
        if page == "memory_map":
            spec = at.get("plotly_chart")[0].proto.spec
            assert "<script>" not in spec and "&lt;script&gt;" in spec
