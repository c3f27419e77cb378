"""A malformed .streamlit/secrets.toml is reported on the Run page, not silently ignored."""

from __future__ import annotations

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT

APP = str(ROOT / "app.py")


@pytest.fixture
def secrets_file(tmp_path, monkeypatch):
    path = tmp_path / ".streamlit" / "secrets.toml"
    path.parent.mkdir()
    previous = st.config.get_option("secrets.files")
    st.config.set_option("secrets.files", [str(path)])
    yield path
    st.config.set_option("secrets.files", previous)


def run_page_warnings() -> list[str]:
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/run.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return [w.value.replace("\\", "") for w in at.warning]


def test_a_malformed_secrets_file_is_a_visible_warning(secrets_file):
    secrets_file.write_text('OPENAI_API_KEY = "sk-unterminated\n')
    warnings = run_page_warnings()
    assert any(str(secrets_file) in w and "line 1" in w and "not used" in w for w in warnings), \
        warnings
    assert not any("sk-unterminated" in w for w in warnings), "a secret value was shown"


def test_a_good_or_missing_secrets_file_warns_of_nothing(secrets_file):
    assert not [w for w in run_page_warnings() if "secrets" in w]
    secrets_file.write_text('OPENAI_BASE_URL = "http://localhost:9/v1"\n')
    assert not [w for w in run_page_warnings() if "secrets" in w]
