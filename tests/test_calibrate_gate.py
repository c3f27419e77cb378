"""benchmarks/calibrate_gate.py runs end to end: the gate it derives from the pairs fixture and
the table of what each gate sends to a call, with and without the reading of parts."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def calibrate():
    spec = importlib.util.spec_from_file_location("calibrate_gate", ROOT / "benchmarks" / "calibrate_gate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_reading_of_parts_sends_a_changed_value_to_a_call(calibrate):
    stored, insight = "Lena lives in Leeds.", "Lena lives in York now."
    assert calibrate.asked(insight, stored, 0.70, 0.83, read_parts=True)
    assert not calibrate.asked(insight, stored, 0.70, 0.83, read_parts=False)


def test_the_benchmark_prints_the_gate_and_its_table(calibrate, monkeypatch, capsys):
    pairs = json.loads((ROOT / "tests" / "fixtures" / "gate_pairs.json").read_text())
    monkeypatch.setattr(sys, "argv", ["calibrate_gate.py", "--file", str(ROOT / "no-such.json")])
    calibrate.main()
    out = capsys.readouterr().out
    same = sum(p["label"] == "same" for p in pairs["pairs"])
    assert f"admitting 95% of the {same} pairs that say the same fact" in out
    assert "+ reading of parts" in out and "similarity alone" in out
