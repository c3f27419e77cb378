"""The server's own settings, read from `.streamlit/config.toml` as `streamlit run app.py` reads
them."""

from __future__ import annotations

from pathlib import Path

from streamlit import config

ROOT = Path(__file__).resolve().parents[1]


def test_no_full_garbage_collection_follows_each_script_run(monkeypatch):
    # after every run, fragments' included, it took most of the server's CPU while a page
    # followed a run (benchmarks/bench_server_cpu.py)
    monkeypatch.chdir(ROOT)
    try:
        config.get_config_options(force_reparse=True)
        assert config.get_option("runner.postScriptGC") is False
        assert config.get_config_options()["runner.postScriptGC"].where_defined.endswith(
            str(Path(".streamlit") / "config.toml"))
    finally:
        monkeypatch.undo()
        config.get_config_options(force_reparse=True)
