"""An evaluation reports the engine's agreement with readers' marks on the memory it answered
from: per stage, how many decisions were marked and the share marked right, on the command
line (table and --json) and in the CSV the Evaluation page offers."""

from __future__ import annotations

import json

import pytest

from nemori_ui.core.eval import results
from nemori_ui.core.eval.agreement import (agreement_csv, agreement_text, eval_marks,
                                           stage_agreement)
from nemori_ui.core.store import marks, open_store, records
from nemori_ui.core.store.marks import Mark
from tests.cli_runner import run_cli
from tests.conftest import ROOT, run_sample

SMALL = ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json"


def mark(stage: str, verdict: str, seq: int = 0) -> Mark:
    return Mark(run_id="r", seq=seq, stage=stage, verdict=verdict, marked_at="2024-01-01")


def test_each_marked_stage_is_reported_in_page_order_even_when_unmarked():
    rows = stage_agreement([mark("partition", "right", 1), mark("consolidate", "wrong", 2),
                            mark("consolidate", "right", 3), mark("consolidate", "right", 4),
                            mark("narrate", "wrong", 5)])
    assert [(r.page, r.marked, r.right, r.wrong, r.share) for r in rows] == [
        ("knowledge", 3, 2, 1, 0.667), ("prediction error", 0, 0, 0, None),
        ("partitions", 1, 1, 0, 1.0), ("narrate", 1, 0, 1, 0.0)]
    text = agreement_text(rows)
    assert "knowledge 2 of 3 right (67 %)" in text and "prediction error none marked" in text
    assert "partitions 1 of 1 right (100 %)" in text and "narrate 0 of 1 right (0 %)" in text
    csv_rows = agreement_csv("eval-x", rows).splitlines()
    assert csv_rows[0] == "eval_id,stage,page,marked,right,wrong,share_right"
    assert csv_rows[1:3] == ["eval-x,consolidate,knowledge,3,2,1,0.667",
                             "eval-x,distill,prediction error,0,0,0,"]


def test_no_mark_says_where_to_make_one():
    text = agreement_text(stage_agreement([]))
    assert "none yet" in text and "Knowledge" in text


def _seqs(store, run_id, stage):
    return [e.seq for e in records.load_events(store, run_id) if e.stage == stage]


@pytest.fixture
def evaluated_home(tmp_path):
    home = tmp_path / "home"
    done = run_cli("eval", "locomo", SMALL, "--home", home, "--json")
    assert done.returncode == 0, done.stderr
    store = open_store(home)
    [first] = results.list_evals(store)
    yield home, store, first
    store.close()


def test_marks_on_its_memory_count_and_others_do_not(evaluated_home):
    home, store, first = evaluated_home
    [memory] = first.memory_runs.values()
    marks.set_mark(store, memory, _seqs(store, memory, "consolidate")[0], "right")
    marks.set_mark(store, memory, _seqs(store, memory, "distill")[0], "wrong",
                   "chatter, not a fact")
    marks.set_mark(store, memory, _seqs(store, memory, "partition")[0], "right")
    other = run_sample(store)                 # a mark on a run the evaluation did not use
    marks.set_mark(store, other, _seqs(store, other, "distill")[0], "wrong")
    rows = {r.page: r for r in stage_agreement(eval_marks(store, first.memory_runs))}
    assert (rows["knowledge"].marked, rows["knowledge"].right) == (1, 1)
    assert (rows["prediction error"].marked, rows["prediction error"].share) == (1, 0.0)
    assert (rows["partitions"].marked, rows["partitions"].share) == (1, 1.0)

    # the same evaluation again answers from the same memory: its report holds the marks
    table = run_cli("eval", "locomo", SMALL, "--home", home)
    assert table.returncode == 0, table.stderr
    assert ("agreement with readers' marks: knowledge 1 of 1 right (100 %) · prediction error "
            "0 of 1 right (0 %) · partitions 1 of 1 right (100 %)") in table.stdout
    done = run_cli("eval", "locomo", SMALL, "--home", home, "--json")
    agreement = json.loads(done.stdout.splitlines()[-1])["agreement"]
    assert agreement[1] == {"stage": "distill", "page": "prediction error", "marked": 1,
                            "right": 0, "wrong": 1, "share_right": 0.0}
    assert [a["page"] for a in agreement] == ["knowledge", "prediction error", "partitions"]


def test_a_fresh_evaluation_says_nothing_is_marked(tmp_path):
    done = run_cli("eval", "locomo", SMALL, "--home", tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert "readers' marks: none yet on this evaluation's memory" in done.stdout
