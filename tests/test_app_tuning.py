"""The tuning pages in AppTest: the demo from the home page, sweeps, what-if τ, compare, timeline."""

from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from nemori_ui.core.store import open_store, runs
from nemori_ui.ui.jobs.runs import registry
from tests.conftest import ROOT

PAGES = ["pages/demo.py", "pages/tuning.py", "pages/compare.py", "pages/timeline.py"]


def app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()


@pytest.mark.parametrize("page", PAGES)
def test_pages_render_without_a_run(page):
    at = app()
    at.switch_page(page).run()
    assert not at.exception


def demo_done(at: AppTest) -> AppTest:
    """The demo's runs are jobs of the server: the page shows them once they end."""
    for job in registry().of_kind("demo"):
        assert job.wait(180) and job.error is None, job.error
    return at.run()


@pytest.fixture
def demo_app(isolated_home):
    at = app()
    at.button(key="overview_demo").click().run()
    assert not at.exception
    assert any(p for p in at.get("progress")) or registry().of_kind("demo"), \
        "the demo runs as jobs the page watches"
    demo_done(at)
    assert not at.exception
    return at, isolated_home


def texts(at) -> str:
    parts = [m.value for m in at.markdown] + [t.value for t in at.text]
    parts += [s.value for s in at.subheader]
    parts += [str(df.value.to_dict()) for df in at.dataframe]
    return "\n".join(parts)


def test_demo_is_one_click_from_home_and_shows_what_prediction_saved(demo_app):
    at, home = demo_app
    listed = runs.list_runs(open_store(home))
    assert sorted(r.config.variant for r in listed) == ["nemori", "nemori-s"]
    assert "Facts told again that Nemori predicted" in texts(at)
    assert "weather forecasting" in texts(at)
    metric = {m.label: m for m in at.metric}
    told = int(metric["Facts predicted"].value)
    # the headline, the first figure and the table agree on one number
    assert at.subheader[0].value == f"Prediction held {told} facts told again: not stored"
    assert told >= 6
    why = " ".join(i.value for i in at.info)
    assert "Nemori-s, which does not predict, distilled all" in why, why


def test_the_demo_is_rebuilt_from_its_stored_runs_after_a_reload(demo_app):
    at, home = demo_app
    before = sorted(r.id for r in runs.list_runs(open_store(home)))
    fresh = app()                       # a reload: a new session, nothing in its state
    fresh.switch_page("pages/demo.py").run()
    assert not fresh.exception
    assert "Facts told again that Nemori predicted" in texts(fresh)
    assert not [i for i in fresh.info if "Press the button" in i.value]
    fresh.switch_page("pages/overview.py").run()
    demo_done(fresh.button(key="overview_demo").click().run())
    assert not fresh.exception
    after = sorted(r.id for r in runs.list_runs(open_store(home)))
    assert after == before, "the demo ran its pair again"


def test_a_skipped_fact_opens_its_episode_on_the_prediction_error_page(demo_app):
    at, home = demo_app
    facts = at.selectbox(key="demo_fact")
    last = facts.options[-1]
    facts.set_value(len(facts.options) - 1).run()
    episode = last.rsplit(" · ", 1)[1]
    at.button(key="demo_open").click().run()
    assert not at.exception
    nemori = next(r for r in runs.list_runs(open_store(home)) if r.config.variant == "nemori")
    assert at.session_state.run_id == nemori.id
    assert at.selectbox(key=f"pe_episode_{nemori.id}").value == episode


def test_what_if_tau_and_timeline_and_compare(demo_app):
    at, home = demo_app
    nemori = next(r for r in runs.list_runs(open_store(home)) if r.config.variant == "nemori")
    at.sidebar.selectbox[0].set_value(nemori.id).run()
    at.switch_page("pages/tuning.py").run()
    assert not at.exception
    changed = lambda: next(m.value for m in at.metric
                           if m.label == "Episodes whose prediction changes")
    assert changed() == "0"
    at.slider(key="whatif_tau").set_value(0.55).run()
    assert int(changed()) > 0
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    lines = [sh["x0"] for fig in charts for sh in fig["layout"].get("shapes", [])
             if fig["layout"].get("xaxis", {}).get("title", {}).get("text", "").startswith(
                 "similarity to a looked-at memory")]
    assert sorted(lines) == sorted([0.55, nemori.config.tau]), "the new τ and the run's τ"
    assert at.button(key="whatif_rerun")
    at.switch_page("pages/timeline.py").run()
    at.slider(key="turn").set_value(20).run()
    assert not at.exception and at.metric[0].value == "1"
    at.switch_page("pages/compare.py").run()
    assert not at.exception
    assert "Knowledge diff" in [s.value for s in at.subheader]


def test_a_sweep_fanned_out_from_the_page_carries_this_sessions_key(demo_app, monkeypatch):
    at, _ = demo_app
    import nemori_ui.ui.jobs.tuning as tuning
    handed = []

    def across_work(store, spec, base, make_clients, env):
        handed.append(env)
        return lambda job: ""
    monkeypatch.setattr(tuning, "across_work", across_work)
    at.session_state["api_key"] = "sk-session-typed"
    at.switch_page("pages/tuning.py").run()
    at.text_input(key="sweep_tau").set_value("0.5, 0.6")
    at.number_input(key="sweep_workers").set_value(2)
    next(b for b in at.button if b.label == "Run sweep").click().run()
    assert not at.exception
    # the workers build their clients from this environment: it must hold what was typed
    [env] = handed
    assert env.api_key == "sk-session-typed" and env.executor.workers == 2
