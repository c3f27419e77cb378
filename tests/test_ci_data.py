"""The tests that read LoCoMo skip on a machine without `../shared`, but under CI (CI set, as
`.ci/run` and CI services set it) a missing file fails them loudly: a skip there would pass a
build in which they never ran."""

from __future__ import annotations

import pytest

from tests.conftest import LOCOMO, in_ci, require_locomo


def outcome(path) -> tuple[str, str]:
    """What require_locomo did, caught here: a skip raised inside a test would otherwise skip
    the test itself instead of failing it."""
    try:
        require_locomo(path)
    except pytest.fail.Exception as exc:
        return "failed", str(exc)
    except pytest.skip.Exception as exc:
        return "skipped", str(exc)
    return "found", ""


@pytest.mark.parametrize("value", ["true", "1", "yes", "True"])
def test_missing_locomo_fails_under_ci(value, monkeypatch, tmp_path):
    monkeypatch.setenv("CI", value)
    missing = tmp_path / "locomo-dev.json"
    did, said = outcome(missing)
    assert did == "failed"
    assert f"not found at {missing}" in said and "CI must provide it" in said


@pytest.mark.parametrize("value", [None, "", "false", "0"])
def test_missing_locomo_skips_outside_ci(value, monkeypatch, tmp_path):
    if value is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", value)
    assert not in_ci()
    did, said = outcome(tmp_path / "locomo-dev.json")
    assert did == "skipped" and "LoCoMo data not found" in said


def test_present_locomo_is_returned_either_way(monkeypatch, tmp_path):
    here = tmp_path / "locomo-dev.json"
    here.write_text("[]")
    for value in ("true", "false"):
        monkeypatch.setenv("CI", value)
        assert outcome(here) == ("found", "") and require_locomo(here) == here


def test_the_tests_look_beside_the_repository():
    assert LOCOMO.parts[-4:] == ("shared", "data", "locomo", "locomo-dev.json")
