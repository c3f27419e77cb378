"""Evaluation results: per-question records, their summary by category, the run store, CSV.

Scores are reported on the paper's 0-100 scale. A question the judge could not grade, or whose
evidence cannot be checked, is left out of that one average (the counts say how many were
graded), never counted as wrong.
"""

from __future__ import annotations

import json
import secrets
from datetime import datetime, timezone

from pydantic import BaseModel, Field

from ..config import PipelineConfig
from ..csv_cells import csv_text
from ..store import Store
from .metrics import mean
from .qa import category_name


class QuestionResult(BaseModel):
    item_id: str
    conversation_id: str
    category: str
    question: str
    gold: str
    answer: str
    f1: float
    bleu1: float
    correct: bool | None = None          # the judge's verdict; None: not judged
    verdict: str | None = None
    verdict_reason: str = ""
    # ref, message_id, speaker, text, found (anywhere in the context), in_episodes
    evidence: list[dict] = Field(default_factory=list)
    recall: float | None = None          # 1 when the context holds every evidence turn
    evidence_share: float | None = None  # the share of evidence turns the context holds
    recall_episodes: float | None = None          # the same, counting retrieved episodes only
    evidence_share_episodes: float | None = None
    context_tokens: int = 0
    retrieval_ms: float = 0.0
    total_ms: float = 0.0
    retrieved: dict = Field(default_factory=dict)
    abstention: bool = False
    question_date: str | None = None
    fallback: str | None = None          # the offline engine answered because the LLM failed
    notes: list[str] = Field(default_factory=list)


class EvalRun(BaseModel):
    id: str
    created_at: str
    benchmark: str
    variant: str
    source: str
    decider: str
    judge: str | None
    config: PipelineConfig
    options: dict
    memory_runs: dict[str, str]
    summary: dict
    seconds: float


def _pct(value: float | None) -> float | None:
    return None if value is None else round(100 * value, 2)


def aggregate(rows: list[QuestionResult]) -> dict:
    judged = [r.correct for r in rows if r.correct is not None]
    recalls = [r.recall for r in rows if r.recall is not None]
    return {
        "questions": len(rows),
        "judge": _pct(mean([float(c) for c in judged])), "judged": len(judged),
        "f1": _pct(mean(r.f1 for r in rows)), "bleu1": _pct(mean(r.bleu1 for r in rows)),
        "recall": _pct(mean(recalls)), "recall_questions": len(recalls),
        "evidence_share": _pct(mean(r.evidence_share for r in rows)),
        "recall_episodes": _pct(mean(r.recall_episodes for r in rows)),
        "evidence_share_episodes": _pct(mean(r.evidence_share_episodes for r in rows)),
        "context_tokens": _round(mean(r.context_tokens for r in rows), 1),
        "retrieval_ms": _round(mean(r.retrieval_ms for r in rows), 2),
        "total_ms": _round(mean(r.total_ms for r in rows), 2),
    }


def _round(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _category_order(key: str):
    return (0, int(key), "") if key.isdigit() else (1, 0, key)


def scores(rows: list[QuestionResult]) -> dict:
    """The evaluation's summary: its scores overall and by category."""
    groups: dict[str, list[QuestionResult]] = {}
    for r in rows:
        groups.setdefault(r.category, []).append(r)
    by_category = {key: {"name": category_name(key), **aggregate(groups[key])}
                   for key in sorted(groups, key=_category_order)}
    out = {"overall": aggregate(rows), "by_category": by_category, "questions": len(rows)}
    abstaining = [r for r in rows if r.abstention]
    if abstaining:
        out["abstention"] = aggregate(abstaining)
    return out


def created_now() -> str:
    # to the microsecond: evaluations started in the same second still list in order
    return datetime.now(timezone.utc).isoformat()


def new_eval_id() -> str:
    return "eval-" + datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S-") + secrets.token_hex(3)


def save(store: Store, run: EvalRun, rows: list[QuestionResult],
         contexts: list[str | None]) -> None:
    with store.tx() as conn:
        conn.execute(
            "INSERT INTO eval_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run.id, run.created_at, run.benchmark, run.variant, run.source, run.decider,
             run.judge, run.config.model_dump_json(), json.dumps(run.options),
             json.dumps(run.memory_runs), json.dumps(run.summary), run.seconds))
        conn.executemany(
            "INSERT INTO eval_questions VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(run.id, i, r.item_id, r.conversation_id, r.category, r.model_dump_json(), ctx)
             for i, (r, ctx) in enumerate(zip(rows, contexts))])


def _run(row) -> EvalRun:
    return EvalRun(id=row["id"], created_at=row["created_at"], benchmark=row["benchmark"],
                   variant=row["variant"], source=row["source"], decider=row["decider"],
                   judge=row["judge"],
                   config=PipelineConfig.from_stored(row["config_json"]),
                   options=json.loads(row["options_json"]),
                   memory_runs=json.loads(row["memory_runs"]),
                   summary=json.loads(row["summary_json"]), seconds=row["seconds"])


def list_evals(store: Store) -> list[EvalRun]:
    rows = store.query("SELECT * FROM eval_runs ORDER BY created_at DESC, rowid DESC")
    return [_run(r) for r in rows]


def get_eval(store: Store, eval_id: str) -> EvalRun:
    rows = store.query("SELECT * FROM eval_runs WHERE id = ?", (eval_id,))
    if not rows:
        raise KeyError(f"no evaluation '{eval_id}' in {store.path}")
    return _run(rows[0])


def load_questions(store: Store, eval_id: str) -> list[QuestionResult]:
    rows = store.query("SELECT result_json FROM eval_questions WHERE eval_id = ? ORDER BY seq",
                       (eval_id,))
    return [QuestionResult.model_validate_json(r["result_json"]) for r in rows]


def load_context(store: Store, eval_id: str, item_id: str) -> str | None:
    rows = store.query("SELECT context FROM eval_questions WHERE eval_id = ? AND item_id = ?",
                       (eval_id, item_id))
    return rows[0]["context"] if rows else None


def delete_eval(store: Store, eval_id: str) -> None:
    with store.tx() as conn:
        conn.execute("DELETE FROM eval_questions WHERE eval_id = ?", (eval_id,))
        conn.execute("DELETE FROM eval_runs WHERE id = ?", (eval_id,))


def summary_json(run: EvalRun) -> dict:
    """What `eval --json` prints for one evaluation."""
    s = run.summary
    return {"overall": s["overall"], "by_category": s["by_category"], "questions": s["questions"],
            "skipped": s.get("skipped", {}), "eval_id": run.id, "benchmark": run.benchmark,
            "variant": run.variant, "decider": run.decider, "judge": s.get("judge"),
            **({"abstention": s["abstention"]} if "abstention" in s else {}),
            "seconds": round(run.seconds, 3)}


QUESTION_COLUMNS = ["eval_id", "variant", "conversation", "item", "category", "category_name",
                    "question", "gold", "answer", "judge", "judge_reason", "f1", "bleu1",
                    "evidence", "evidence_found", "evidence_in_episodes", "recall",
                    "recall_episodes", "context_tokens", "retrieval_ms",
                    "total_ms", "notes"]
SUMMARY_COLUMNS = ["eval_id", "variant", "group", "name", "questions", "judge", "judged", "f1",
                   "bleu1", "recall", "recall_questions", "evidence_share", "recall_episodes",
                   "evidence_share_episodes", "context_tokens",
                   "retrieval_ms", "total_ms"]


def _csv(columns: list[str], rows: list[list]) -> str:
    return csv_text(columns, rows)      # formula-like text neutralised


def questions_csv(run: EvalRun, rows: list[QuestionResult]) -> str:
    return _csv(QUESTION_COLUMNS, [[
        run.id, run.variant, r.conversation_id, r.item_id, r.category, category_name(r.category),
        r.question, r.gold, r.answer, r.verdict or "", r.verdict_reason, round(r.f1, 4),
        round(r.bleu1, 4), " ".join(e["ref"] for e in r.evidence),
        " ".join(e["ref"] for e in r.evidence if e.get("found")),
        " ".join(e["ref"] for e in r.evidence if e.get("in_episodes")),
        "" if r.recall is None else r.recall,
        "" if r.recall_episodes is None else r.recall_episodes, r.context_tokens, round(r.retrieval_ms, 2),
        round(r.total_ms, 2), "; ".join(r.notes)] for r in rows])


def summary_csv(runs: list[EvalRun]) -> str:
    rows = []
    for run in runs:
        groups = [("overall", {"name": "overall", **run.summary["overall"]})]
        groups += list(run.summary["by_category"].items())
        for key, g in groups:
            rows.append([run.id, run.variant, key] + ["" if g.get(c) is None else g.get(c)
                                                     for c in SUMMARY_COLUMNS[3:]])
    return _csv(SUMMARY_COLUMNS, rows)

