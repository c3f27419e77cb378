"""The fan-out commands as a user runs them, each in a process of its own: without Ray a clear
message (and a sequential run never imports it), stdout kept for the JSON when a worker dies,
and a local Ray on loopback only."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from nemori_ui.core.eval import results
from nemori_ui.core.scale.worker import FAULTS_ENV
from nemori_ui.core.store import open_store
from tests.conftest import ROOT, SAMPLE

ray = pytest.importorskip("ray")
SMALL = ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json"


def test_without_ray_a_clear_message_and_sequential_needs_no_ray(tmp_path):
    hide = ("import sys; sys.modules['ray'] = None; from nemori_ui.cli import main; "
            "code = main(sys.argv[1:]); print('ray' in sys.modules and sys.modules['ray'] "
            "is not None); sys.exit(code)")
    base = [sys.executable, "-c", hide, "eval", "locomo", str(SMALL), "--home", str(tmp_path)]
    refused = subprocess.run([*base, "--workers", "2"], capture_output=True, text=True,
                             cwd=ROOT, timeout=120, check=False)
    assert refused.returncode == 2
    assert "pip install -r requirements-scale.txt" in refused.stderr
    assert not (tmp_path / "nemori.db").exists() or not results.list_evals(open_store(tmp_path))
    plain = subprocess.run([sys.executable, "-c", hide.replace("sys.modules['ray'] = None; ", ""),
                            "eval", "locomo", str(SMALL), "--home", str(tmp_path)],
                           capture_output=True, text=True, cwd=ROOT, timeout=300,
                           check=False)
    assert plain.returncode == 0, plain.stderr
    assert plain.stdout.strip().endswith("False")    # a sequential run never imports Ray


def test_json_stays_alone_on_stdout_when_a_worker_dies(tmp_path):
    """A worker killed mid-task: Ray says so and retries the task; its words go to stderr with
    the retried task's wall time, and stdout holds the JSON points and nothing else."""
    faults = tmp_path / "faults.json"
    faults.write_text(json.dumps({"tau=0.5": "die"}))
    env = {**os.environ, "PYTHONPATH": str(ROOT), FAULTS_ENV: str(faults)}
    done = subprocess.run(
        [sys.executable, "-m", "nemori_ui", "sweep", str(SAMPLE), "--tau", "0.5,0.6",
         "--workers", "2", "--force-workers", "--home", str(tmp_path / "home"), "--json"],
        capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "faults.json.tau_0.5.attempts").read_text() == "2"   # died, then ran
    points = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(p["params"]["tau"] for p in points) == [0.5, 0.6]
    assert re.search(r"\(tau=0\.5 done in \d+\.\d s\)", done.stderr), done.stderr


def test_a_local_ray_listens_on_loopback_only(tmp_path):
    probe = ("from nemori_ui.core.scale.fanout import connect; ray = connect(1, None); "
             "print(sorted({n['NodeManagerAddress'] for n in ray.nodes()})); ray.shutdown()")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          cwd=ROOT, timeout=300, check=False,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['127.0.0.1']"
