"""docs/command-line.md is the command line's own help, as nemori_ui/cli/reference.py renders
it from the argument parser: an option added, renamed or reworded shows up here until the page
is written again, so the documented commands never drift from the real ones."""

from __future__ import annotations

from nemori_ui.cli.commands import COMMANDS
from nemori_ui.cli.reference import COMMAND, commands, render
from tests.conftest import ROOT

PAGE = ROOT / "docs" / "command-line.md"


def test_the_command_line_page_is_the_parsers_help():
    assert PAGE.read_text(encoding="utf-8") == render(), (
        f"docs/command-line.md is out of date: run `{COMMAND}`")


def test_every_command_has_its_section():
    page = PAGE.read_text(encoding="utf-8")
    names = [name for name, _ in commands() if name]
    assert set(COMMANDS) <= set(names)
    assert "eval locomo" in names and "eval longmemeval" in names
    for name in names:
        assert f"\n## {name}\n" in page, f"no section for `{name}`: run `{COMMAND}`"
        assert f"usage: python -m nemori_ui {name} " in page, name
