"""Session state, the shared store, and cached run data.

Nothing here is module-level mutable state: per-user values live in st.session_state, shared
resources in st.cache_resource, data keyed by its arguments in st.cache_data.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import streamlit as st

from ..core.clients import RunEnvironment, build_embedder
from ..core.config import PipelineConfig
from ..core.store import Store, default_home, open_store
from ..core.store import runs
from ..core.store.health import RunHealth, run_health
from ..core.run_figures import RunFigures, run_figures
from ..core.tuning.records import SweepPoint
from ..core.tuning.sweep import point_figures, stored_recall
from ..core.views.partitions import PartitionSource, stored_partition_source
from ..core.views.run_data import RunData, load_run_data

DEFAULTS = {
    "run_id": None,          # the run every page shows
    "config": None,          # the Run page's settings, a PipelineConfig dump
    "api_key": "",           # typed into a password field; never written anywhere
}


SECRET_NAMES = ("OPENAI_API_KEY", "OPENAI_BASE_URL")


def read_secrets() -> tuple[dict, str | None]:
    """(the OpenAI settings in Streamlit secrets, a warning when a secrets file is unreadable).

    Streamlit raises the same error for a missing file and for a malformed one; only the
    malformed one deserves a warning, and it names the file and line, never a value.
    """
    try:
        return {k: st.secrets[k] for k in SECRET_NAMES if k in st.secrets}, None
    except Exception:
        pass
    for name in st.config.get_option("secrets.files") or []:
        path = Path(name)
        try:
            tomllib.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else str(exc).split("\n")[0]
            return {}, (f"{path} could not be read ({why}); the settings in it are not used. "
                        "Fix the file (see .streamlit/secrets.toml.example) and reload.")
    return {}, None


def session_environment(**more) -> RunEnvironment:
    """This session's key and base URL as typed (with any user:password), and the secrets:
    read here on the page, since a job's thread cannot read the session; `more` fills the
    other fields."""
    return RunEnvironment(api_key=st.session_state.get("api_key") or None,
                          secrets=read_secrets()[0],
                          base_url=st.session_state.get("base_url_raw"), **more)


def init_state() -> None:
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)
    if st.session_state.config is None:
        st.session_state.config = PipelineConfig().model_dump()


def home() -> Path:
    return Path(os.environ.get("NEMORI_HOME") or default_home())


@st.cache_resource(show_spinner=False)
def _store_for(path: str) -> Store:
    return open_store(path)


def get_store() -> Store:
    return _store_for(str(home()))


def list_runs() -> list[runs.RunInfo]:
    return runs.list_runs(get_store())


LAST_VIEWED = "last_viewed_run"     # a file in the home folder: the run a session showed last


def current_run() -> runs.RunInfo | None:
    """The selected run; in a new session the one last viewed (not the newest, which is
    often a sweep's last point); else the newest (or when the chosen one was deleted)."""
    listed = list_runs()
    chosen = st.session_state.get("run_id") or _last_viewed()
    for info in listed:
        if info.id == chosen:
            st.session_state.run_id = info.id
            _remember_viewed(info.id)
            return info
    if listed:
        st.session_state.run_id = listed[0].id
        return listed[0]
    return None


def _last_viewed() -> str | None:
    try:
        return (home() / LAST_VIEWED).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def _remember_viewed(run_id: str) -> None:
    # written when the session's run changes, not on every rerun
    if st.session_state.get("_viewed_written") == run_id:
        return
    try:
        (home() / LAST_VIEWED).write_text(run_id, encoding="utf-8")
    except OSError:
        return          # a read-only home: a new session opens on the newest run instead
    st.session_state._viewed_written = run_id


@st.cache_resource(show_spinner=False, max_entries=8)
def _run_data(home_path: str, run_id: str, stamp: str) -> RunData:
    # `stamp` (the run's updated_at) is only part of the cache key: a run that changed reloads.
    # A resource, not data: pages only read it, and unpickling thousands of vectors on every
    # rerun would make each page switch slow.
    return load_run_data(_store_for(home_path), run_id)


def run_data(info: runs.RunInfo) -> RunData:
    return _run_data(str(home()), info.id, _stamp(info))


def _stamp(info: runs.RunInfo) -> str:
    return f"{info.updated_at}|{info.windows_done}|{info.status}"


@st.cache_resource(show_spinner=False, max_entries=8)
def _partitions(home_path: str, run_id: str, stamp: str, window: int) -> PartitionSource:
    return stored_partition_source(_store_for(home_path), run_id, window)


def partition_source(info: runs.RunInfo) -> PartitionSource:
    """The run's partition ids and links, reread only when the run changed."""
    return _partitions(str(home()), info.id, _stamp(info), info.config.window)


@st.cache_data(show_spinner=False, max_entries=256)
def _figures(home_path: str, run_id: str, stamp: str) -> RunFigures:
    return run_figures(_store_for(home_path), run_id)


def figures(info: runs.RunInfo) -> RunFigures:
    """The run's headline figures, recomputed only when the run changed."""
    return _figures(str(home()), info.id, _stamp(info))


@st.cache_data(show_spinner=False, max_entries=256)
def _point(home_path: str, run_id: str, stamp: str) -> SweepPoint:
    store = _store_for(home_path)
    config = runs.get_run(store, run_id).config
    # evidence recall embeds the stored questions: offline with MiniLM (and cached by content);
    # with a paid embedder only a sweep run from the Tuning page or the CLI reports it
    qa = stored_recall(store, run_id, build_embedder(config, store)) \
        if config.embedder == "minilm" else None
    return SweepPoint.of(point_figures(store, run_id), qa=qa)


def sweep_point(info: runs.RunInfo) -> SweepPoint:
    """A finished run's figures as a sweep point, recomputed only when the run changed."""
    return _point(str(home()), info.id, _stamp(info))


@st.cache_data(show_spinner=False, max_entries=256)
def _health(home_path: str, run_id: str, stamp: str) -> RunHealth:
    return run_health(_store_for(home_path), [run_id])[run_id]


def health(info: runs.RunInfo) -> RunHealth:
    """The run's failed calls and fallback decisions, recounted only when the run changed."""
    return _health(str(home()), info.id, _stamp(info))


def clear_data_cache() -> None:
    _health.clear()
    _run_data.clear()
    _partitions.clear()
    _figures.clear()
    _point.clear()
