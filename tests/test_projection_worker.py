"""The map's layout process ends with the server that started it, even mid-task: a server
killed while UMAP compiles must not leave a process holding a core for minutes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from tests.conftest import ROOT

PARENT = """
import sys, time
from nemori_ui.ui.projection_worker import ProjectionWorker
worker = ProjectionWorker()
worker.submit(time.sleep, 120)          # a long task, as a first UMAP compile is
while worker._proc is None:
    time.sleep(0.05)
print(worker._proc.pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is gone for every purpose but its entry
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split(")")[-1].split()[0] != "Z"


def test_the_layout_process_ends_when_its_server_is_killed_mid_task():
    parent = subprocess.Popen([sys.executable, "-c", PARENT], cwd=ROOT, stdout=subprocess.PIPE,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        child = int(parent.stdout.readline())
        time.sleep(1.0)                   # the child is running the task
        assert _alive(child)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 15
        while _alive(child) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _alive(child), "the layout process outlived its server"
    finally:
        parent.kill()
