"""The Calls page's content: every LLM call, totals per stage and prompt, and a cost estimate.

Tokens are counted as spent only for calls that reached the backend: a cache hit costs
nothing, whatever tokens its original call used.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

import pandas as pd

from ..models import LLMCallRecord
from ..prompts import STAGE_OF

# US dollars per million tokens (input, output), from the providers' public price lists as
# of 2025. These are estimates the user edits on the Calls page; a model missing from the
# table, or with an empty price, is costed as unknown, never as free.
DEFAULT_PRICES: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1": (2.00, 8.00),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1-nano": (0.10, 0.40),
    "o4-mini": (1.10, 4.40),
}

PRICE_COLUMNS = ["model", "input_per_1m", "output_per_1m"]
CALL_COLUMNS = ["id", "stage", "prompt", "model", "status", "cached", "input_tokens",
                "output_tokens", "latency_s", "attempts", "error", "response"]
TOTAL_COLUMNS = ["calls", "cached", "failed", "input_tokens", "output_tokens", "latency_s"]
_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def stage_of(prompt_name: str) -> str:
    return STAGE_OF.get(prompt_name, prompt_name)


def _preview(text: str | None, limit: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def call_table(calls: Iterable[LLMCallRecord]) -> pd.DataFrame:
    rows = [{"id": c.id, "stage": stage_of(c.prompt_name), "prompt": c.prompt_name,
             "model": c.model, "status": c.status, "cached": c.cached,
             "input_tokens": c.input_tokens, "output_tokens": c.output_tokens,
             "latency_s": round(c.latency_s, 3), "attempts": c.attempts, "error": c.error or "",
             "response": _preview(c.response_text)} for c in calls]
    return pd.DataFrame(rows, columns=CALL_COLUMNS)


def totals(calls: Iterable[LLMCallRecord], by: str = "stage") -> pd.DataFrame:
    """Per stage (or per prompt): calls, cache hits, failures, tokens spent, latency."""
    if by not in ("stage", "prompt"):
        raise ValueError("by must be 'stage' or 'prompt'")
    groups: dict[str, dict] = {}
    for c in calls:
        name = stage_of(c.prompt_name) if by == "stage" else c.prompt_name
        g = groups.setdefault(name, dict.fromkeys(TOTAL_COLUMNS, 0))
        g["calls"] += 1
        g["cached"] += int(c.cached)
        g["failed"] += int(c.status == "failed")
        if not c.cached:
            g["input_tokens"] += c.input_tokens
            g["output_tokens"] += c.output_tokens
        g["latency_s"] += c.latency_s
    frame = pd.DataFrame([{by: k, **v} for k, v in groups.items()], columns=[by, *TOTAL_COLUMNS])
    frame["latency_s"] = frame["latency_s"].astype(float).round(3)
    return frame.sort_values("calls", ascending=False, kind="stable").reset_index(drop=True)


def _known(value) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def listed_price(model: str, prices: Mapping[str, tuple]) -> tuple[float | None, float | None]:
    """The model's (input, output) $/1M as listed, also for a dated snapshot of a listed
    model; each None where no price is known."""
    for name in (model, _SNAPSHOT.sub("", model)):
        pair = prices.get(name)
        if pair is not None and len(pair) == 2:
            return tuple(float(p) if _known(p) else None for p in pair)
    return None, None


def price_for(model: str, prices: Mapping[str, tuple]) -> tuple[float, float] | None:
    """The model's (input, output) $/1M; None unless both are known."""
    pair = listed_price(model, prices)
    return pair if None not in pair else None


def estimate_cost(calls: Iterable[LLMCallRecord], prices: Mapping[str, tuple]) -> dict:
    """Cost per model and in total, in US dollars; None wherever a price is unknown.

    The total is None as soon as one model that spent tokens has no price: a partial sum
    would read as the whole bill.
    """
    per_model: dict[str, dict] = {}
    for c in calls:
        row = per_model.setdefault(c.model, {"model": c.model, "calls": 0, "input_tokens": 0,
                                             "output_tokens": 0})
        row["calls"] += 1
        if not c.cached:
            row["input_tokens"] += c.input_tokens
            row["output_tokens"] += c.output_tokens
    total: float | None = 0.0
    for row in per_model.values():
        price = price_for(row["model"], prices)
        spent = row["input_tokens"] or row["output_tokens"]
        if price is None:
            row["cost"] = None if spent else 0.0
        else:
            row["cost"] = (row["input_tokens"] * price[0] + row["output_tokens"] * price[1]) / 1e6
        if row["cost"] is None:
            total = None
        elif total is not None:
            total += row["cost"]
    return {"total": total, "by_model": list(per_model.values()),
            "unknown": [r["model"] for r in per_model.values() if r["cost"] is None]}


def format_cost(cost: float | None) -> str:
    if cost is None:
        return "unknown"
    return f"${cost:,.4f}" if cost < 1 else f"${cost:,.2f}"


def price_rows(prices: Mapping[str, tuple] = DEFAULT_PRICES) -> list[dict]:
    return [{"model": m, "input_per_1m": p[0], "output_per_1m": p[1]} for m, p in prices.items()]


def prices_from_rows(rows: Iterable[Mapping]) -> dict[str, tuple]:
    """The price table as edited: rows without a model name are ignored, empty cells stay
    unknown."""
    out = {}
    for r in rows:
        model = str(r.get("model") or "").strip()
        if model:
            out[model] = (r.get("input_per_1m"), r.get("output_per_1m"))
    return out


def with_models(rows: list[dict], models: Iterable[str]) -> list[dict]:
    """The rows plus an empty-priced row for each model that has none, so it can be filled in."""
    listed = prices_from_rows(rows)
    missing = [m for m in dict.fromkeys(models)
               if m not in listed and _SNAPSHOT.sub("", m) not in listed]
    return rows + [{"model": m, "input_per_1m": None, "output_per_1m": None} for m in missing]


def apply_edits(rows: list[dict], edits: Mapping) -> list[dict]:
    """A table's rows after a data editor's pending edits (edited, deleted and added rows,
    positions referring to `rows`)."""
    out = [dict(r) for r in rows]
    for pos, change in (edits.get("edited_rows") or {}).items():
        pos = int(pos)
        if 0 <= pos < len(out):
            out[pos].update(change)
    deleted = {int(p) for p in edits.get("deleted_rows") or []}
    out = [r for i, r in enumerate(out) if i not in deleted]
    out += [dict(r) for r in edits.get("added_rows") or []]
    return out
