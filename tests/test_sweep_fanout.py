"""Where a sweep's points run: a sweep with too few points left to pay for starting Ray runs
in this process and says so; the points stored already are not counted, and Workers is
honoured for the rest; fanned points are sent apart from those they share a window with.

Ray is stood in for by test_fanout_order's in-process executor, which records the tasks it
ran: what matters here is which tasks are sent, not Ray itself.
"""

from __future__ import annotations

import pytest

from nemori_ui.cli import main
from nemori_ui.core.clients import RunEnvironment, build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.scale import executor_for
from nemori_ui.core.store import open_store, runs
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.tuning.records import SweepPoint
from nemori_ui.core.tuning.sweep import parse_grid, spread, sweep
from tests.conftest import SAMPLE
from tests.test_fanout_order import stand_in_for_ray


@pytest.fixture
def reversed_ray(monkeypatch):
    return stand_in_for_ray(monkeypatch)


def head(n: int = 30):
    conv = load_transcript(SAMPLE).conversations[0]
    return conv.model_copy(update={"messages": conv.messages[:n]})


def run(store, conv, spec: dict, executor, notes: list[str] | None = None
        ) -> list[SweepPoint]:
    return sweep(store, conv, PipelineConfig(), parse_grid(spec),
                 lambda c: build_clients(c, store), source="sample head", fmt="text",
                 env=RunEnvironment(executor=executor,
                                    notice=(notes if notes is not None else []).append))


def test_a_sweep_too_small_for_its_workers_runs_here_and_says_so(reversed_ray, tmp_path,
                                                                 capsys):
    home = str(tmp_path / "home")
    assert main(["sweep", str(SAMPLE), "--tau", "0.5,0.6,0.7", "--workers", "2",
                 "--home", home]) == 0
    err = capsys.readouterr().err
    assert reversed_ray.finished == []                 # nothing was sent out
    assert "3 points to run: too few to pay for starting Ray over 2 workers" in err
    assert "--force-workers" in err and "tasks:" not in err
    assert len(runs.list_runs(open_store(home))) == 3

    # asked to, it fans out all the same
    assert main(["sweep", str(SAMPLE), "--tau", "0.5,0.6,0.7", "--workers", "2",
                 "--force-workers", "--home", str(tmp_path / "forced")]) == 0
    assert sorted(reversed_ray.finished) == ["tau=0.5", "tau=0.6", "tau=0.7"]


def test_stored_points_are_not_work_and_workers_are_honoured_for_the_rest(reversed_ray,
                                                                          tmp_path):
    store, conv = open_store(tmp_path / "home"), head()
    run(store, conv, {"tau": "0.5,0.6"}, executor_for(1))
    assert len(runs.list_runs(store)) == 2

    # 6 points, 2 stored: the 4 left are enough for 2 workers, and only they are sent
    notes: list[str] = []
    points = run(store, conv, {"tau": "0.5,0.6,0.7", "window": "20,10"}, executor_for(2), notes)
    assert sorted(reversed_ray.finished) == ["tau=0.5 window=10", "tau=0.6 window=10",
                                             "tau=0.7 window=10", "tau=0.7 window=20"]
    assert notes == [] and [p.reused for p in points] == \
        [True, False, True, False, False, False]
    assert len(runs.list_runs(store)) == 6

    # 8 points, 6 stored: the 2 left are too few for 2 workers and run here; stored points are
    # not run again in this process either
    reversed_ray.finished.clear()
    points = run(store, conv, {"tau": "0.5,0.6,0.7,0.8", "window": "20,10"}, executor_for(2),
                 notes)
    assert reversed_ray.finished == [] and len(notes) == 1 and notes[0].startswith("2 points")
    assert sum(not p.reused for p in points) == 2 and len(runs.list_runs(store)) == 8
    again = run(store, conv, {"tau": "0.5"}, executor_for(1))
    assert again[0].reused and len(runs.list_runs(store)) == 8


def test_points_that_share_a_window_are_sent_apart():
    configs = [PipelineConfig(window=w, variant=v) for w in (10, 20) for v in ("nemori",
                                                                            "nemori-s")]
    assert [(c.window, c.variant) for c in spread(configs)] == [
        (10, "nemori"), (20, "nemori"), (10, "nemori-s"), (20, "nemori-s")]
