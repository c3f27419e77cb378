"""How often the engine decided as its readers say it should have, for an evaluation's report.

A reader marks decisions on the runs an evaluation built its memory in (Knowledge, Prediction
error and Partitions mark consolidations, distillations and partitions). The marks are read
when the report is drawn, not when the evaluation ran: a mark added later counts, and a repeated
evaluation answered from the same memory reports them at once.
"""

from __future__ import annotations

from pydantic import BaseModel

from ..csv_cells import csv_text
from ..store import Store
from ..store.marks import Mark, agreement, load_marks

# the stage each page marks, in the order the pages come; a stage outside them keeps its name
MARKED_ON = {"consolidate": "knowledge", "distill": "prediction error", "partition": "partitions"}
COLUMNS = ["eval_id", "stage", "page", "marked", "right", "wrong", "share_right"]


class StageAgreement(BaseModel):
    stage: str                   # the stage event's name: consolidate, distill, partition...
    page: str                    # where a reader marks it
    marked: int
    right: int
    share: float | None          # of the marked decisions, those the reader calls right

    @property
    def wrong(self) -> int:
        return self.marked - self.right


def stage_agreement(marks: list[Mark]) -> list[StageAgreement]:
    """Per stage, marked decisions and the share marked right: the three marked stages always
    (0 marked, share None, when none is), then any other stage that holds a mark."""
    stages = list(MARKED_ON) + sorted({m.stage for m in marks} - set(MARKED_ON))
    found = {a.stage: a for a in agreement(marks)}
    return [StageAgreement(stage=stage, page=MARKED_ON.get(stage, stage),
                           marked=found[stage].marked if stage in found else 0,
                           right=found[stage].right if stage in found else 0,
                           share=found[stage].share if stage in found else None)
            for stage in stages]


def eval_marks(store: Store, memory_runs: dict[str, str]) -> list[Mark]:
    """The marks on every run the evaluation built or reused its memory in."""
    return [m for run_id in dict.fromkeys(memory_runs.values())
            for m in load_marks(store, run_id)]


def agreement_text(rows: list[StageAgreement]) -> str:
    """One line for a report: each stage's marked count and share right."""
    if not any(r.marked for r in rows):
        return ("readers' marks: none yet on this evaluation's memory (mark decisions on "
                "Knowledge, Prediction error or Partitions)")
    parts = [f"{r.page} {r.right} of {r.marked} right ({100 * r.share:.0f} %)" if r.marked
             else f"{r.page} none marked" for r in rows]
    return "agreement with readers' marks: " + " · ".join(parts)


def agreement_json(rows: list[StageAgreement]) -> list[dict]:
    return [{"stage": r.stage, "page": r.page, "marked": r.marked, "right": r.right,
             "wrong": r.wrong, "share_right": r.share} for r in rows]


def agreement_csv(eval_id: str, rows: list[StageAgreement]) -> str:
    return csv_text(COLUMNS, [[eval_id, r.stage, r.page, r.marked, r.right, r.wrong,
                               "" if r.share is None else r.share] for r in rows])
