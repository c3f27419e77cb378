"""The run environment holds the key: its repr never shows it, and it is never pickled (so it
can reach neither a file nor a Ray worker)."""

from __future__ import annotations

import pickle

import pytest

from nemori_ui.core.clients import RunEnvironment
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

