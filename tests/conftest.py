"""Shared fixtures: an isolated home folder, the bundled sample, LoCoMo data and a finished run."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.openai_server import openai_server  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "nemori_ui" / "data" / "sample_conversation.txt"
LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
OUTPUT = ROOT / "tests" / "output"
SHOTS = OUTPUT / "screenshots"


def workers_folder(tmp_path_factory, name: str) -> Path:
    """A folder all of a run's workers share (pytest-xdist gives each its own temp folder under
    a shared one): the first to make something there keeps it for the others."""
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
    folder.mkdir(exist_ok=True)
    return folder


@pytest.fixture(scope="session", autouse=True)
def shared_numba_cache(tmp_path_factory):
    """One folder of compiled UMAP kernels for the whole session, as a user's home keeps them
    across server starts. Without it every app server's projection process compiled them
    again into its own test's home (24 s of CPU each, 11 s when loaded from the cache), and so
    did the tests' own first UMAP. Set before anything imports numba; a caller's own setting
    wins."""
    patch = pytest.MonkeyPatch()
    if "NUMBA_CACHE_DIR" not in os.environ:
        patch.setenv("NUMBA_CACHE_DIR", str(workers_folder(tmp_path_factory, "numba-cache")))
    yield
    patch.undo()


@pytest.fixture(scope="session", autouse=True)
def shared_minilm_memo(tmp_path_factory):
    """MiniLM's kept answers (below) shared by the run's workers."""
    from tests.embed_memo import MEMO
    MEMO.folder = workers_folder(tmp_path_factory, "minilm-memo")
    yield
    MEMO.folder = None


@pytest.fixture(autouse=True)
def minilm_memo(request, monkeypatch):
    """MiniLM answers a call it answered before from memory (tests/embed_memo.py), except in
    the tests of the model itself and of this memory."""
    if request.module.__name__.split(".")[-1].startswith("test_embed"):
        return
    from nemori_ui.core.embed.minilm import MiniLMEmbedder
    from tests.embed_memo import memo_embed
    monkeypatch.setattr(MiniLMEmbedder, "embed", memo_embed)


@pytest.fixture(autouse=True)
def isolated_home(tmp_path, monkeypatch):
    """No test reads or writes the real ~/.nemori_ui, nor sees a real API key."""
    home = tmp_path / "home"
    monkeypatch.setenv("NEMORI_HOME", str(home))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return home


def in_ci() -> bool:
    """CI says so in the environment (`.ci/run` sets CI=true, as CI services do)."""
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require_locomo(path: Path = LOCOMO) -> Path:
    """The LoCoMo dev file. Missing, the test is skipped on a developer's machine but fails
    under CI, where a skip would hide that the tests reading LoCoMo never ran."""
    if path.exists():
        return path
    why = (f"LoCoMo data not found at {path} (the tests read ../shared/data/locomo/ beside "
           "the repository)")
    if in_ci():
        pytest.fail(f"{why}; CI must provide it", pytrace=False)
    pytest.skip(why)


@pytest.fixture(scope="session")
def locomo_path() -> Path:
    return require_locomo()


def run_sample(store, **settings) -> str:
    """The bundled sample run with the offline engine into `store`; returns the run id."""
    from nemori_ui.core.clients import build_clients
    from nemori_ui.core.config import PipelineConfig
    from nemori_ui.core.pipeline.runner import run_windows, start_run
    from nemori_ui.core.transcripts import load_transcript

    transcript = load_transcript(SAMPLE)
    config = PipelineConfig(**settings)
    clients = build_clients(config, store)
    run_id = start_run(store, transcript.conversations[0], config, clients, source=str(SAMPLE),
                       fmt=transcript.format)
    run_windows(store, run_id, clients)
    return run_id


@pytest.fixture(scope="session")
def sample_run(tmp_path_factory):
    """The bundled sample run once with the offline engine: (store, run_id)."""
    from nemori_ui.core.store import open_store

    store = open_store(tmp_path_factory.mktemp("sample-home"))
    return store, run_sample(store)


# The modules that took longest, longest first (seconds each took in a 2-worker run, from
# `python -m pytest --junitxml=...`): scale 83, browser_live_presenting 82, browser_jobs 77,
# browser_run_progress 67, browser_map 57, browser_live 57, readme_example 52, ... down to
# about 25 s. pytest-xdist hands a worker the next module in collection order
# (`--no-loadscope-reorder`; its default puts the modules with most tests first), so started
# first they end before the short ones instead of running alone at the end while the other
# worker idles.
LONGEST_FIRST = (
    "test_scale", "test_browser_live_presenting", "test_browser_jobs",
    "test_browser_run_progress", "test_browser_map", "test_browser_live", "test_readme_example",
    "test_browser_demo_presenter", "test_real_server", "test_browser", "test_browser_whatif_diff",
    "test_views_knowledge", "test_eval_harness", "test_browser_trace", "test_llm_deadline",
    "test_browser_dark_charts", "test_browser_plurals", "test_server_not_ready", "test_app_run",
    "test_browser_map_tools", "test_browser_sweep_across", "test_browser_live_idle",
    "test_browser_cancel", "test_kill_resume")


def opens_browser(module) -> bool:
    return getattr(module, "open_browser", None) is not None


# The modules left out of the fast loop (`python -m pytest -m "not browser and not slow"`):
# each took about 4 s or more of a 2-worker run (a run with `--junitxml`, its times summed by
# module; `--durations`) because it starts what a user would have running (a model server, Ray,
# app sessions, a fresh virtual environment, processes it kills, UMAP's compiled kernels) or
# builds LoCoMo memories end to end.
SLOW = frozenset({
    "test_scale", "test_views_knowledge", "test_llm_deadline", "test_server_not_ready",
    "test_readme_example", "test_eval_harness", "test_ray_commands", "test_app_run",
    "test_real_server", "test_concurrent_runs", "test_memory_writers", "test_kill_resume",
    "test_pipeline_offline", "test_app_knowledge", "test_app_tuning", "test_append",
    "test_live", "test_url_credentials", "test_security", "test_live_app",
    "test_stop_signals", "test_redaction", "test_faults", "test_sweep_fanout",
    "test_boundary", "test_map_background", "test_umap_kernels"})


def pytest_sessionstart(session):
    """The screenshots of an earlier run go before this one starts. Once only, before the
    workers start (a worker has `workerinput`): a test that cleared them while the others ran
    deleted their screenshots, and a failed test's shot with them."""
    if hasattr(session.config, "workerinput"):
        return
    for old in SHOTS.glob("*.png"):
        old.unlink()


def pytest_collection_modifyitems(items):
    """Marks `browser` (the test opens Chromium) and `slow` (SLOW), then orders: the browser
    tests first, then the rest; the longest modules first in each. Run one after another on a
    worker, browser tests share its Chromium and its kept tab (see tests/browser_session.py),
    which a test without a browser between them stops."""
    for item in items:
        if opens_browser(item.module):
            item.add_marker(pytest.mark.browser)
        if item.path.stem in SLOW:
            item.add_marker(pytest.mark.slow)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: (not opens_browser(item.module),       # stable: keeps the rest
                                 rank.get(item.path.stem, len(rank))))


def pytest_runtest_teardown(item, nextitem):
    """Stop the browser tests' shared Chromium once the next test opens no browser (or none is
    left): see tests/browser_app.py."""
    browser_app = sys.modules.get("tests.browser_app")
    if browser_app is None:
        return
    if nextitem is None or not opens_browser(nextitem.module):
        browser_app.close_shared_browser()
