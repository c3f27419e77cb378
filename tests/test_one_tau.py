"""One τ: every benchmark and tool starts from the product's per-embedder default."""

from __future__ import annotations

import re

from nemori_ui.core.config import PipelineConfig, default_tau, tau_grid
from tests.conftest import ROOT

TAU_OPTION = re.compile(r'add_argument\(\s*"--tau"[^)]*?default=([^,)\n]+)', re.S)


def test_a_sweeps_default_taus_surround_the_embedders_default():
    assert tau_grid("minilm") == "0.52,0.57,0.62"
    assert tau_grid("openai") == "0.65,0.7,0.75"
    assert str(PipelineConfig().tau) in tau_grid("minilm").split(",")


def test_no_benchmark_or_command_fixes_a_tau_of_its_own():
    files = [*sorted((ROOT / "benchmarks").glob("*.py")),
             *sorted((ROOT / "nemori_ui" / "cli").glob("*.py"))]
    defaults = {f.name: TAU_OPTION.findall(f.read_text()) for f in files}
    found = {name: d for name, d in defaults.items() if d}
    assert found, "no --tau option found: the pattern is stale"
    for name, values in found.items():
        for value in values:
            assert value.strip() == "None" or value.strip().startswith("tau_grid("), (name, value)
    assert default_tau("minilm") == PipelineConfig().tau
