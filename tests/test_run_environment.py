"""The run environment holds the key: its repr never shows it, it is never pickled (so it can
reach neither a file nor a Ray worker), and workers are handed the key this process uses."""

from __future__ import annotations

import pickle

import pytest

from nemori_ui.core.clients import RunEnvironment
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.scale import executor_for

KEY = "sk-run-environment-secret"
PASSWORD = "url-password-2024"


def test_its_repr_shows_no_credential():
    env = RunEnvironment(api_key=KEY, secrets={"OPENAI_API_KEY": KEY},
                         base_url=f"http://admin:{PASSWORD}@127.0.0.1:8080/v1", notice=print,
                         executor=executor_for(2))
    for shown in (repr(env), str(env), f"{env}"):
        assert KEY not in shown and PASSWORD not in shown, shown
        assert "api_key=***" in shown and "127.0.0.1:8080/v1" in shown, shown


def test_it_is_never_pickled():
    with pytest.raises(TypeError, match="never pickled"):
        pickle.dumps(RunEnvironment(api_key=KEY))


def test_workers_are_handed_the_key_this_process_would_use(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    llm = PipelineConfig(backend="openai")
    assert RunEnvironment(api_key=KEY).worker_key(llm) == KEY
    assert RunEnvironment(secrets={"OPENAI_API_KEY": KEY}).worker_key(llm) == KEY
    assert RunEnvironment().worker_key(llm) is None
    assert RunEnvironment(base_url="http://127.0.0.1:8080/v1").worker_key(llm) is None  # local
    assert RunEnvironment(api_key=KEY).worker_key(PipelineConfig()) is None   # offline: no call
