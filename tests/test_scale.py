"""Evaluations and sweeps fanned out on a local Ray (two workers): what lands in the home's store
is what the sequential loop leaves, a task that fails once is retried, one that always fails is
named while the others land, and finished work is not sent again."""

from __future__ import annotations

import json
import os

import pytest

from nemori_ui.cli import main
from nemori_ui.core.clients import RunEnvironment
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval import results
from nemori_ui.core.eval.harness import EvalOptions, evaluate
from nemori_ui.core.executors import TasksFailed
from nemori_ui.core.scale import executor_for
from nemori_ui.core.scale.worker import FAULTS_ENV
from nemori_ui.core.store import open_store, runs
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.tuning.sweep import parse_grid, sweep
from tests.conftest import ROOT
from tests.scale_data import (dev_head, memory_of, short_conversation, stored_eval,
                              two_conversations, untimed)

ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory):
    """One local Ray for the module: starting it costs seconds. The fault file's path is in
    the environment its workers inherit; each test writes what it wants to fail."""
    faults = tmp_path_factory.mktemp("faults") / "faults.json"
    faults.write_text("{}")
    os.environ[FAULTS_ENV] = str(faults)
    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False,
                 object_store_memory=100 * 1024 * 1024, log_to_driver=False)
    yield faults
    ray.shutdown()
    os.environ.pop(FAULTS_ENV, None)


def inject(faults, **wanted) -> None:
    for old in faults.parent.glob(faults.name + ".*"):
        old.unlink()
    faults.write_text(json.dumps({k.replace("__", " "): v for k, v in wanted.items()}))


def test_eval_locomo_with_two_workers_stores_what_sequential_stores(local_ray, locomo_path,
                                                                    tmp_path, capsys):
    path = dev_head(locomo_path, tmp_path)
    common = ["eval", "locomo", str(path), "--conversations", "conv-26,conv-30", "--limit", "6"]
    assert main([*common, "--home", str(tmp_path / "seq")]) == 0
    assert main([*common, "--home", str(tmp_path / "ray"), "--workers", "2"]) == 0
    progress = capsys.readouterr().err
    assert "tasks: 2 done, 0 running, 0 failed of 2" in progress

    seq, ray_ = stored_eval(tmp_path / "seq"), stored_eval(tmp_path / "ray")
    assert seq[0] == ray_[0]                      # figures, by category and overall
    assert len(seq[1]) == 12 and seq[1] == ray_[1]   # every per-question row
    assert set(seq[2]) == {"conv-26", "conv-30"} and seq[2] == ray_[2]
    # the embeddings cache came back with the rows: a later run embeds nothing again
    store = open_store(tmp_path / "ray")
    assert store.query("SELECT count(*) FROM vector_cache")[0][0] > 100


def run_sweep(home, conv, **kw):
    store = open_store(home)
    grid = parse_grid({"tau": "0.5,0.6", "window": "10,20"})
    from nemori_ui.core.clients import build_clients
    return store, sweep(store, conv, PipelineConfig(), grid, lambda c: build_clients(c, store),
                        source="conv-30 head", fmt="locomo", **kw)


def test_a_2x2_sweep_with_two_workers_matches_sequential(local_ray, locomo_path, tmp_path):
    conv = short_conversation(locomo_path)
    seq_store, seq = run_sweep(tmp_path / "seq", conv)
    seen = []
    ray_store, fanned = run_sweep(tmp_path / "ray", conv,
                                  env=RunEnvironment(executor=executor_for(2)),
                                  progress=seen.append)
    assert [untimed(p.model_dump()) for p in seq] == [untimed(p.model_dump()) for p in fanned]
    assert [p.params.tau for p in fanned] == [0.5, 0.5, 0.6, 0.6]
    assert fanned[0].qa is not None               # evidence recall, from the stored questions
    for a, b in zip(seq, fanned):
        assert memory_of(seq_store, a.run_id) == memory_of(ray_store, b.run_id)
    last = seen[-1]
    assert (last.done, last.running, last.failed, last.total) == (4, 0, 0, 4)
    assert max(p.running for p in seen) == 2

    # a re-run sends nothing: every point is finished in the store
    again_seen = []
    _, again = run_sweep(tmp_path / "ray", conv, env=RunEnvironment(executor=executor_for(2)),
                         progress=again_seen.append)
    assert again_seen == [] and all(p.reused for p in again)
    assert [untimed(p.model_dump()) for p in again] == \
        [{**untimed(p.model_dump()), "reused": True} for p in fanned]
    assert len(runs.list_runs(ray_store)) == 4


def test_a_task_that_fails_once_is_retried_and_the_result_is_complete(local_ray, locomo_path,
                                                                      tmp_path):
    inject(local_ray, **{"tau=0.5__window=20": 1})
    store, points = run_sweep(tmp_path / "home", short_conversation(locomo_path, 30),
                              env=RunEnvironment(executor=executor_for(2)))
    assert len(points) == 4 and len(runs.list_runs(store)) == 4
    attempts = local_ray.parent / (local_ray.name + ".tau_0.5_window_20.attempts")
    assert attempts.read_text() == "2"            # failed once, then succeeded


def test_a_task_that_always_fails_is_named_and_the_others_land(local_ray, locomo_path,
                                                               tmp_path):
    inject(local_ray, **{"tau=0.6__window=10": -1})
    seen = []
    with pytest.raises(TasksFailed) as failed:
        run_sweep(tmp_path / "home", short_conversation(locomo_path, 30),
                  env=RunEnvironment(executor=executor_for(2)), progress=seen.append)
    assert list(failed.value.failures) == ["tau=0.6 window=10"]
    assert "InjectedFault" in failed.value.failures["tau=0.6 window=10"]
    assert "tau=0.6 window=10" in str(failed.value)
    assert len(failed.value.results) == 3
    store = open_store(tmp_path / "home")
    stored = {(r.config.tau, r.config.window) for r in runs.list_runs(store)}
    assert stored == {(0.5, 10), (0.5, 20), (0.6, 20)}
    assert (seen[-1].done, seen[-1].failed) == (3, 1)

    # the same sweep again, the fault gone: only the failed point is sent
    inject(local_ray)
    again = []
    _, points = run_sweep(tmp_path / "home", short_conversation(locomo_path, 30),
                          env=RunEnvironment(executor=executor_for(2, force=True)),
                          progress=again.append)
    assert [p.name for p in again if p.state == "started"] == ["tau=0.6 window=10"]
    assert len(points) == 4 and len(runs.list_runs(store)) == 4



def test_a_fanned_sweep_with_a_model_starts_from_the_homes_cached_replies(local_ray, tmp_path,
                                                                         openai_server):
    from nemori_ui.core.clients import build_clients
    from tests.llm_responder import respond
    from tests.test_pipeline_openai import CONV
    openai_server.responder = respond
    store = open_store(tmp_path / "home")
    base = PipelineConfig(backend="openai", model="test-model", window=10,
                          base_url=openai_server.url)

    def clients(config):
        return build_clients(config, store)

    sweep(store, CONV, base, parse_grid({"tau": "0.5"}), clients, source="fixture", fmt="chat")
    sent = len(openai_server.chat_requests)
    fanned = sweep(store, CONV, base, parse_grid({"tau": "0.5,0.9"}), clients,
                   source="fixture", fmt="chat",
                   env=RunEnvironment(executor=executor_for(2, force=True)))
    assert fanned[0].reused                       # finished in the home: not sent again
    new = fanned[1].llm
    assert new.calls_reused > 0 and new.calls_made > 0   # partition, narration cached
    assert len(openai_server.chat_requests) - sent == new.calls_made
    assert not openai_server.errors


def test_a_fanned_sweeps_points_reuse_the_replies_the_earlier_ones_landed(local_ray, tmp_path,
                                                                          openai_server):
    """One worker, so each point starts after the one before landed: it asks the home's reply
    cache through the driver's actor and sends no call the sequential sweep did not send."""
    from nemori_ui.core.clients import build_clients
    from nemori_ui.core.scale.ray_executor import RayExecutor
    from tests.llm_responder import respond
    from tests.test_pipeline_openai import CONV
    openai_server.responder = respond
    base = PipelineConfig(backend="openai", model="test-model", window=10,
                          base_url=openai_server.url)
    grid = parse_grid({"variant": "nemori,nemori-s"})
    sent = []
    for home, executor in (("seq", executor_for(1)), ("ray", RayExecutor(1, force=True))):
        store = open_store(tmp_path / home)
        before = len(openai_server.chat_requests)
        points = sweep(store, CONV, base, grid, lambda c: build_clients(c, store),
                       source="fixture", fmt="chat", env=RunEnvironment(executor=executor))
        sent.append(len(openai_server.chat_requests) - before)
        assert points[1].llm.calls_reused > 0     # partition and narration: point 1's
    assert sent[1] == sent[0] and not openai_server.errors


def test_fanned_points_find_what_the_driver_embedded_before_sending_them(local_ray, locomo_path,
                                                                         tmp_path, monkeypatch):
    """The driver embeds what every point embeds (messages, their lines, the questions) once,
    while Ray starts; no task embeds any of it again, though two start at once."""
    from nemori_ui.core.embed.base import text_key
    from nemori_ui.core.episode_lines import line_text
    from nemori_ui.core.eval import qa
    from nemori_ui.core.scale import ray_executor
    conv = short_conversation(locomo_path, 40)
    landed: list[str] = []
    land = ray_executor.transfer.land

    def noted(store, rows):
        if rows.vector_cache:
            key = rows.vector_cache.columns.index("key")
            landed.extend(r[key] for r in rows.vector_cache.rows)
        land(store, rows)
    monkeypatch.setattr(ray_executor.transfer, "land", noted)
    store, points = run_sweep(tmp_path / "home", conv, env=RunEnvironment(executor=executor_for(2)))
    assert len(points) == 4 and landed                  # the points embedded their own texts
    shared = {text_key(t) for m in conv.messages for t in (m.text, line_text(m))} | \
        {text_key(i.question) for i in qa.locomo_items(conv).items if i.checkable}
    assert shared.isdisjoint(landed)                    # but none of what every point embeds


def test_an_eval_task_that_always_fails_is_named_and_the_other_lands(local_ray, tmp_path):
    inject(local_ray, **{"conv-twin": -1})
    path = two_conversations(tmp_path)
    store = open_store(tmp_path / "home")
    with pytest.raises(TasksFailed, match="conv-twin") as failed:
        evaluate(store, load_transcript(path), PipelineConfig(), EvalOptions(),
                 source=str(path), env=RunEnvironment(executor=executor_for(2)))
    [run] = results.list_evals(store)
    assert failed.value.landed == run.id
    assert set(run.memory_runs) == {"conv-mini"}
    assert run.summary["failed_tasks"].keys() == {"conv-twin"}
    assert {r.conversation_id for r in results.load_questions(store, run.id)} == {"conv-mini"}
    inject(local_ray)




def test_a_repeated_fanned_eval_reuses_the_memories_and_sends_no_call(local_ray, tmp_path,
                                                                      openai_server):
    from tests.test_eval_llm import reply
    openai_server.responder = reply
    path = two_conversations(tmp_path)
    store = open_store(tmp_path / "home")
    config = PipelineConfig(backend="openai", model="answer-model", window=10,
                            base_url=openai_server.url)
    options = EvalOptions(judge_model="judge-model")
    first = evaluate(store, load_transcript(path), config, options, source=str(path),
                     env=RunEnvironment(executor=executor_for(2)))
    sent = len(openai_server.chat_requests)
    again = evaluate(store, load_transcript(path), config, options, source=str(path),
                     env=RunEnvironment(executor=executor_for(2)))
    assert sent > 0 and len(openai_server.chat_requests) == sent   # every reply was cached
    assert again.memory_runs == first.memory_runs and len(runs.list_runs(store)) == 2
    assert again.summary["calls"]["eval"]["cached"] == again.summary["questions"]
    scores, scores_again = untimed(first.summary["overall"]), untimed(again.summary["overall"])
    if scores["judged"] < first.summary["questions"]:
        # A judge call of the first run failed (a loaded machine): the twin asked the same
        # question with the same answer, so the second run finds that verdict in the cache.
        reasons = [r.verdict_reason for r in results.load_questions(store, first.id)]
        assert scores_again["judged"] == again.summary["questions"], reasons
        for field in ("judge", "judged"):
            scores.pop(field), scores_again.pop(field)
    assert scores_again == scores



def test_a_task_reads_the_homes_embeddings_instead_of_embedding_them_again(local_ray, tmp_path):
    from nemori_ui.core.eval.ablations import build_config, variant
    from nemori_ui.core.scale.lookup import start_home_caches
    from nemori_ui.core.eval.tasks import ConversationTask, answer_conversation
    from nemori_ui.core.scale.worker import run_task
    path = two_conversations(tmp_path)
    store = open_store(tmp_path / "home")
    options = EvalOptions(variant="rag-4096")
    evaluate(store, load_transcript(path), PipelineConfig(), options, source=str(path))
    conv = load_transcript(path).conversations[0]
    task = ConversationTask(name=conv.id, eval_id="eval-x", conversation=conv,
                            config=build_config(PipelineConfig(), variant("rag-4096")),
                            options=options, source=str(path), fmt="locomo")
    alone = run_task(task, answer_conversation)
    assert alone.rows.vector_cache.rows            # embedded itself, and returns them
    home = start_home_caches(ray, str(store.path))
    try:
        helped = run_task(task, answer_conversation, home)
    finally:
        ray.kill(home)
    assert helped.rows.vector_cache.rows == []     # every vector came from the home
    assert untimed(helped.result.model_dump()) == untimed(alone.result.model_dump())



def test_a_fanned_eval_continues_an_interrupted_memory_instead_of_starting_over(local_ray,
                                                                                tmp_path):
    from nemori_ui.core.clients import build_clients
    from nemori_ui.core.pipeline.runner import run_windows, start_run
    path = two_conversations(tmp_path)
    transcript = load_transcript(path)
    store = open_store(tmp_path / "home")
    config = PipelineConfig(window=4)
    conv = transcript.conversations[0]
    clients = build_clients(config, store)
    run_id = start_run(store, conv, config, clients, source=str(path), fmt=transcript.format)
    run_windows(store, run_id, clients, stop_after=1)
    runs.set_status(store, run_id, "interrupted")
    first_window = memory_of(store, run_id)["episodes"]
    run = evaluate(store, transcript, config, EvalOptions(), source=str(path),
                   env=RunEnvironment(executor=executor_for(2)))
    assert run.memory_runs[conv.id] == run_id        # the same run, continued
    info = runs.get_run(store, run_id)
    assert info.status == "done" and info.windows_done == info.windows_total > 1
    assert memory_of(store, run_id)["episodes"][:len(first_window)] == first_window
    assert len(runs.list_runs(store)) == 2           # and one new run for the other conversation


def test_sweep_on_a_cluster_at_an_address(local_ray, tmp_path):
    """A cluster started apart (as `ray start --head` would), whose workers cannot import the
    product from their own path: the command sends its code with the job."""
    import subprocess
    import sys

    from ray.cluster_utils import Cluster
    from tests.conftest import SAMPLE
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 2, "include_dashboard": False, "object_store_memory": 100 * 1024 * 1024})
    try:
        # the driver finds the product on its PYTHONPATH; the cluster's workers, started
        # before, in another folder, do not see it
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        done = subprocess.run(
            [sys.executable, "-m", "nemori_ui", "sweep", str(SAMPLE), "--tau", "0.5,0.6",
             "--ray-address", cluster.address, "--home", str(tmp_path / "home"), "--json"],
            capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600, check=False)
    finally:
        cluster.shutdown()
    assert done.returncode == 0, done.stderr
    points = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(p["params"]["tau"] for p in points) == [0.5, 0.6]
    assert "tasks: 2 done, 0 running, 0 failed of 2" in done.stderr
    assert len(runs.list_runs(open_store(tmp_path / "home"))) == 2


SECRET = "sk-scale-test-0123456789abcdefSECRET"


def test_the_key_reaches_workers_through_their_environment_only(local_ray, tmp_path,
                                                                openai_server, monkeypatch):
    import pickle
    from pathlib import Path

    from nemori_ui.core.eval.tasks import ConversationTask, answer_conversation
    from nemori_ui.core.scale.worker import run_task
    from tests.test_eval_llm import reply
    openai_server.responder = reply
    openai_server.api_key = SECRET                # any other key is refused with a 401
    path = two_conversations(tmp_path)
    home = tmp_path / "home"
    store = open_store(home)
    config = PipelineConfig(backend="openai", model="answer-model", window=10,
                            base_url=openai_server.url)
    run = evaluate(store, load_transcript(path), config, EvalOptions(judge_model="judge-model"),
                   source=str(path), env=RunEnvironment(api_key=SECRET, executor=executor_for(2)))
    store.close()
    chats = openai_server.chat_requests
    assert chats and all(r.headers.get("authorization") == f"Bearer {SECRET}" for r in chats)
    assert run.summary["overall"]["judged"] == run.summary["questions"] > 0
    assert run.summary["judge"]["calls"] == run.summary["questions"]

    secret = SECRET.encode()
    for f in home.iterdir():                      # the home's database, its WAL
        assert secret not in f.read_bytes(), f
    session = Path(ray._private.worker._global_node.get_session_dir_path())
    for f in session.rglob("*"):                  # Ray's own logs and files of the session
        if f.is_file() and not f.is_symlink():
            assert secret not in f.read_bytes(), f

    # what crosses to and from a worker (Ray pickles it) holds no key either
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    conv = load_transcript(path).conversations[0]
    from nemori_ui.core.eval.ablations import build_config, variant
    task = ConversationTask(name=conv.id, eval_id="eval-x", conversation=conv,
                            config=build_config(config, variant("nemori")),
                            options=EvalOptions(judge_model="judge-model"),
                            source=str(path), fmt="locomo")
    out = run_task(task, answer_conversation)
    assert out.result.rows and out.rows.call_log.rows
    assert secret not in pickle.dumps(task) and secret not in pickle.dumps(out)
