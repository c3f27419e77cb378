"""Ray: connecting to it, and running named tasks on it with retries and progress.

Ray is optional (requirements-scale.txt); nothing imports it unless work is fanned out.

The API key reaches a worker through the worker's own environment, never through a task's
arguments or runtime_env: Ray writes a runtime_env, env_vars included, to its agent's log on
disk. A local Ray started here inherits the driver's environment at start, the key included;
on a cluster each node's `ray start` must see OPENAI_API_KEY, and a worker without the key is
refused before any task is sent.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError
from ..executors import MAX_RETRIES, TaskProgress
from ..llm.redact import redact_patterns

OBJECT_STORE_BYTES = 256 * 1024 * 1024   # a task returns a few MB of rows at most
REFRESH_S = 1.0
_ENV_LOCK = threading.Lock()


def import_ray():
    try:
        import ray
    except ImportError:
        raise InputError("--workers above 1 and --ray-address need Ray, which is not "
                         "installed: pip install -r requirements-scale.txt") from None
    return ray


def _digest(text: str | None) -> str:
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()


# Ray on Linux advertises the machine's outward address even for a Ray of its own; with this
# unset (as on macOS and Windows) its processes use loopback. Read by Ray's processes when they
# start, and by the driver through ray_constants while it starts them.
LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


@contextmanager
def _loopback(ray):
    """Ray's processes started inside the block listen on 127.0.0.1 only."""
    constants = ray._private.ray_constants
    before_env, before = os.environ.get(LOOPBACK_ENV), constants.ENABLE_RAY_CLUSTER
    os.environ[LOOPBACK_ENV], constants.ENABLE_RAY_CLUSTER = "0", False
    try:
        yield
    finally:
        constants.ENABLE_RAY_CLUSTER = before
        if before_env is None:
            os.environ.pop(LOOPBACK_ENV, None)
        else:
            os.environ[LOOPBACK_ENV] = before_env


def _worker_key_digest() -> str:
    return _digest(os.environ.get("OPENAI_API_KEY"))


@contextmanager
def _environment(key: str | None):
    """The key in this process's environment while Ray's processes are started, so that its
    workers inherit it; the environment is restored at once."""
    with _ENV_LOCK:
        before = os.environ.get("OPENAI_API_KEY")
        if key:
            os.environ["OPENAI_API_KEY"] = key
        try:
            yield
        finally:
            if before is None:
                os.environ.pop("OPENAI_API_KEY", None)
            else:
                os.environ["OPENAI_API_KEY"] = before


def _workers_hold(ray, key: str) -> bool:
    probe = ray.remote(num_cpus=0, max_retries=MAX_RETRIES)(_worker_key_digest)
    return ray.get(probe.remote(), timeout=120) == _digest(key)


def connect(workers: int, address: str | None, key: str | None = None):
    """Ray, initialised: a local instance with `workers` CPUs, or the cluster at `address`.
    An instance already running in this process is used as it is (a page's server keeps one),
    unless its workers lack the key a run needs: a local one is then restarted with it."""
    ray = import_ray()
    if ray.is_initialized() and key and not _workers_hold(ray, key):
        if address:
            raise InputError("the Ray cluster's workers have no OPENAI_API_KEY, or another "
                             "one: export it on every node before `ray start`")
        ray.shutdown()
    if ray.is_initialized():
        return ray
    quiet = {"logging_level": logging.WARNING, "log_to_driver": False}
    if address:
        # the nodes have the requirements installed; the product's own code travels with the job
        package = str(Path(__file__).resolve().parents[2])
        ray.init(address=address, runtime_env={"py_modules": [package]}, **quiet)
    else:
        # on loopback: a Ray of this machine's own is no service of the network's
        with _environment(key), _loopback(ray):
            # Ray nices its workers to 15 by default: the tasks are the work asked for and the
            # sequential path runs at the caller's priority, so they run at it too
            ray.init(address="local", num_cpus=max(1, workers), include_dashboard=False,
                     object_store_memory=OBJECT_STORE_BYTES,
                     _system_config={"worker_niceness": 0}, **quiet)
    if key and not _workers_hold(ray, key):
        raise InputError("the Ray cluster's workers have no OPENAI_API_KEY, or another one: "
                         "export it on every node before `ray start`")
    return ray


def reason(exc: BaseException) -> str:
    """A failed task's cause in one line, credentials masked."""
    cause = getattr(exc, "cause", None) or exc
    text = str(cause).strip().splitlines()
    return redact_patterns(f"{type(cause).__name__}: {text[-1] if text else ''}".strip())


def fan_out(ray, fn: Callable, tasks: list[tuple[str, object]], *, slots: int,
            on_done: Callable[[str, object], None],
            progress: Callable[[TaskProgress], None] | None = None,
            shared: tuple = ()) -> dict[str, str]:
    """Run `fn(task, *shared)` as one Ray task per (name, task), at most `slots` in flight;
    each output is handed to `on_done` as it arrives. Returns {name: why} for those that
    failed."""
    remote = ray.remote(max_retries=MAX_RETRIES, retry_exceptions=True)(fn)
    waiting = list(tasks)
    pending: dict = {}
    failures: dict[str, str] = {}
    done = 0
    report = progress or (lambda p: None)

    sent: dict[str, float] = {}

    def tell(name: str, state: str) -> None:
        # a task Ray retried (its worker died) is one task: its time runs from the first send
        took = round(time.monotonic() - sent[name], 1) if state != "started" else None
        report(TaskProgress(done=done, running=len(pending), failed=len(failures),
                            total=len(tasks), name=name, state=state, seconds=took))

    try:
        while waiting or pending:
            while waiting and len(pending) < max(1, slots):
                name, task = waiting.pop(0)
                pending[remote.remote(task, *shared)] = name
                sent[name] = time.monotonic()
                tell(name, "started")
            ready, _ = ray.wait(list(pending), num_returns=1, timeout=REFRESH_S)
            for ref in ready:
                name = pending.pop(ref)
                try:
                    output = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    failures[name] = reason(exc)
                    tell(name, "failed")
                    continue
                on_done(name, output)
                done += 1
                tell(name, "done")
    finally:
        for ref in pending:   # interrupted: nothing keeps running behind the caller's back
            ray.cancel(ref, force=True)
    return failures


def slots_of(ray, workers: int, address: str | None) -> int:
    """How many tasks to keep in flight: --workers, else every CPU of the cluster."""
    if workers > 1 or not address:
        return max(1, workers)
    return max(1, int(ray.cluster_resources().get("CPU", 1)))
