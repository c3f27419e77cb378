"""A sweep across conversations read back: each point's figures as mean ± sd over the
conversations it ran on, and how much of a figure's spread each parameter explains.

Pure functions of a table with one row per (point, conversation) run, so they are tested
without a store.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd


def spread(rows: pd.DataFrame, params: list[str], figures: list[str]) -> pd.DataFrame:
    """One row per point (its parameters), with `conversations` (how many it ran on) and per
    figure `<figure>_mean` and `<figure>_sd`. The sd is the sample sd (n - 1): a handful of
    conversations is a sample of the conversations a user cares about; with one it is NaN, as
    nothing says how a figure varies then. A figure missing on a run (no questions, no recall)
    is left out of that point's mean, not counted as zero."""
    keys = [p for p in params if p in rows]
    if rows.empty or not keys:
        return pd.DataFrame(columns=[*keys, "conversations"])
    grouped = rows.groupby(keys, sort=True, dropna=False)
    out = grouped.size().rename("conversations").reset_index()
    for figure in figures:
        if figure not in rows:
            continue
        values = pd.to_numeric(rows[figure], errors="coerce")
        stats = values.groupby([rows[k] for k in keys], sort=True, dropna=False).agg(
            ["mean", "std"]).reset_index(drop=True)
        out[f"{figure}_mean"] = stats["mean"].to_numpy()
        out[f"{figure}_sd"] = stats["std"].to_numpy()
    return out


# the figures a sweep's table shows, in this order, of those every run reports
SHOWN = ["evidence_recall", "episodes", "insights", "active_memories", "merges", "conflicts",
         "stored_tokens", "calls_made"]


def shown_figures(points: pd.DataFrame, candidates: list[str] = SHOWN) -> list[str]:
    """The figures worth a column: some point has a value, and LLM calls only when made."""
    return [f for f in candidates if f"{f}_mean" in points and points[f"{f}_mean"].notna().any()
            and not (f == "calls_made" and not points[f"{f}_mean"].any())]


def spread_table(points: pd.DataFrame, params: list[str], figures: list[str]) -> pd.DataFrame:
    """The points as read: parameters as written, how many conversations each ran on, and
    each figure as 'mean ± sd'; columns named by the figures."""
    table = points[params + ["conversations"]].copy()
    for p in params:
        table[p] = table[p].map(lambda v: f"{v:g}" if isinstance(v, float) else str(v))
    for f in figures:
        table[f] = [mean_sd(m, s) for m, s in zip(points[f"{f}_mean"], points[f"{f}_sd"])]
    return table


def mean_sd(mean: float | None, sd: float | None) -> str:
    """'0.412 ± 0.031', '12.5 ± 3.5', '325 ± 283'; a lone run shows its value only; no value
    shows '—'."""
    if mean is None or math.isnan(mean):
        return "—"
    if sd is None or math.isnan(sd):
        return _figure(mean)
    return f"{_figure(mean)} ± {_figure(sd, 2)}"


def _figure(value: float, digits: int = 3) -> str:
    """Significant digits, never an exponent: a token count reads as a count."""
    return f"{value:.0f}" if abs(value) >= 10 ** (digits - 1) else f"{value:.{digits}g}"


@dataclass(frozen=True)
class ParameterShare:
    """A swept parameter, how many values it took, and its η² for a figure (0 to 1)."""
    parameter: str
    levels: int
    share: float


def importance(points: pd.DataFrame, params: list[str], figure: str) -> list[ParameterShare]:
    """Per parameter swept (two levels or more), the share of the variance of `figure` across
    the points that lies between that parameter's levels: η² = between-level sum of squares /
    total sum of squares, on the points' means across conversations.

    Why η² rather than a correlation (W&B shows both, beside a random-forest importance): a
    variant or a management policy is a category, not a number, and a τ can act non-monotonely
    (more memories up to a point, fewer beyond), which a correlation reads as no effect; a
    forest fitted to a grid of a few points says more about its seed than the parameters. η² is
    exact on a full grid, reads as a share (0 to 1) of the spread, and needs no model. Means
    across conversations are used, so what differs between conversations (one is longer than
    another) is not taken for a parameter's effect. A figure that does not vary gives every
    parameter 0. Sorted from the most to the least important."""
    if figure not in points:
        return []
    values = pd.to_numeric(points[figure], errors="coerce")
    keep = values.notna()
    values = values[keep]
    total = float(((values - values.mean()) ** 2).sum())
    found = []
    for param in params:
        if param not in points:
            continue
        levels = points.loc[keep, param]
        if levels.nunique() < 2:
            continue
        by_level = values.groupby(levels)
        between = float((by_level.size() * (by_level.mean() - values.mean()) ** 2).sum())
        found.append(ParameterShare(parameter=param, levels=int(levels.nunique()),
                                    share=between / total if total > 0 else 0.0))
    return sorted(found, key=lambda r: -r.share)
