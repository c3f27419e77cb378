"""The README's agent loop runs as printed: with this checkout, and in a fresh virtual
environment after `pip install .` (so the package declares what it needs to import). The
packaging files agree: pyproject's dependencies and `app` extra are requirements.txt, its
`test` extra is requirements-test.txt, and no test package is a runtime requirement."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from tests.conftest import ROOT

MARK = "<!-- agent-loop example -->"


def agent_loop() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(re.escape(MARK) + r"\s*```python\n(.*?)```", readme, re.S)
    assert block, "the README's agent-loop example is missing"
    return block.group(1)


def run_example(python: str, folder: Path, env: dict) -> subprocess.CompletedProcess:
    script = folder / "agent_loop.py"
    script.write_text(agent_loop(), encoding="utf-8")
    return subprocess.run([python, str(script)], cwd=folder, capture_output=True, text=True,
                          timeout=600, env={**env, "NEMORI_HOME": str(folder / "home")})


def check_output(done: subprocess.CompletedProcess) -> None:
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert lines[0] == "not in memory yet: 2"
    assert "bakery" in lines[1] and "bakery" in lines[2]
    assert re.fullmatch(r"history: \[\('sm\d+', 'superseded'\), \('sm\d+', 'active'\)\]",
                        lines[3]), lines[3]


def test_the_readme_agent_loop_runs(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    check_output(run_example(sys.executable, tmp_path, env))


def _pins(path: Path) -> list[str]:
    return sorted(line.split("#")[0].strip() for line in path.read_text().splitlines()
                  if line.split("#")[0].strip())


def test_the_packaging_files_agree():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert sorted(project["dependencies"] + extras["app"]) == _pins(ROOT / "requirements.txt")
    assert sorted(extras["test"]) == _pins(ROOT / "requirements-test.txt")
    assert sorted(extras["ray"]) == _pins(ROOT / "requirements-scale.txt")
    runtime = " ".join(_pins(ROOT / "requirements.txt"))
    for test_only in ("pytest", "hypothesis", "playwright"):
        assert test_only not in runtime


def test_pip_install_in_a_fresh_venv_gives_a_working_library(tmp_path):
    """Only the package's own files are copied: the venv sees no checkout and no system
    packages, so an import the dependencies do not cover fails here."""
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "nemori_ui", source / "nemori_ui",
                    ignore=shutil.ignore_patterns("__pycache__"))
    venv = tmp_path / "venv"
    # this pip installs into the venv (`--python`, pip 22.3+), so the venv needs no pip of its
    # own; and what the example imports is compiled as it is imported, not every module of
    # every dependency at install (together 12 of the 31 s of CPU the test took)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=300)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "-q",
                                "--no-compile", str(source)],
                               capture_output=True, text=True, timeout=1500, env=env)
    assert installed.returncode == 0, installed.stderr[-3000:]
    work = tmp_path / "work"
    work.mkdir()
    check_output(run_example(python, work, env))
