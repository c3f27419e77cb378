"""Fanned-out results come back in task order whatever order the tasks finish in.

Real tasks finish in whatever order their sizes and the machine's load give, so tests that
ran on Ray passed only because the tasks happened to finish in order. Here an in-process
executor stands in for Ray with the calls `fan_out` makes (remote, wait, get, cancel, kill):
it runs each task in this process, on a copy of its input as Ray would ship it, and reports
the last task sent as the first one finished, so completion order is the reverse of task
order. The evaluation and the sweep must still store and return what the sequential command
does, in the same order.
"""

from __future__ import annotations

import json
import pickle

import pytest

from nemori_ui.cli import main
from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval import results
from nemori_ui.core.scale import executor_for, ray_executor
from nemori_ui.core.scale.fanout import fan_out
from nemori_ui.core.store import open_store
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.tuning.sweep import parse_grid, sweep
from tests.conftest import ROOT, SAMPLE

SMALL = ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json"


class RayError(Exception):
    pass


class Reversed:
    """The part of Ray's API that fan_out uses; the newest pending task finishes first."""

    class exceptions:
        RayError = RayError

    def __init__(self):
        self.finished: list[str] = []

    def remote(self, **_options):
        executor = self

        def wrap(fn):
            class Remote:
                @staticmethod
                def remote(task, *shared):
                    return Ref(executor, fn, pickle.loads(pickle.dumps(task)), shared)
            return Remote
        return wrap

    def wait(self, refs, num_returns=1, timeout=None):
        return refs[-num_returns:], refs[:-num_returns]

    def get(self, ref):
        out = ref.fn(ref.task, *ref.shared)
        self.finished.append(getattr(ref.task, "name", str(ref.task)))
        return out

    def cancel(self, ref, force=False):
        pass

    def kill(self, actor):
        pass


class Ref:
    def __init__(self, executor, fn, task, shared):
        self.executor, self.fn, self.task, self.shared = executor, fn, task, shared


@pytest.fixture
def reversed_ray(monkeypatch):
    return stand_in_for_ray(monkeypatch)


def stand_in_for_ray(monkeypatch) -> Reversed:
    """Reversed in Ray's place for the executor and the commands, until the test ends."""
    executor = Reversed()
    monkeypatch.setattr(ray_executor, "connect", lambda *a, **k: executor)
    monkeypatch.setattr(ray_executor, "start_home_caches", lambda *a, **k: None)
    monkeypatch.setattr("nemori_ui.cli.eval.check_workers", lambda args: None)   # no Ray needed
    monkeypatch.setattr("nemori_ui.cli.sweep.check_workers", lambda args: None)
    return executor


def test_fan_out_hands_each_output_to_its_own_task():
    executor = Reversed()
    landed = []
    failures = fan_out(executor, lambda n: n * 10, [("a", 1), ("b", 2), ("c", 3)], slots=3,
                       on_done=lambda name, out: landed.append((name, out)))
    assert failures == {}
    assert landed == [("c", 30), ("b", 20), ("a", 10)]      # they finished in reverse


def three_conversations(tmp_path):
    """locomo_small's conversation three times over, each with its own id and words, and a
    different number of questions, so that rows out of order cannot pass for in order."""
    [base] = json.loads(SMALL.read_text())
    samples = []
    for i, (pet, n) in enumerate((("puppy", 2), ("kitten", 1), ("parrot", 2))):
        sample = json.loads(json.dumps(base).replace("puppy", pet))
        sample["sample_id"] = f"conv-{i + 1}"
        sample["qa"] = sample["qa"][:n]
        samples.append(sample)
    path = tmp_path / "three.json"
    path.write_text(json.dumps(samples))
    return path


def stored_rows(home):
    store = open_store(home)
    [run] = results.list_evals(store)
    rows = [(q.conversation_id, q.item_id, q.question, q.answer, q.f1)
            for q in results.load_questions(store, run.id)]
    order = list(run.memory_runs)
    store.close()
    return rows, order


def test_a_fanned_evaluation_stores_its_rows_in_conversation_order(reversed_ray, tmp_path):
    path = three_conversations(tmp_path)
    assert main(["eval", "locomo", str(path), "--home", str(tmp_path / "seq")]) == 0
    assert main(["eval", "locomo", str(path), "--home", str(tmp_path / "fan"),
                 "--workers", "3"]) == 0
    assert reversed_ray.finished == ["conv-3", "conv-2", "conv-1"]
    seq, fan = stored_rows(tmp_path / "seq"), stored_rows(tmp_path / "fan")
    assert [row[0] for row in seq[0]] == ["conv-1", "conv-1", "conv-2", "conv-3", "conv-3"]
    assert fan == seq


def test_a_fanned_sweep_returns_its_points_in_grid_order(reversed_ray, tmp_path):
    conv = load_transcript(SAMPLE).conversations[0]
    conv = conv.model_copy(update={"messages": conv.messages[:40]})
    grid = parse_grid({"tau": "0.5,0.6", "window": "10,20"})
    store = open_store(tmp_path / "home")
    heard = []
    points = sweep(store, conv, PipelineConfig(), grid, lambda c: build_clients(c, store),
                   source="sample head", fmt="text",
                   env=RunEnvironment(executor=executor_for(4, force=True)),
                   on_point=heard.append)
    wanted = [(0.5, 10), (0.5, 20), (0.6, 10), (0.6, 20)]
    at = lambda p: (p.params.tau, p.params.window)   # noqa: E731
    assert [at(p) for p in heard] == wanted[::-1]      # heard as they finished
    assert [at(p) for p in points] == wanted           # returned in grid order
    seq_store = open_store(tmp_path / "seq")
    one_by_one = sweep(seq_store, conv, PipelineConfig(), grid,
                       lambda c: build_clients(c, seq_store), source="sample head", fmt="text")
    figures = ("episodes", "insights", "active_memories", "merges", "conflicts")
    assert [[getattr(p, k) for k in figures] for p in points] == \
        [[getattr(p, k) for k in figures] for p in one_by_one]
    seq_store.close()
    store.close()
