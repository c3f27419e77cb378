"""How sound a run's results are: its failed LLM calls and the decisions the fallback made.

A run whose calls failed still finishes, because the offline engine decides in their place;
"done" alone would hide that a third of the decisions were not the model's. Every listing of a
run (CLI, sidebar, Overview) shows these counts beside the status.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..stage_events import FALLBACK_KEYS
from .db import Store


class RunHealth(BaseModel):
    calls: int = 0          # LLM call records, cached or not
    failed_calls: int = 0   # calls that failed after their retries and repair
    fallbacks: int = 0      # decisions the offline engine made because a call failed or was unusable

    @property
    def degraded(self) -> bool:
        return bool(self.failed_calls or self.fallbacks)

    def describe(self) -> str:
        """'' for a clean run, else e.g. '12 of 36 LLM calls failed, 12 decisions by the fallback'."""
        if not self.degraded:
            return ""
        parts = []
        if self.failed_calls:
            parts.append(f"{self.failed_calls} of {self.calls} LLM calls failed")
        if self.fallbacks:
            parts.append(f"{self.fallbacks} decision{'s' if self.fallbacks != 1 else ''} "
                         "made by the offline fallback instead of the model")
        return ", ".join(parts)


def run_health(store: Store, run_ids: list[str] | None = None) -> dict[str, RunHealth]:
    """Health of the given runs (all runs when None); a run with no calls or events is clean."""
    where, params = "", ()
    if run_ids is not None:
        if not run_ids:
            return {}
        where = f" WHERE run_id IN ({', '.join('?' * len(run_ids))})"
        params = tuple(run_ids)
    found: dict[str, RunHealth] = {}
    calls = store.query(
        "SELECT run_id, count(*) AS calls, "
        "sum(json_extract(record, '$.status') = 'failed') AS failed "
        f"FROM llm_calls{where} GROUP BY run_id", params)
    for row in calls:
        found[row["run_id"]] = RunHealth(calls=row["calls"], failed_calls=row["failed"] or 0)
    # an integration can fall back twice: in choosing the episode and in writing the merge
    fell_back = " + ".join(f"sum(json_extract(payload, '$.{key}') IS NOT NULL)"
                           for key in FALLBACK_KEYS)
    events = store.query(f"SELECT run_id, {fell_back} AS n FROM events{where} GROUP BY run_id",
                         params)
    for row in events:
        if row["n"]:
            found.setdefault(row["run_id"], RunHealth()).fallbacks = row["n"]
    wanted = run_ids if run_ids is not None else [r["id"] for r in store.query("SELECT id FROM runs")]
    return {run_id: found.get(run_id, RunHealth()) for run_id in wanted}
