"""Small rewrites that make stored text and tables read well on a page."""

from __future__ import annotations

import re

import pandas as pd

_GAP = re.compile(r"(\d+(?:\.\d+)?) h\b")


def duration(hours: float) -> str:
    """849.2 → '35 d 9 h', 5.5 → '5 h 30 min', 0.25 → '15 min'."""
    minutes = int(round(hours * 60))
    days, rest = divmod(minutes, 24 * 60)
    h, m = divmod(rest, 60)
    if days:
        return f"{days} d {h} h" if h else f"{days} d"
    if h:
        return f"{h} h {m} min" if m else f"{h} h"
    return f"{m} min"


def readable_gaps(text: str) -> str:
    """'time gap of 849.2 h' → 'time gap of 35 d 9 h' (the offline engine states gaps in
    hours; runs stored earlier keep that text, so it is rewritten where it is shown)."""
    return _GAP.sub(lambda m: duration(float(m.group(1))), text or "")


def without_constant(frame: pd.DataFrame, column: str, value=True) -> pd.DataFrame:
    """The frame without `column` when every row holds `value`: a column that always says the
    same thing takes room from the ones that differ."""
    if column in frame and len(frame) and (frame[column] == value).all():
        return frame.drop(columns=[column])
    return frame
