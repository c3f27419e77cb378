"""The tests that read LoCoMo skip on a machine without `../shared`, but under CI (CI set, as
`.ci/run` and CI services set it) a missing file fails them loudly: a skip there would pass a
build in which they never ran."""

from __future__ import annotations

import pytest

from tests.conftest import LOCOMO, in_ci, require_locomo


@pytest.mark.parametrize("value", ["true", "1", "yes", "True"])
def test_missing_locomo_fails_under_ci(value, monkeypatch, tmp_path):
    monkeypatch.setenv("CI", value)
    missing = tmp_path / "locomo-dev.json"
    with pytest.raises(pytest.fail.Exception, match=f"not found at {missing}.*CI must provide"):
        require_locomo(missing)


@pytest.mark.parametrize("value", [None, "", "false", "0"])
def test_missing_locomo_skips_outside_ci(value, monkeypatch, tmp_path):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    assert not in_ci()
    with pytest.raises(pytest.skip.Exception, match="LoCoMo data not found"):
        require_locomo(tmp_path / "locomo-dev.json")


def test_present_locomo_is_returned_either_way(monkeypatch, tmp_path):
    here = tmp_path / "locomo-dev.json"
    here.write_text("[]")
    for value in ("true", "false"):
        monkeypatch.setenv("CI", value)
        assert require_locomo(here) == here


def test_the_tests_look_beside_the_repository():
    assert LOCOMO.parts[-4:] == ("shared", "data", "locomo", "locomo-dev.json")
