"""Sweeps, what-if τ, run comparison, memory over time and the prediction demo."""

from __future__ import annotations

import pytest

from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.llm import OpenAIChatBackend
from nemori_ui.core.store import open_store
from nemori_ui.core.run_figures import run_figures
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.tuning.compare import compare_runs, window_diff
from nemori_ui.core.tuning.demo import prediction_demo
from nemori_ui.core.tuning.sweep import parse_grid, sweep
from nemori_ui.core.tuning.timeline import state_after
from nemori_ui.core.tuning.whatif import first_changed_window, what_if_tau
from nemori_ui.core.views.run_data import load_run_data
from tests.conftest import SAMPLE
from tests.fakes import HashEmbedder
from tests.llm_responder import respond
from tests.test_pipeline_openai import CONV


@pytest.fixture(scope="module")
def sample_sweep(tmp_path_factory):
    store = open_store(tmp_path_factory.mktemp("sweep"))
    conv = load_transcript(SAMPLE).conversations[0]
    grid = parse_grid({"tau": "0.57,0.7", "variant": "nemori,nemori-s"})
    results = sweep(store, conv, PipelineConfig(), grid, lambda c: build_clients(c, store),
                    source="sample", fmt="text")
    return store, results


def test_sweep_gives_one_consistent_result_per_point(sample_sweep):
    store, results = sample_sweep
    assert [(r.params.tau, r.params.variant) for r in results] == [
        (0.57, "nemori"), (0.57, "nemori-s"), (0.7, "nemori"), (0.7, "nemori-s")]
    for r in results:
        summary = run_figures(store, r.run_id)
        assert r.insights == summary.insights
        assert r.merges + r.conflicts + summary.decisions["new"] == r.insights
        assert 0 < r.active_memories <= r.insights
        assert r.stored.memories == r.active_memories and r.stored.memory_tokens > 0
    # direct distillation does not depend on τ
    assert results[1].insights == results[3].insights
    # a lower τ evokes more, and so predicts at least as much (what a prediction holds is
    # decided by how close a statement is to a known line, above any τ of the grid)
    assert results[0].insights <= results[2].insights


def test_a_point_keeps_the_shape_its_json_and_table_always_had(sample_sweep):
    import pickle
    from dataclasses import fields

    from nemori_ui.core.tuning.point import SWEEPABLE
    from nemori_ui.core.tuning.sweep import PointRow, flat
    _, results = sample_sweep
    fresh = results[0]
    assert list(fresh.as_json()) == ["run_id", "params", "episodes", "integrated", "insights",
                                     "active_memories", "merges", "conflicts", "stored", "llm",
                                     "seconds", "qa"], "a point run now says nothing of reuse"
    reused = fresh.model_copy(update={"reused": True}).as_json()
    assert list(reused)[-3:] == ["seconds", "reused", "qa"] and reused["reused"] is True
    assert pickle.loads(pickle.dumps(fresh)) == fresh, "a point comes back from a worker whole"
    # the table's columns: every sweepable parameter first, in the grid's order
    assert [f.name for f in fields(PointRow)][:len(SWEEPABLE)] == list(SWEEPABLE)
    assert flat(fresh).tau == fresh.params.tau and flat(fresh).run_id == fresh.run_id


def test_grid_errors_name_the_parameter():
    with pytest.raises(ValueError, match="--tau"):
        parse_grid({"tau": "0.6,high"})
    with pytest.raises(ValueError, match="cannot sweep 'colour'"):
        parse_grid({"colour": "red"})


def test_tau_sweep_through_the_server_reuses_unchanged_calls(tmp_path, openai_server):
    openai_server.responder = respond
    store = open_store(tmp_path / "home")
    base = PipelineConfig(backend="openai", model="test-model", window=10)

    def clients(config):
        backend = OpenAIChatBackend(config.model, api_key="k", base_url=openai_server.url)
        return build_clients(config, store,
                             RunEnvironment(backend=backend, embedder=HashEmbedder()))

    results = sweep(store, CONV, base, parse_grid({"tau": "0.5,0.9"}), clients,
                    source="fixture", fmt="chat")
    made = sum(r.llm.calls_made for r in results)
    uncached = sum(r.llm.calls_made + r.llm.calls_reused for r in results)
    assert len(openai_server.chat_requests) == made
    assert results[1].llm.calls_reused > 0
    assert made < uncached


def test_what_if_tau_matches_a_real_rerun(sample_sweep):
    store, results = sample_sweep
    data = load_run_data(store, results[2].run_id)            # nemori at τ = 0.70
    rows = what_if_tau(data, 0.57)
    first = first_changed_window(rows)
    assert first is not None
    rerun = load_run_data(store, results[0].run_id)           # nemori at τ = 0.57
    actual = {e.payload.episode_id: [x.id for x in e.payload.evoked if x.passed]
              for e in rerun.stage("anticipate")}
    checked = 0
    for row in rows:
        # up to the first change the memory is the same, so what-if is exact; after it, later
        # episodes see another memory and are only flagged
        assert actual[row.episode_id] == row.evoked_then
        checked += 1
        if row.changes != "same":
            break
    assert checked >= 2
    assert all(r.changes == "same" for r in what_if_tau(data, data.info.config.tau))


def test_compare_of_a_run_with_itself_is_empty_and_of_two_runs_is_not(sample_sweep):
    store, results = sample_sweep
    a = load_run_data(store, results[0].run_id)
    b = load_run_data(store, results[2].run_id)
    same = compare_runs(a, a, run_figures(store, a.run_id), run_figures(store, a.run_id))
    assert same.identical and same.partition.window_diff == 0
    assert not same.knowledge.only_a and not same.config_changes
    diff = compare_runs(a, b, run_figures(store, a.run_id), run_figures(store, b.run_id))
    assert diff.config_changes == {"tau": (0.57, 0.7)}
    assert diff.deltas.insights == results[2].insights - results[0].insights


def test_window_diff_by_hand():
    assert window_diff([0, 0, 1, 1], [0, 0, 1, 1], k=2) == 0
    # boundary moved by one: two of the three windows of width 1 disagree
    assert window_diff([0, 0, 1, 1], [0, 1, 1, 1], k=1) == pytest.approx(2 / 3)


def test_memory_over_time(sample_sweep):
    store, results = sample_sweep
    data = load_run_data(store, results[2].run_id)
    assert state_after(data, 0).memories == [] and state_after(data, 18).episodes == []
    after_first = state_after(data, 19)
    assert after_first.windows_done == 1 and after_first.episodes
    last = state_after(data, len(data.messages) - 1)
    assert set(last.episodes) == {e.id for e in data.episodes if e.status == "active"}
    assert set(last.memories) == {m.id for m in data.memories if m.status == "active"}
    # the coffee habit is known after session 1 and replaced once session 3 is in
    coffee = next(m for m in data.memories if "three cups" in m.text)
    assert coffee.id in state_after(data, 39).memories
    assert coffee.id not in last.memories


def test_prediction_demo_shows_what_prediction_saved(sample_sweep):
    store, results = sample_sweep
    nemori = load_run_data(store, results[0].run_id)       # MiniLM's default τ
    direct = load_run_data(store, results[1].run_id)
    demo = prediction_demo(nemori, direct, build_clients(PipelineConfig(), store).embedder)
    assert demo.nemori.insights < demo.nemori_s.insights
    assert any("weather forecasting" in s.text for s in demo.skipped_as_predicted)
    assert demo.kept_by_both


def test_sweep_and_compare_commands(tmp_path):
    import json

    from tests.cli_runner import run_cli

    def cli(*args):
        return run_cli(*args, "--home", str(tmp_path))

    out = cli("sweep", str(SAMPLE), "--tau", "0.6,0.8", "--window", "10,20", "--json")
    assert out.returncode == 0, out.stderr
    points = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(points) == 4
    assert {(p["params"]["tau"], p["params"]["window"]) for p in points} == {
        (0.6, 10), (0.6, 20), (0.8, 10), (0.8, 20)}
    assert all({"run_id", "episodes", "insights", "active_memories", "merges", "conflicts",
                "stored", "llm"} <= set(p) for p in points)
    out = cli("compare", points[0]["run_id"], points[3]["run_id"], "--json")
    result = json.loads(out.stdout)
    assert set(result["config_changes"]) == {"tau", "window"} and not result["identical"]
    bad = cli("sweep", str(SAMPLE), "--tau", "x")
    assert bad.returncode == 2 and "--tau" in bad.stderr


def test_the_demo_headline_counts_the_facts_told_again_and_says_what_nemori_s_did():
    from nemori_ui.core.views.demo_story import demo_headline
    skipped = [{"text": f"fact {i}"} for i in range(8)]
    demo = {"nemori": {"insights": 37, "memories": 33, "tokens": 526},
            "nemori_s": {"insights": 45, "memories": 35, "tokens": 549},
            "skipped_as_predicted": skipped,
            "nemori_s_did": {"stored again as a new memory": 3,
                             "merged into a memory it held": 5}}
    ours = {"decisions": 37, "new": 33, "merge": 3, "already known": 1, "conflict": 1}
    theirs = {"decisions": 45, "new": 35, "merge": 9, "already known": 6, "conflict": 1}
    head = demo_headline(demo, ours, theirs)
    assert head.title == "Prediction held 8 facts told again: not stored"
    assert head.predicted == 8
    assert (head.fewer_decisions, head.fewer_memories) == (8, 2)
    assert ("distilled all 8 again: 3 stored again as a new memory, 5 merged into a memory "
            "it held.") in head.why
    assert "made 8 fewer consolidation decisions" in head.why
    assert "stores 2 memories fewer (33 against 35)" in head.why
    same = demo_headline({**demo, "nemori_s": {**demo["nemori_s"], "memories": 33}}, ours,
                         theirs)
    assert "end up nearly the same (33 against 33)" in same.why
    none = demo_headline({**demo, "skipped_as_predicted": []}, ours, theirs)
    assert none.title == "Prediction held no fact told again on this transcript"
    assert none.predicted == 0

def test_a_sweep_point_already_stored_is_found(tmp_path):
    from nemori_ui.core.config import PipelineConfig
    from nemori_ui.core.store import open_store
    from nemori_ui.core.transcripts import parse_transcript
    from nemori_ui.core.views.existing_runs import split_points
    from nemori_ui.ui.run_form import SAMPLE
    from tests.browser_runs import stored_run
    run_id = stored_run(tmp_path)
    conv = parse_transcript(SAMPLE.read_bytes(), source=SAMPLE.name).conversations[0]
    store = open_store(tmp_path)
    todo, stored = split_points(store, conv, SAMPLE.name,
                                [PipelineConfig(tau=0.57), PipelineConfig(tau=0.65)])
    assert stored == {0: run_id} and [c.tau for c in todo] == [0.65]
    other = conv.model_copy(update={"messages": conv.messages[:-1]})
    assert split_points(store, other, SAMPLE.name, [PipelineConfig()])[1] == {}
    store.close()
