"""Command line: ``python -m nemori_ui <command> ...``.

Each command is a module ``nemori_ui.cli.<name>`` listed in COMMANDS, with
``add_parser(subparsers)`` (registering a sub-command called <name>) and ``run(args) -> int``.
Only the module of the command being run is imported (none for ``--help`` or a bad command,
which list the commands from commands.py), so a command that needs numpy or an LLM client does
not slow down `inspect` or `--help`, and a command whose optional dependency is missing does
not break the others.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import sys
from collections.abc import Iterator

from ..core.errors import InputError, LLMFailure, StoreError
from .commands import COMMANDS

def build_parser(names: list[str] | None = None) -> tuple[argparse.ArgumentParser, dict]:
    """The parser with the full options of the commands in `names` (every command when None);
    the others are listed by name and help only."""
    parser = argparse.ArgumentParser(
        prog="python -m nemori_ui",
        description="Nemori Inspector: run the Nemori memory pipeline on a transcript.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    modules = {}
    for name, text in COMMANDS.items():
        if names is not None and name not in names:
            subparsers.add_parser(name, help=text)
            continue
        module = importlib.import_module(f"{__name__}.{name}")
        module.add_parser(subparsers)
        modules[name] = module
    return parser, modules


# `kill` (SIGTERM), a closed terminal (SIGHUP) and Ctrl-C end a command the same way: the
# calls in flight are cut off and recorded as interrupted, the run is marked interrupted and
# resumes when the command is run again. Python's default for SIGTERM and SIGHUP would end the
# process on the spot, without a word stored.
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


STOPPING = "nemori_ui.core.llm.stopping"


def _stop(signum, frame) -> None:
    # no import here: the signal may land in the middle of one. Before the LLM code is
    # loaded no call can be in flight.
    stopping = sys.modules.get(STOPPING)
    if stopping is not None:
        stopping.request()      # the threads waiting for replies see it and give up
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextlib.contextmanager
def stop_signals_interrupt() -> Iterator[None]:
    """Inside the block a stop signal raises KeyboardInterrupt; the previous handlers are back
    after it (a command run inside another program leaves that program's handlers alone)."""
    try:
        before = {sig: signal.signal(sig, _stop) for sig in STOP_SIGNALS}
    except ValueError:          # not the main thread: signals are not ours to take
        yield
        return
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        if STOPPING in sys.modules:
            sys.modules[STOPPING].clear()


def main(argv: list[str] | None = None) -> int:
    with stop_signals_interrupt():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # The first word that is not an option names the command (no global options exist).
    wanted = next((a for a in argv if not a.startswith("-")), None)
    parser, modules = build_parser([wanted] if wanted in COMMANDS else [])
    args = parser.parse_args(argv)
    try:
        return int(modules[args.command].run(args) or 0)
    except (InputError, StoreError, LLMFailure) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyError as exc:  # an unknown run or conversation id
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, and keep Python's exit-time flush
        # of stdout from raising again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:
        # a backend that refused (bad key, unknown model) or anything unforeseen: one clear
        # line, with the run left resumable; NEMORI_DEBUG=1 shows the traceback
        if os.environ.get("NEMORI_DEBUG"):
            raise
        print(f"error: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
