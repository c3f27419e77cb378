"""The Evaluation page through AppTest: with no evaluation, and with stored results taken
apart down to one question's context, with benchmark text kept as text."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval.harness import EvalOptions, evaluate
from nemori_ui.core.eval import results
from nemori_ui.core.store import marks, open_store, records
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.ui.eval_widgets import MARKS
from tests.conftest import ROOT

APP = str(ROOT / "app.py")
PAGE = "pages/evaluation.py"
SMALL = ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json"
TIMEOUT = 120
SNEAKY = "<b>bold</b> **stars**"


def open_page() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=TIMEOUT)
    at.run()
    at.switch_page(PAGE)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def page_text(at: AppTest) -> str:
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    return "\n".join(parts + [t.value for t in at.text] + [i.value for i in at.info])


@pytest.fixture
def evaluated(isolated_home, tmp_path):
    """Nemori and full context on the small LoCoMo sample, one message made of markup."""
    doc = json.loads(SMALL.read_text())
    doc[0]["conversation"]["session_1"][0]["text"] = f"Hi Ben! I adopted a puppy. {SNEAKY}"
    doc[0]["qa"][0]["question"] = f"What did Ana adopt? {SNEAKY}"
    path = tmp_path / "small.json"
    path.write_text(json.dumps(doc))
    store = open_store(isolated_home)
    ids = {}
    for name in ("nemori", "full-context"):
        ids[name] = evaluate(store, load_transcript(path), PipelineConfig(),
                             EvalOptions(variant=name), source=str(path)).id
    store.close()
    return ids


def test_without_results_the_page_says_how_to_get_some():
    at = open_page()
    assert at.title[0].value == "Evaluation"
    text = page_text(at)
    assert "No evaluation stored yet" in text
    assert any("nemori_ui eval locomo" in c.value for c in at.code)


def test_results_by_category_beside_the_paper(evaluated):
    at = open_page()
    assert at.selectbox(key="eval_id").value == evaluated["full-context"]   # the newest
    at.selectbox(key="eval_id").set_value(evaluated["nemori"]).run()
    assert not at.exception
    table = at.dataframe[0].value
    # every category the paper reports, even those without a question here
    assert list(table["category"]) == ["multi-hop", "temporal", "open-domain", "single-hop",
                                       "overall"]
    assert list(table["n"]) == [0, 1, 0, 1, 2]
    # each figure beside the paper's; no judge ran offline, so only the paper's judge shows
    assert list(table.columns) == ["category", "n", "paper judge", "F1", "paper F1", "BLEU-1",
                                   "paper BLEU-1", "recall@k", "recall@k, episodes only"]
    cost = at.dataframe[1].value
    assert list(cost["category"])[-1] == "paper, Table 4 (overall)"
    assert list(cost["tokens"])[-1] == 2745
    overall = table[table["category"] == "overall"].iloc[0]
    assert overall["paper judge"] == 73.0          # Table 2, Nemori, gpt-4o-mini
    at.radio(key=f"eval_model_{evaluated['nemori']}").set_value("gpt-4.1-mini").run()
    table = at.dataframe[0].value
    assert table[table["category"] == "overall"].iloc[0]["paper judge"] == 80.8
    assert "not from one of the paper's models" in page_text(at)


def test_variants_side_by_side(evaluated):
    at = open_page()
    frames = [d.value for d in at.dataframe]
    comparison = next(f for f in frames if "variant" in f.columns)
    assert list(comparison["variant"]) == ["Nemori", "Full context"]
    assert list(comparison["paper judge"]) == [73.0, 72.3]


def test_a_question_taken_apart_keeps_text_as_text(evaluated):
    at = open_page()
    at.selectbox(key="eval_id").set_value(evaluated["nemori"]).run()
    key = f"eval_item_{evaluated['nemori']}"
    at.selectbox(key=key).set_value("conv-mini#1").run()
    assert not at.exception
    texts = [t.value for t in at.text]
    assert f"What did Ana adopt? {SNEAKY}" in texts            # shown verbatim, as text
    html = "\n".join(m.value for m in at.markdown if "monospace" in m.value)
    assert MARKS["evidence"] in html                           # the evidence turn, marked
    assert "&lt;b&gt;bold&lt;/b&gt;" in html and "<b>bold" not in html
    assert all("<b>bold" not in m.value for m in at.markdown if "monospace" not in m.value)


def test_filters_and_downloads(evaluated):
    at = open_page()
    run = evaluated["full-context"]
    at.checkbox(key=f"eval_missed_{run}").check().run()
    assert "0 of 2 questions" in page_text(at)        # full context always holds the evidence
    at.checkbox(key=f"eval_missed_{run}").uncheck().run()
    at.text_input(key=f"eval_search_{run}").input("puppy").run()
    assert "2 of 2 questions" in page_text(at)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == ["Questions (CSV)", "Summary of the compared variants (CSV)"]


def test_the_engines_agreement_with_readers_marks(evaluated):
    store = open_store(os.environ["NEMORI_HOME"])
    [memory] = results.get_eval(store, evaluated["nemori"]).memory_runs.values()
    distilled = [e.seq for e in records.load_events(store, memory) if e.stage == "distill"]
    marks.set_mark(store, memory, distilled[0], "wrong", "not worth keeping")
    marks.set_mark(store, memory, distilled[1], "right")
    store.close()
    at = open_page()
    at.selectbox(key="eval_id").set_value(evaluated["nemori"]).run()
    table = next(d.value for d in at.dataframe if "share right" in d.value.columns)
    assert list(table["stage"]) == ["knowledge", "prediction error", "partitions"]
    assert list(table["decisions marked"]) == [0, 2, 0]
    assert list(table["share right"]) == ["–", "50 %", "–"]
    assert "2 decisions of this evaluation's memory marked" in page_text(at)
    assert "Agreement (CSV)" in [b.proto.label for b in at.get("download_button")]
    at.selectbox(key=f"eval_mark_page_{evaluated['nemori']}").set_value("prediction error")
    at.button(key=f"eval_mark_open_{evaluated['nemori']}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.title[0].value == "Prediction error" and at.session_state.run_id == memory
    # full context keeps no memory: nothing to mark, and the page says so
    at = open_page()
    assert "kept no memory run" in page_text(at)


def test_the_page_is_listed():
    from nemori_ui.ui.layout import PAGES
    assert ("pages/evaluation.py", "Evaluation", ":material/bar_chart:") in [p[:3] for p in PAGES]
    assert Path(ROOT / PAGE).exists()
