"""The Calls page's content: every LLM call, totals per stage and prompt, and a cost estimate.

Tokens are counted as spent only for calls that reached the backend: a cache hit costs
nothing, whatever tokens its original call used.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, replace

import pandas as pd

from ..llm.redact import redact_patterns
# the Calls page reads the price list and the estimate here, beside the calls they cost
from ..llm.pricing import (_SNAPSHOT, DEFAULT_PRICES, LOCAL, CostEstimate, estimate_cost,
                           listed_price, model_label, price_for)
from ..llm.usage import count_calls
from ..models import LLMCallRecord
from ..prompts import STAGE_OF

__all__ = ["PRICE_COLUMNS", "CALL_COLUMNS", "TOTAL_COLUMNS", "stage_of", "served_for", "masked",
           "call_table", "totals", "format_cost", "PriceRow", "price_rows", "prices_from_rows",
           "with_models", "apply_edits", "table3", "table9", "DEFAULT_PRICES", "LOCAL",
           "CostEstimate", "estimate_cost", "listed_price", "model_label", "price_for"]

PRICE_COLUMNS = ["model", "input_per_1m", "output_per_1m"]
CALL_COLUMNS = ["id", "stage", "prompt", "for", "model", "status", "cached", "input_tokens",
                "output_tokens", "latency_s", "requests", "retries", "error", "response"]
# calls: sent to the server; cached: answered from the cache (not among the calls sent)
TOTAL_COLUMNS = ["calls", "cached", "failed", "requests", "retries", "input_tokens",
                 "output_tokens", "latency_s"]


def stage_of(prompt_name: str) -> str:
    return STAGE_OF.get(prompt_name, prompt_name)


def _preview(text: str | None, limit: int = 160) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def served_for(c: LLMCallRecord) -> str:
    """What a call served: the run (and its window), Ask, an evaluation's question, the judge."""
    ctx = c.context or {}
    kind = ctx.get("kind") or "run"
    item = ctx.get("item_id")
    return f"{kind} {item}" if item else kind


def masked(text: str | None) -> str:
    """Text of a stored record as displayed: anything that looks like a credential masked,
    also in records stored before redaction covered replies."""
    return redact_patterns(text or "")


def call_table(calls: Iterable[LLMCallRecord]) -> pd.DataFrame:
    rows = [{"id": c.id, "stage": stage_of(c.prompt_name), "prompt": c.prompt_name,
             "for": served_for(c), "model": model_label(c), "status": c.status,
             "cached": c.cached, "input_tokens": c.input_tokens,
             "output_tokens": c.output_tokens, "latency_s": round(c.latency_s, 3),
             "requests": c.attempts, "retries": max(0, c.attempts - 1),
             "error": masked(c.error), "response": _preview(masked(c.response_text))}
            for c in calls]
    return pd.DataFrame(rows, columns=CALL_COLUMNS)


def totals(calls: Iterable[LLMCallRecord], by: str = "stage") -> pd.DataFrame:
    """Per stage (or per prompt): calls sent, cache hits, failures, requests, tokens spent,
    latency, counted as everywhere else (`count_calls`)."""
    if by not in ("stage", "prompt"):
        raise ValueError("by must be 'stage' or 'prompt'")
    groups: dict[str, list] = {}
    for c in calls:
        groups.setdefault(stage_of(c.prompt_name) if by == "stage" else c.prompt_name, []).append(c)
    rows = [{by: k, **{col: count_calls(v)[col] for col in TOTAL_COLUMNS}}
            for k, v in groups.items()]
    frame = pd.DataFrame(rows, columns=[by, *TOTAL_COLUMNS])
    frame["latency_s"] = frame["latency_s"].astype(float).round(3)
    frame = frame.assign(_all=frame["calls"] + frame["cached"])
    return frame.sort_values("_all", ascending=False, kind="stable").drop(columns="_all") \
        .reset_index(drop=True)


def format_cost(cost: float | None) -> str:
    if cost is None:
        return "unknown"
    return f"${cost:,.4f}" if cost < 1 else f"${cost:,.2f}"


@dataclass(frozen=True)
class PriceRow:
    """A row of the price table, US dollars per million tokens; None (or NaN, an emptied
    cell) is unknown."""
    model: str | None                   # None: a row added in the editor, not named yet
    input_per_1m: float | None = None
    output_per_1m: float | None = None

    def row(self) -> dict:
        """The row as the data editor shows it."""
        return asdict(self)


def _cells(row: Mapping) -> dict:
    """The price table's cells of an editor's row, whatever else it carries."""
    return {k: v for k, v in row.items() if k in PRICE_COLUMNS}


def price_rows(prices: Mapping[str, tuple] = DEFAULT_PRICES) -> list[PriceRow]:
    return [PriceRow(model=m, input_per_1m=p[0], output_per_1m=p[1]) for m, p in prices.items()]


def prices_from_rows(rows: Iterable[PriceRow]) -> dict[str, tuple]:
    """The price table as edited: rows without a model name are ignored, empty cells stay
    unknown."""
    out = {}
    for r in rows:
        model = str(r.model or "").strip()
        if model:
            out[model] = (r.input_per_1m, r.output_per_1m)
    return out


def with_models(rows: list[PriceRow], models: Iterable[str]) -> list[PriceRow]:
    """The rows plus an empty-priced row for each model that has none, so it can be filled in."""
    listed = prices_from_rows(rows)
    missing = [m for m in dict.fromkeys(models)
               if m not in listed and _SNAPSHOT.sub("", m) not in listed]
    return rows + [PriceRow(model=m) for m in missing]


def apply_edits(rows: list[PriceRow], edits: Mapping) -> list[PriceRow]:
    """A table's rows after a data editor's pending edits (edited, deleted and added rows,
    positions referring to `rows`)."""
    out = list(rows)
    for pos, change in (edits.get("edited_rows") or {}).items():
        pos = int(pos)
        if 0 <= pos < len(out):
            out[pos] = replace(out[pos], **_cells(change))
    deleted = {int(p) for p in edits.get("deleted_rows") or []}
    out = [r for i, r in enumerate(out) if i not in deleted]
    # an added row holds only the cells filled in
    out += [PriceRow(**{"model": None, **_cells(r)}) for r in edits.get("added_rows") or []]
    return out


# -- the paper's Table 9 --------------------------------------------------------------------

# Share of memory-construction tokens by stage in the paper (Table 9, LoCoMo, gpt-4o-mini).
PAPER_TABLE_9 = {"partition": 15, "narration": 38, "integration": 16, "semantic": 30}

# Where our call pattern differs from the paper's, stage by stage.
TABLE_9_NOTES = {
    "partition": "One call per window of w messages, as in the paper.",
    "narration": "One call per raw episode, as in the paper.",
    "integration": "A select call only for the first episode of each window, against episodes "
                   "of earlier windows (the official code's rule: the window's other episodes "
                   "were just separated by its partition), and a merge call per continuation "
                   "found. The offline engine decides integration without a call.",
    "semantic": "Anticipation is skipped when no memory is evoked above τ (as in the official "
                "code), so early episodes cost one distillation call only. The paper's share is "
                "close to what the official code's prompt sizes give with no prediction call at "
                "all (35 % on the test responder's conv-30 run): that code evokes a statement "
                "only at 0.7 on 1 - squared L2, a cosine of 0.85, where τ here predicts most "
                "episodes. Consolidation is in "
                "the paper and in the official code's consolidating branch, which gates it by "
                "similarity: with `gated` (the default) a call only for an insight with a stored "
                "memory above the gate or one it may contradict, with `always` "
                "one per insight that has stored neighbours, so this share can exceed the "
                "paper's; `off` makes none.",
}

# Table 3, gpt-4o-mini: calls and input tokens per LoCoMo conversation, 588 messages on average
PAPER_TABLE_3 = {"calls": 373, "input tokens": 277_000, "messages": 588}


def table3(calls: Iterable[LLMCallRecord], messages: int) -> pd.DataFrame:
    """Memory-construction calls and input tokens per message of conversation beside the
    paper's Table 3, so conversations of different lengths compare. Cache hits count as in
    Table 9: the figures are the shape of the work."""
    built = [c for c in calls if stage_of(c.prompt_name) in PAPER_TABLE_9]
    ours = {"calls": len(built), "input tokens": sum(c.input_tokens for c in built)}
    rows = []
    for what, value in ours.items():
        per = value / messages if messages else 0.0
        paper = PAPER_TABLE_3[what] / PAPER_TABLE_3["messages"]
        rows.append({"per message": what, "this run": round(per, 2), "paper": round(paper, 2),
                     "ratio": round(per / paper, 2), "this run, total": value,
                     "paper, per conversation": PAPER_TABLE_3[what]})
    return pd.DataFrame(rows)


def table9(calls: Iterable[LLMCallRecord]) -> pd.DataFrame:
    """Tokens (input + output) by construction stage beside the paper's Table 9 shares.
    Cache hits count with the tokens of their original call: the share is the shape of the
    work, wherever its reply came from."""
    spent: dict[str, int] = dict.fromkeys(PAPER_TABLE_9, 0)
    n: dict[str, int] = dict.fromkeys(PAPER_TABLE_9, 0)
    for c in calls:
        stage = stage_of(c.prompt_name)
        if stage in spent:
            spent[stage] += c.input_tokens + c.output_tokens
            n[stage] += 1
    total = sum(spent.values()) or 1
    rows = [{"stage": s, "calls": n[s], "tokens": spent[s],
             "share %": round(100 * spent[s] / total, 1), "paper %": PAPER_TABLE_9[s],
             "how ours differs": TABLE_9_NOTES[s]} for s in PAPER_TABLE_9]
    return pd.DataFrame(rows)
