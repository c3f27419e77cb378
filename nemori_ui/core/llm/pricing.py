"""What LLM calls cost: the price list and an estimate per model and in total."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping

from pydantic import BaseModel

from ..models import LLMCallRecord
from .servers import display_model, is_local_server

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

LOCAL = "local"
_SNAPSHOT = re.compile(r"-\d{4}-\d{2}-\d{2}$")


def model_label(c: LLMCallRecord) -> str:
    name = display_model(c.model)
    return f"{name} ({LOCAL})" if is_local_server(c.server) else name


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


class ModelCost(BaseModel):
    """One model's share of the bill: calls made, calls answered from the cache, tokens, and
    the cost in US dollars (None while its price is unknown)."""
    model: str
    calls: int = 0
    cached: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    local: bool = False
    cost: float | None = 0.0


class CostEstimate(BaseModel):
    total: float | None = 0.0       # None as soon as one model that spent tokens has no price
    by_model: list[ModelCost] = []
    unknown: list[str] = []         # the models whose price is missing


def estimate_cost(calls: Iterable[LLMCallRecord],
                  prices: Mapping[str, tuple] = DEFAULT_PRICES) -> CostEstimate:
    """Cost per model and in total, in US dollars; None wherever a price is unknown.

    The total is None as soon as one model that spent tokens has no price: a partial sum
    would read as the whole bill. A model on a local server (localhost, a private address)
    costs nothing and is labelled local.
    """
    per_model: dict[str, tuple[ModelCost, str]] = {}
    for c in calls:
        label = model_label(c)
        row, _ = per_model.setdefault(
            label, (ModelCost(model=label, local=is_local_server(c.server)), c.model))
        if c.cached:
            row.cached += 1
            continue
        row.calls += 1
        row.input_tokens += c.input_tokens
        row.output_tokens += c.output_tokens
    total: float | None = 0.0
    for row, model_id in per_model.values():
        price = (0.0, 0.0) if row.local else price_for(model_id, prices)
        if price is None:
            row.cost = None if row.input_tokens or row.output_tokens else 0.0
        else:
            row.cost = (row.input_tokens * price[0] + row.output_tokens * price[1]) / 1e6
        if row.cost is None:
            total = None
        elif total is not None:
            total += row.cost
    rows = [row for row, _ in per_model.values()]
    return CostEstimate(total=total, by_model=rows,
                        unknown=[r.model for r in rows if r.cost is None])
