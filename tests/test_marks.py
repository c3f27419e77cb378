"""A reader marks decisions right or wrong: stored with the run, listed, exported as a labelled
set, and compared with what the engine decided."""

from __future__ import annotations

import json
import shutil

import pytest

from nemori_ui.core.errors import InputError
from nemori_ui.core.store import marks, open_store, records, runs
from tests.conftest import run_sample


@pytest.fixture
def marked(tmp_path, sample_run):
    home = tmp_path / "home"
    shutil.copytree(sample_run[0].path.parent, home)
    store = open_store(home)
    yield store, sample_run[1]
    store.close()


def _seq(store, run_id, stage):
    return next(e.seq for e in records.load_events(store, run_id) if e.stage == stage)


def test_a_mark_is_stored_replaced_and_cleared(marked):
    store, run_id = marked
    seq = _seq(store, run_id, "consolidate")
    marks.set_mark(store, run_id, seq, "wrong", "  merge with sm0002  ")
    (mark,) = marks.load_marks(store, run_id)
    assert (mark.stage, mark.verdict, mark.correction) == ("consolidate", "wrong", "merge with sm0002")
    marks.set_mark(store, run_id, seq, "right", "ignored for a right one")
    assert [(m.verdict, m.correction) for m in marks.load_marks(store, run_id)] == [("right", "")]
    marks.clear_mark(store, run_id, seq)
    assert marks.load_marks(store, run_id) == []


def test_a_bad_mark_is_refused_naming_what_is_wrong(marked):
    store, run_id = marked
    with pytest.raises(InputError, match="'maybe'"):
        marks.set_mark(store, run_id, 0, "maybe")
    with pytest.raises(InputError, match="no decision 99999"):
        marks.set_mark(store, run_id, 99999, "right")
    assert marks.load_marks(store, run_id) == []


def test_agreement_and_the_labelled_set(marked):
    store, run_id = marked
    events = records.load_events(store, run_id)
    consolidations = [e.seq for e in events if e.stage == "consolidate"][:3]
    marks.set_mark(store, run_id, consolidations[0], "right")
    marks.set_mark(store, run_id, consolidations[1], "right")
    marks.set_mark(store, run_id, consolidations[2], "wrong", "this is chatter")
    marks.set_mark(store, run_id, _seq(store, run_id, "partition"), "right")
    agree = {a.stage: a for a in marks.agreement(marks.load_marks(store, run_id))}
    assert (agree["consolidate"].right, agree["consolidate"].marked) == (2, 3)
    assert agree["consolidate"].share == 0.667 and agree["partition"].share == 1.0
    lines = [json.loads(line) for line in marks.labelled_set(store, run_id).splitlines()]
    assert [r["seq"] for r in lines] == sorted(r["seq"] for r in lines) and len(lines) == 4
    wrong = next(r for r in lines if r["verdict"] == "wrong")
    assert wrong["correction"] == "this is chatter" and "insight" in wrong["decision"]


def test_marks_go_with_their_run(tmp_path):
    store = open_store(tmp_path / "home")
    run_id = run_sample(store)
    marks.set_mark(store, run_id, _seq(store, run_id, "narrate"), "right")
    runs.delete_run(store, run_id)
    assert store.query("SELECT count(*) FROM marks")[0][0] == 0
