"""The command line run in this process, as a user's shell would see it: exit code, stdout and
stderr. A subprocess re-imports faiss, pandas and onnxruntime and loads MiniLM for every
command; here they are loaded once for the whole session. What only a separate process shows
(a kill, a signal, what stays unimported) keeps its own subprocess test."""

from __future__ import annotations

import contextlib
import io
import shutil
from dataclasses import dataclass
from pathlib import Path

from nemori_ui.cli import main


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str) -> Done:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:          # argparse refusing the arguments
            code = exc.code if isinstance(exc.code, int) else 2
    return Done(code, out.getvalue(), err.getvalue())


def copy_home(home: Path, into: Path) -> Path:
    """A copy of a finished home for a test to change: a run made once for the module, not
    once per test. The database's log goes with it, so what was committed is there."""
    shutil.copytree(home, into)
    return into
