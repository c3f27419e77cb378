"""A separate Python process that computes map layouts (UMAP) for the server.

Importing UMAP and compiling its kernels holds the interpreter lock for seconds at a time; on
a thread of the server that made every page rendered meanwhile wait (the memory map's first
visit after a start took 4-6 s). In its own process it competes with the pages only for
a core, not for the lock. Not a multiprocessing pool: Streamlit runs the app as
`__main__`, which a spawned child would run again.

The parent sends pickled (function, args, kwargs) on the child's stdin and reads a pickled
(ok, value) back; the functions are module-level ones the child imports by name. Tasks run one
at a time, in order. This module does not import streamlit.
"""

from __future__ import annotations

import os
import pickle
import queue
import signal
import struct
import subprocess
import sys
import threading
import time
from concurrent.futures import Future
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_HEADER = struct.Struct("!Q")


def _send(stream, obj) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream):
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        raise EOFError("the projection process ended")
    size = _HEADER.unpack(header)[0]
    return pickle.loads(stream.read(size))


class ProjectionWorker:
    """`submit(fn, *args, **kwargs)` returns a Future resolved by the child process; a child
    that died is started again for the next task."""

    def __init__(self):
        self._tasks: queue.Queue = queue.Queue()
        self._proc: subprocess.Popen | None = None
        # a daemon thread: a server that stops does not wait for a layout in progress
        threading.Thread(target=self._loop, daemon=True, name="nemori-projection").start()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        future: Future = Future()
        self._tasks.put((future, fn, args, kwargs))
        return future

    def _child(self) -> subprocess.Popen:
        if self._proc is None or self._proc.poll() is not None:
            env = dict(os.environ)
            env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
            self._proc = subprocess.Popen([sys.executable, "-m", __name__], cwd=ROOT, env=env,
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        return self._proc

    def _loop(self) -> None:
        while True:
            future, fn, args, kwargs = self._tasks.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                proc = self._child()
                _send(proc.stdin, (fn, args, kwargs))
                ok, value = _receive(proc.stdout)
            except (OSError, EOFError, pickle.PickleError) as exc:
                future.set_exception(RuntimeError(f"the projection process failed: {exc}"))
                continue
            if ok:
                future.set_result(value)
            else:
                future.set_exception(value)


PR_SET_PDEATHSIG = 1      # Linux prctl: a signal sent to this process when its parent ends


def _die_with_parent() -> None:
    """A server killed mid-task would leave its child computing a layout for nobody, holding a
    core for minutes (UMAP's first compile): the child ends with its parent. Linux is told by
    prctl, which acts even while a compile holds the interpreter; elsewhere a thread watches."""
    parent = os.getppid()
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
            if os.getppid() != parent:      # the parent ended before the call
                os._exit(0)
            return
    except (OSError, AttributeError):
        pass

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)
    threading.Thread(target=watch, daemon=True, name="nemori-parent-watch").start()


def main() -> None:
    """The child: run each task it is sent until its stdin closes, or its parent ends."""
    _die_with_parent()
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)           # what libraries print goes to stderr, not into the replies
    inp = sys.stdin.buffer
    os.nice(5)
    while True:
        try:
            fn, args, kwargs = _receive(inp)
        except EOFError:
            return
        try:
            reply = (True, fn(*args, **kwargs))
        except Exception as exc:  # noqa: BLE001 - sent back to the page that asked
            reply = (False, exc)
        try:
            _send(out, reply)
        except BrokenPipeError:     # the server stopped while this task ran
            return


if __name__ == "__main__":
    main()
