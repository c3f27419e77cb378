"""Tuning against quality: a sweep point reports evidence recall@k from the questions stored
with its run, the table is sorted by τ then w, and the best point is the one highlighted."""

from __future__ import annotations

import pandas as pd
from streamlit.testing.v1 import AppTest

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store
from nemori_ui.core.store.runs import stored_conversation
from nemori_ui.core.transcripts import load_transcript
from nemori_ui.core.tuning.qa_recall import evidence_recall
from nemori_ui.core.tuning.sweep import best_point, sorted_points, stored_recall
from tests.conftest import ROOT

SMALL = ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json"


def run_small(store, conv=None, **settings) -> str:
    conv = conv or load_transcript(SMALL).conversations[0]
    config = PipelineConfig(**settings)
    clients = build_clients(config, store)
    run_id = start_run(store, conv, config, clients, source=SMALL.name, fmt="locomo",
                       resume=False)
    run_windows(store, run_id, clients)
    return run_id


def test_a_run_keeps_its_questions_and_reports_recall_without_the_file(isolated_home):
    store = open_store(isolated_home)
    conv = load_transcript(SMALL).conversations[0]
    run_id = run_small(store)
    kept = stored_conversation(store, run_id)
    assert kept.extra["qa"] == conv.extra["qa"]
    embedder = build_clients(PipelineConfig(), store).embedder
    recall = stored_recall(store, run_id, embedder)
    assert recall == evidence_recall(store, run_id, conv, embedder, 10)
    assert recall.questions > 0 and recall.recall_at_k is not None
    bare = run_small(store, conv.model_copy(update={"extra": {}}))
    assert stored_recall(store, bare, embedder) is None, "no questions, no recall"


def test_points_sort_by_tau_then_window_and_the_best_is_chosen_per_figure():
    frame = pd.DataFrame({"tau": [0.8, 0.6, 0.6, 0.7], "window": [10, 20, 10, 10],
                          "evidence_recall": [0.5, 0.9, 0.9, None],
                          "stored_tokens": [40, 90, 60, 50]})
    ordered = sorted_points(frame)
    assert list(zip(ordered["tau"], ordered["window"])) == [(0.6, 10), (0.6, 20), (0.7, 10),
                                                            (0.8, 10)]
    assert best_point(ordered, "evidence_recall") == 0, "a tie goes to the first in order"
    assert best_point(ordered, "stored_tokens") == 3, "fewer tokens stored is better"
    assert best_point(ordered.assign(evidence_recall=None), "evidence_recall") is None


def test_the_tuning_table_shows_recall_per_point_sorted(isolated_home):
    store = open_store(isolated_home)
    for tau, window in ((0.8, 10), (0.6, 20), (0.6, 10)):
        run_small(store, tau=tau, window=window)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=180).run()
    at.switch_page("pages/tuning.py").run()
    assert not at.exception, [e.value for e in at.exception]
    table = at.dataframe[0].value
    assert list(zip(table["tau"], table["window"])) == [(0.6, 10), (0.6, 20), (0.8, 10)]
    assert table["evidence_recall"].notna().all()
    assert at.selectbox(key="best_metric").value == "evidence_recall"
    best = [m for m in at.metric if m.label == "Best evidence recall@k"]
    assert best and float(best[0].value) == table["evidence_recall"].max()
