"""Runs as jobs of the process: they go on without the page, can be cancelled and resumed, and
a second start of a live job does not run it twice. Real store, real offline engine."""

from __future__ import annotations

import threading

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.jobs import JobRegistry
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store, records
from nemori_ui.core.store.runs import get_run
from nemori_ui.core.transcripts import load_transcript
from tests.conftest import SAMPLE


def sample_job(store, window=10):
    transcript = load_transcript(SAMPLE)
    config = PipelineConfig(window=window)
    clients = build_clients(config, store)
    run_id = start_run(store, transcript.conversations[0], config, clients, source=SAMPLE.name,
                       fmt=transcript.format)
    return run_id, clients


def gated(store, run_id, clients, gate):
    def work(report):
        gate.wait(30)
        run_windows(store, run_id, clients, progress=report)
    return work


def test_a_cancelled_job_is_interrupted_and_resumes_to_one_episode_per_message(isolated_home):
    store = open_store(isolated_home)
    run_id, clients = sample_job(store)
    jobs, gate = JobRegistry(), threading.Event()
    job = jobs.start(run_id, gated(store, run_id, clients, gate))
    assert jobs.cancel(run_id)
    gate.set()
    assert job.wait(60)
    info = get_run(store, run_id)
    assert job.cancelled and job.error is None
    assert info.status == "interrupted" and info.windows_done < info.windows_total

    again = jobs.start(run_id, lambda report: run_windows(store, run_id, clients,
                                                          progress=report), kind="resume")
    assert again is not job and again.wait(120)
    info = get_run(store, run_id)
    assert info.status == "done" and info.windows_done == info.windows_total
    assert again.progress is not None and again.progress.stage == "done"
    placed = [m for e in records.load_episodes(store, run_id, with_vectors=False)
              if e.status == "active" for m in e.message_ids]
    messages = [m.id for m in records.load_messages(store, run_id)]
    assert sorted(placed) == sorted(messages), "every message in exactly one episode"


def test_a_live_job_is_not_started_twice(isolated_home):
    store = open_store(isolated_home)
    run_id, clients = sample_job(store)
    jobs, gate = JobRegistry(), threading.Event()
    first = jobs.start(run_id, gated(store, run_id, clients, gate))
    second = jobs.start(run_id, gated(store, run_id, clients, gate))
    assert second is first and [j.key for j in jobs.alive()] == [run_id]
    gate.set()
    assert first.wait(120) and get_run(store, run_id).status == "done"
    assert not jobs.cancel(run_id), "a finished job has nothing to cancel"


def test_a_failing_job_keeps_why(isolated_home):
    jobs = JobRegistry()

    def work(report):
        raise RuntimeError("server went away")

    job = jobs.start("r1", work)
    assert job.wait(10) and job.error == "RuntimeError: server went away" and not job.cancelled
