"""Sweeps and evaluations as jobs of the server: they run without the page that started them,
report progress, keep their result, stop between points when cancelled, and hand `workers` to
the core function that takes it. Real store, real offline engine, the small LoCoMo file."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval import results
from nemori_ui.core.jobs.tasks import eval_work, sweep_work
from nemori_ui.core.jobs import JobRegistry
from nemori_ui.core.store import open_store
from nemori_ui.core.store.runs import list_runs
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.ui.jobs.runs import registry
from tests.conftest import ROOT
from tests.test_sweep_quality import SMALL, run_small

WAIT_S = 300


def small():
    transcript = load_transcript(SMALL)
    return transcript, transcript.conversations[0]


def test_a_sweep_job_keeps_its_points_and_says_how_far_it_is(isolated_home):
    store = open_store(isolated_home)
    transcript, conv = small()
    seen = []
    work = sweep_work(store, conv, PipelineConfig(), {"tau": [0.6, 0.7]},
                      lambda c: build_clients(c, store), source=SMALL.name, fmt="locomo")
    jobs = JobRegistry()
    job = jobs.submit("sweep-1", lambda j: (seen.append(j.text), work(j))[1], kind="sweep")
    assert job.wait(WAIT_S) and job.error is None, job.error
    assert [p.params.tau for p in job.result] == [0.6, 0.7]
    assert job.fraction == 1.0 and job.text.startswith("2 of 2 points")
    assert sorted(r.status for r in list_runs(store)) == ["done", "done"]


def test_a_cancelled_sweep_stops_before_its_next_point(isolated_home):
    store = open_store(isolated_home)
    _, conv = small()
    jobs = JobRegistry()

    made = []

    def make(config):
        made.append(config)
        if len(made) == 2:          # the first clients warm the caches up for every point
            jobs.cancel("sweep-2")  # asked while the first point is being set up
        return build_clients(config, store)

    work = sweep_work(store, conv, PipelineConfig(), {"tau": [0.6, 0.7, 0.8]}, make,
                      source=SMALL.name, fmt="locomo")
    job = jobs.submit("sweep-2", work, kind="sweep")
    assert job.wait(WAIT_S) and job.cancelled and job.error is None
    assert [r.config.tau for r in list_runs(store)] == [0.6], "no point after the cancel"


def test_workers_choose_where_the_tasks_run():
    from nemori_ui.core.executors import IN_PROCESS
    from nemori_ui.core.scale import executor_for
    assert executor_for(1) is IN_PROCESS and not IN_PROCESS.remote
    fanned = executor_for(3)
    assert fanned.remote and fanned.workers == 3 and fanned.address is None
    assert executor_for(1, "10.0.0.1:6379").address == "10.0.0.1:6379"


def test_an_eval_job_stores_one_evaluation_per_variant(isolated_home):
    store = open_store(isolated_home)
    transcript, _ = small()
    from nemori_ui.core.eval.harness import EvalOptions
    options = [EvalOptions(variant=v, limit=2) for v in ("nemori", "full-context")]
    job = JobRegistry().submit("eval-1", eval_work(store, transcript, PipelineConfig(), options,
                                                   source=SMALL.name), kind="eval")
    assert job.wait(WAIT_S) and job.error is None, job.error
    stored = {r.id: r.variant for r in results.list_evals(store)}
    assert sorted(stored) == sorted(job.result)
    assert sorted(stored.values()) == ["full-context", "nemori"]
    assert job.fraction == 1.0


def wait_jobs(kind: str) -> None:
    for job in registry().of_kind(kind):
        assert job.wait(WAIT_S), f"the {kind} job did not end"
        assert job.error is None, job.error


def app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()


def test_the_tuning_page_starts_a_sweep_and_is_left_while_it_runs(isolated_home):
    store = open_store(isolated_home)
    run_small(store, tau=0.6)
    at = app()
    at.switch_page("pages/tuning.py").run()
    at.text_input(key="sweep_tau").set_value("0.65,0.75")
    at.number_input(key="sweep_workers").set_value(1)
    at.button[0].click().run()          # the form's submit button
    assert not at.exception, [e.value for e in at.exception]
    assert registry().of_kind("sweep"), "the sweep is a job of the server"
    at.switch_page("pages/overview.py").run()   # leave the page at once
    wait_jobs("sweep")
    assert sorted(r.config.tau for r in list_runs(store)) == [0.6, 0.65, 0.75]
    at.switch_page("pages/tuning.py").run()
    assert not at.exception
    every = [d.value for d in at.dataframe if "calls_reused" in d.value]
    assert sorted(every[0]["tau"]) == [0.6, 0.65, 0.75]
    assert any("finished" in s.value for s in at.success), "the outcome is said"


def test_the_evaluation_page_evaluates_this_runs_questions_as_a_job(isolated_home):
    store = open_store(isolated_home)
    run_id = run_small(store)
    at = app()
    at.switch_page("pages/evaluation.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.radio(key="eval_source").value == "This run's conversation"
    at.number_input(key="eval_limit").set_value(2)
    at.number_input(key="eval_workers").set_value(1)
    at.button(key="eval_start").click().run()
    assert not at.exception, [e.value for e in at.exception]
    wait_jobs("eval")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    [stored] = results.list_evals(store)
    assert list(stored.memory_runs.values()) == [run_id], "the run's memory is reused"
    assert at.selectbox(key="eval_id").value == stored.id
    captions = " ".join(c.value for c in at.caption)
    assert "answer calls" not in captions, "no call counters of zeros for the offline engine"


def test_a_sweep_without_a_name_or_conversation_is_refused_with_why(isolated_home):
    store = open_store(isolated_home)
    run_small(store, tau=0.6)
    before = len(registry().of_kind("sweep"))      # the registry is the process's
    at = app()
    at.switch_page("pages/tuning.py").run()
    at.text_input(key="sweep_name").set_value("  ")
    at.button[0].click().run()
    assert any("a sweep needs a name" in e.value for e in at.error), [e.value for e in at.error]
    at.text_input(key="sweep_name").set_value("named")
    at.multiselect(key="sweep_conversations").set_value([])
    at.button[0].click().run()
    assert any("choose at least one conversation" in e.value for e in at.error)
    assert len(registry().of_kind("sweep")) == before, "nothing was started"
    assert [r.config.tau for r in list_runs(store)] == [0.6]
