"""Pieces every sub-command shares: --home, opening the store, printing JSON."""

from __future__ import annotations

import json
import sys

from pydantic import ValidationError

from ..core.config import PipelineConfig
from ..core.errors import InputError
from ..core.store import open_store


def add_home(parser) -> None:
    parser.add_argument("--home", help="folder of the run store (default: $NEMORI_HOME or ~/.nemori_ui)")


def store_from(args):
    return open_store(getattr(args, "home", None))


def make_config(**settings) -> PipelineConfig:
    """PipelineConfig from command-line settings; a value out of range names its option."""
    try:
        return PipelineConfig(**settings)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = str(err["loc"][0]) if err["loc"] else "settings"
            option = f"--{field.replace('_', '-')}"
            why = err["msg"].replace("Input should be", "should be")
            problems.append(f"{option} {err.get('input')!r}: {why}")
        raise InputError("; ".join(problems)) from None


def print_json(obj) -> None:
    print(json.dumps(obj, indent=None, ensure_ascii=False, default=str))


class TerminalProgress:
    """A one-line progress bar on stderr; silent when stderr is not a terminal."""

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr      # the stderr of now, not of import time
        self.live = self.stream.isatty()

    def __call__(self, p) -> None:
        if not self.live:
            return
        width = 30
        done = int(width * p.window / max(1, p.windows_total))
        llm = p.llm or {}
        calls = f" · {llm.get('calls', 0)} calls, {llm.get('input_tokens', 0)} tok in" if llm else ""
        self.stream.write(f"\r[{'#' * done}{'.' * (width - done)}] window {min(p.window + 1, p.windows_total)}"
                          f"/{p.windows_total} {p.stage:<12}{calls}")
        self.stream.flush()
        if p.stage == "done":
            self.stream.write("\n")
