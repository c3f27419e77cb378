"""Evaluation results shaped for reading: tables beside the paper's figures, the comparison of
variants, the question list, and the retrieved context with the evidence marked."""

from __future__ import annotations

import pandas as pd

from ..deciders.offline import OFFLINE_LABEL
from ..prompts import answer
from . import paper
from .ablations import VARIANTS
from .qa import category_name
from .results import EvalRun, QuestionResult

QUALITY = [("questions", "n"), ("judge", "judge"), ("f1", "F1"), ("bleu1", "BLEU-1"),
           ("recall", "recall@k")]
COST = [("context_tokens", "tokens"), ("retrieval_ms", "retrieval ms"), ("total_ms", "total ms")]
PAPER = [("judge", "paper judge"), ("f1", "paper F1"), ("bleu1", "paper BLEU-1")]


def paper_row_name(run: EvalRun) -> str | None:
    return VARIANTS[run.variant].paper if run.variant in VARIANTS else None


def scoring_note(run: EvalRun) -> str:
    """What the run's F1 and BLEU-1 were computed on, to be said beside every table of them."""
    if run.decider == OFFLINE_LABEL:
        return ("F1 and BLEU-1 score the offline engine's answer, the retrieved sentence that "
                "best matches the question")
    return answer.SCORING[run.config.prompts]


def _groups(run: EvalRun, with_paper: bool) -> dict[str, dict]:
    s = run.summary
    groups = dict(s["by_category"])
    if run.benchmark == "locomo":
        if with_paper:
            # the paper's categories we have no question of still show, beside its figures
            for key in ("1", "2", "3", "4"):
                groups.setdefault(key, {"name": category_name(key), "questions": 0})
        groups = {k: groups[k] for k in sorted(groups, key=lambda k: (not k.isdigit(), k))}
    groups["overall"] = {"name": "overall", **s["overall"]}
    return groups


def _judged(run: EvalRun) -> bool:
    return bool(run.summary["overall"].get("judged"))


def category_table(run: EvalRun, model: str | None) -> pd.DataFrame:
    """One row per category and overall, each of our figures beside the paper's for `model`."""
    published = paper.locomo_row(model, paper_row_name(run)) \
        if model and run.benchmark == "locomo" else None
    lme = paper.longmemeval_figures(model, "Full Context" if run.variant == "full-context"
                                    else "Nemori") if model and run.benchmark == "longmemeval" \
        else None
    rows = []
    for key, g in _groups(run, published is not None).items():
        row = {"category": g.get("name", key), "n": g.get("questions")}
        p = (published or {}).get(key, {})
        if _judged(run):
            row["judge"] = g.get("judge")
        if published is not None:
            row["paper judge"] = p.get("judge")
        elif lme is not None:
            row["paper judge"] = lme.get(key)
        for field, label in (("f1", "F1"), ("bleu1", "BLEU-1")):
            row[label] = g.get(field)
            if published is not None:
                row[f"paper {label}"] = p.get(field)
        row["recall@k"] = g.get("recall")
        row["recall@k, episodes only"] = g.get("recall_episodes")
        rows.append(row)
    return pd.DataFrame(rows)


def cost_table(run: EvalRun, model: str | None) -> pd.DataFrame:
    """Context size and latency per question; Table 4's figures where the paper has them."""
    rows = []
    for key, g in _groups(run, False).items():
        row = {"category": g.get("name", key)}
        row.update({label: g.get(field) for field, label in COST})
        rows.append(row)
    name = paper_row_name(run)
    if model == "gpt-4o-mini" and name in paper.RESPONSE_TIME and run.benchmark == "locomo":
        _, tokens, search, total = paper.RESPONSE_TIME[name]
        rows.append({"category": "paper, Table 4 (overall)", "tokens": tokens,
                     "retrieval ms": search, "total ms": total})
    return pd.DataFrame(rows)


def comparable(runs: list[EvalRun], run: EvalRun) -> list[EvalRun]:
    """The newest evaluation of each variant on the same questions with the same models,
    prompts and judge rubric (a strict judge's scores do not sit beside a paper judge's)."""
    def scope(r: EvalRun):
        o = r.options
        return (r.benchmark, r.source, tuple(o.get("conversations") or ()),
                tuple(o.get("categories") or ()), tuple(o.get("types") or ()), o.get("limit"),
                o.get("k"), r.decider, r.config.embedder, r.config.prompts,
                o.get("judge_prompts", "strict"))
    newest: dict[str, EvalRun] = {}
    for r in sorted(runs, key=lambda r: (r.created_at, r.id), reverse=True):
        if scope(r) == scope(run) and r.variant not in newest:
            newest[r.variant] = r
    order = list(VARIANTS)
    return sorted(newest.values(), key=lambda r: order.index(r.variant)
                  if r.variant in order else len(order))


def comparison_table(runs: list[EvalRun], model: str | None) -> pd.DataFrame:
    judged = any(_judged(r) for r in runs)
    rows = []
    for r in runs:
        o = r.summary["overall"]
        name = paper_row_name(r)
        row = {"variant": VARIANTS[r.variant].label if r.variant in VARIANTS else r.variant}
        row.update({label: o.get(field) for field, label in QUALITY
                    if field != "judge" or judged})
        row.update({label: o.get(field) for field, label in COST})
        published = paper.locomo_row(model, name) if model and r.benchmark == "locomo" else None
        row["paper row"] = f"{name} ({paper.table_of(name)})" if published else (name or "")
        overall = (published or {}).get("overall", {})
        row.update({label: overall.get(field) for field, label in PAPER})
        rows.append(row)
    return pd.DataFrame(rows)


def missing_variants(runs: list[EvalRun]) -> list[str]:
    have = {r.variant for r in runs}
    return [name for name in VARIANTS if name not in have]


def verdict_text(r: QuestionResult) -> str:
    return r.verdict or ("judge failed" if r.verdict_reason else "—")


def question_table(rows: list[QuestionResult]) -> pd.DataFrame:
    return pd.DataFrame([{
        "item": r.item_id, "category": category_name(r.category), "question": r.question,
        "gold": r.gold, "answer": r.answer, "judge": verdict_text(r),
        "F1": round(100 * r.f1, 1), "BLEU-1": round(100 * r.bleu1, 1),
        "evidence found": "—" if r.recall is None else
        f"{sum(e['found'] for e in r.evidence)}/{len(r.evidence)}",
        "in episodes": "—" if r.recall_episodes is None else
        f"{sum(bool(e.get('in_episodes')) for e in r.evidence)}/{len(r.evidence)}",
        "tokens": r.context_tokens} for r in rows])


def filter_questions(rows: list[QuestionResult], *, categories: list[str] | None = None,
                     verdict: str = "all", missed_evidence: bool = False,
                     text: str = "") -> list[QuestionResult]:
    out = []
    needle = text.strip().lower()
    for r in rows:
        if categories and category_name(r.category) not in categories:
            continue
        if verdict == "correct" and r.correct is not True:
            continue
        if verdict == "wrong" and r.correct is not False:
            continue
        if missed_evidence and r.recall != 0.0:
            continue
        if needle and needle not in f"{r.question} {r.gold} {r.answer}".lower():
            continue
        out.append(r)
    return out


def context_lines(context: str, r: QuestionResult) -> list[tuple[str, str]]:
    """(line, mark) for each context line: "evidence" for an evidence turn itself, "episode"
    for the title of a retrieved episode that holds one, "" otherwise."""
    turns = [f"{e['speaker']}: {(e['text'].splitlines() or [''])[0]}" for e in r.evidence
             if e.get("text")]
    wanted = {e["message_id"] for e in r.evidence if e.get("message_id")}
    holding = [f"- {ep['cue']}" for ep in r.retrieved.get("episodes", [])
               if wanted & set(ep.get("message_ids", []))]
    out = []
    for line in context.splitlines():
        if any(t and t in line for t in turns):
            out.append((line, "evidence"))
        elif line in holding:
            out.append((line, "episode"))
        else:
            out.append((line, ""))
    return out
