"""Which saved run the Run page's saved-run controls act on, what their rename box shows and
how a button names the run: pure rules, apart from the widgets, so they are tested alone.

The select's widget keeps its choice by its label ("name · id"), and a rename, here or in
another tab, changes the label: left alone, Streamlit finds no option with the old label and
falls back to the first run. The page therefore works out the run before each draw and sets
the widget to it.
"""

from __future__ import annotations

from .safe import md_escape

NAME_CHARS = 32     # of a run's name inside a button label; the whole name is in its help


def acted_on(ids: list[str], *candidates: object) -> str:
    """The run the controls act on: the first candidate that is still a run (the one picked,
    the one acted on last, the one the pages show), else the newest (`ids` is newest first
    and not empty). A candidate may be anything the widget kept, such as a stale label."""
    for candidate in candidates:
        if candidate in ids:
            return candidate
    return ids[0]


def box_refill(filled_for: tuple[str, str] | None, run_id: str, name: str) -> str | None:
    """What the rename box must be set to now: the run's stored name when the box was filled
    for another run or before the run's name changed (renamed here or elsewhere); None
    leaves what the user is typing alone."""
    return None if filled_for == (run_id, name) else name


def quoted(name: str, limit: int = NAME_CHARS) -> str:
    """The run's name as a button label says it: in quotes, cut to `limit` characters, and
    escaped (labels render markdown, names come from files)."""
    shown = name if len(name) <= limit else name[:limit - 1].rstrip() + "…"
    return f"“{md_escape(shown)}”"
