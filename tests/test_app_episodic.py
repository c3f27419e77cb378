"""The Partitions, Episodes and Prediction error pages render, with and without a run."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from nemori_ui.core.stage_events import CoveredStatement
from nemori_ui.core.views import prediction as pr
from nemori_ui.core.views.partitions import SessionSpan
from nemori_ui.core.views.prediction_records import (CitedMessage, ComparedMessage,
                                                     PredictionLine, ProducedInsight)
from nemori_ui.core.views.run_data import load_run_data
from nemori_ui.ui import episodic_charts as charts
from nemori_ui.ui.safe import md_escape
from tests.test_views_episodic import run_sample_into

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["partitions", "episodes", "prediction_error"]


def page(name: str, run_id: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(f"pages/{name}.py")
    if run_id:
        at.session_state["run_id"] = run_id  # other tests may add runs to the same home
    return at


def markdown(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def captions(at: AppTest) -> str:
    return "\n".join(c.value for c in at.caption)


def texts(at: AppTest) -> str:
    return "\n".join(t.value for t in at.text)


@pytest.fixture
def sample_home(sample_run, monkeypatch):
    """The finished sample run, in the home the pages read."""
    store, run_id = sample_run
    monkeypatch.setenv("NEMORI_HOME", str(store.path.parent))
    return load_run_data(store, run_id)


@pytest.mark.parametrize("name", PAGES)
def test_pages_without_a_run_point_to_the_run_page(name):
    at = page(name).run()
    assert not at.exception
    assert any("No run to show yet" in i.value for i in at.info)


def test_partitions_show_the_ribbon_windows_cuts_and_an_episode(sample_home):
    data = sample_home
    at = page("partitions", data.run_id).run()
    assert not at.exception
    assert "w = 20" in markdown(at)
    assert at.get("plotly_chart")
    windows, cuts = at.dataframe[0].value, at.dataframe[1].value
    assert len(windows) == data.info.windows_total and not windows["repaired"].any()
    assert any("topic shift" in r for r in cuts["reason"])
    assert [m.value for m in at.metric if m.label == "Repaired partitions"] == ["0"]
    merged = next(e for e in data.episodes if e.status == "superseded")
    at.selectbox(key=f"part_episode_{data.run_id}").select(merged.id).run()
    assert not at.exception
    assert f"merged into {merged.superseded_by}" in captions(at)
    shown = at.dataframe[2].value
    assert list(shown["text"]) == [data.message_by_id[i].text for i in merged.message_ids]
    at.radio(key=f"part_color_{data.run_id}").set_value("raw_episode").run()
    assert not at.exception


def test_a_big_run_shows_its_partitions_a_page_of_messages_at_a_time(sample_home,
                                                                     monkeypatch):
    data = sample_home
    monkeypatch.setattr("nemori_ui.core.views.partitions.PAGE_ROWS", 50)
    at = page("partitions", data.run_id).run()
    assert not at.exception
    pager = at.selectbox(key=f"part_page_{data.run_id}")
    n = len(data.messages)
    assert 50 < n <= 100 and pager.options == [f"1–50 of {n}", f"51–{n} of {n}"]
    first = at.dataframe[0].value
    assert list(first["window"]) == [1, 2, 3]        # w = 20: the windows of messages 1-50
    # the episode chooser lists the episodes of the messages shown, not every one of the run
    position = {m.id: i for i, m in enumerate(data.messages)}

    def among(lo: int, hi: int) -> list[str]:
        return [e.id for e in data.episodes
                if any(lo <= position[i] < hi for i in e.message_ids)]

    def listed() -> list[str]:
        return [o.split(" · ")[0] for o in at.selectbox(key=f"part_episode_{data.run_id}").options]
    assert listed() == among(0, 50) and len(listed()) < len(data.episodes)
    assert at.metric[0].value == f"{data.info.windows_total} of {data.info.windows_total}"
    pager.select_index(1).run()
    assert not at.exception
    assert list(at.dataframe[0].value["window"]) == [3, 4, 5]
    cuts = at.dataframe[1].value
    assert set(cuts["window"]) == {3, 4, 5} and cuts["ends at"].max() == n
    assert listed() == among(50, n)


def test_episodes_show_cards_filters_and_a_merge_side_by_side(sample_home):
    data = sample_home
    at = page("episodes", data.run_id).run()
    assert not at.exception
    active = [e for e in data.episodes if e.status == "active"]
    assert all(f"##### {md_escape(e.cue)}" in markdown(at) for e in active)
    assert active[0].narrative in texts(at)
    # an extractive title can repeat in the episode that absorbed it: take one that does not
    old = next(e for e in data.episodes if e.status == "superseded"
               and e.cue not in {a.cue for a in active})
    assert md_escape(old.cue) not in markdown(at)
    at.segmented_control(key=f"ep_status_{data.run_id}").set_value("superseded").run()
    assert not at.exception
    assert f"##### {md_escape(old.cue)}" in markdown(at)
    # the integration tab opens on the first merge, with its three narratives
    merged = next(e for e in data.episodes if e.supersedes)
    assert "Merge" in markdown(at) and merged.id in markdown(at)
    before, incoming = (data.episode_by_id[i] for i in merged.supersedes)
    for narrative in (before.narrative, incoming.narrative, merged.narrative):
        assert narrative in texts(at)


def test_prediction_error_opens_on_an_episode_where_something_was_predicted(sample_home):
    data = sample_home
    table = pr.surprise_table(data)
    at = page("prediction_error", data.run_id).run()
    assert not at.exception
    chooser = at.selectbox(key=f"pe_episode_{data.run_id}")
    row = table[table["episode"] == chooser.value].iloc[0]
    assert row["covered"] == table["covered"].max() > 0, "opened where nothing was predicted"
    assert [m.value for m in at.metric if m.label == "Predicted, not stored"] == [
        str(row["covered"])]
    assert pr.SURPRISE_DEFINITION in captions(at)
    assert f"τ = {data.info.config.tau:.2f}" in captions(at)
    html = markdown(at)
    for ins in pr.comparison(data, chooser.value).insights:
        assert charts._safe(ins.text) in html


def test_prediction_error_shows_what_was_predicted_and_not_stored(sample_home):
    data = sample_home
    covered = next(e.payload for e in data.stage("distill") if e.payload.covered)
    at = page("prediction_error", data.run_id).run()
    at.selectbox(key=f"pe_episode_{data.run_id}").select(covered.episode_id).run()
    assert not at.exception
    html = markdown(at)
    statement = covered.covered[0]
    raw = data.message_by_id[statement.message_id]
    assert "predicted, not stored" in html and "held by the prediction" in html
    assert charts._safe(raw.text) in html and charts._safe(statement.predicted_by) in html
    assert [m.value for m in at.metric if m.label == "Predicted, not stored"] == [
        str(len(covered.covered))]


def test_prediction_error_explains_nemori_s_has_no_prediction(tmp_path, monkeypatch):
    store, run_id = run_sample_into(tmp_path / "direct", variant="nemori-s")
    monkeypatch.setenv("NEMORI_HOME", str(store.path.parent))
    at = page("prediction_error", run_id).run()
    assert not at.exception
    assert any("Nemori-s" in i.value and "no prediction" in i.value for i in at.info)
    assert "learnt" in markdown(at)


# ------------------------------------------------------------------ escaping

NASTY = "<script>alert(1)</script> *bold* & $x$ :red[hi] [link](http://x)"


def test_transcript_text_reaches_plotly_escaped():
    frame = pd.DataFrame([{"pos": 1, "message": "m0001", "time": "", "speaker": "<b>Eve</b>",
                           "text": NASTY, "session": 1, "window": 1, "raw_episode": "ep0001",
                           "episode": "ep0001", "group": 1, "reason": "<i>window start</i>"}])
    fig = charts.ribbon_figure(frame, "episode", 20, [1],
                               [SessionSpan(session=1, first=1, last=1)])
    dumped = fig.to_json()
    assert "<script>" not in dumped and "<b>Eve" not in dumped and "<i>window" not in dumped
    assert "&lt;script&gt;" in dumped


def test_transcript_text_reaches_markdown_inert():
    rows = [ComparedMessage(message="m1", time="", speaker="Eve", text=NASTY, status="learnt",
                            learnt=[NASTY + " (more)"],
                            covered=[CoveredStatement(text=NASTY, predicted_by=NASTY,
                                                      score=0.9)])]
    html = charts.raw_html(rows) + charts.prediction_html([PredictionLine(text=NASTY,
                                                                          held=[NASTY])])
    html += charts.insights_html([ProducedInsight(
        text=NASTY, source_message_ids=["m1"],
        sources=[CitedMessage(message="m1", speaker="<b>", text=NASTY)], outcome=None)])
    for dangerous in ("<script", "*bold*", "$x$", ":red[", "](http", "<b><b>"):
        assert dangerous not in html
    assert "&lt;script&gt;" in html and "<b>&lt;b&gt;</b>" in html


def test_a_click_on_the_strip_names_the_episode():
    assert charts.clicked_episode({"selection": {"points": [{"x": "ep0007"}]}}) == "ep0007"
    assert charts.clicked_episode({"selection": {"points": []}}) is None
    assert charts.clicked_episode(None) is None


def test_prediction_error_shows_what_tau_admits_and_how_each_line_was_read(sample_home):
    data = sample_home
    cold = next(e.payload.episode_id for e in data.stage("anticipate")
                if e.payload.cold_start and e.payload.evoked)
    at = page("prediction_error", data.run_id).run()
    assert not at.exception
    seen = pr.admitted(pr.looked_similarities(data), data.info.config.tau)
    assert any(f"{seen.evoking} of {seen.episodes} episodes evoked" in e.label
               for e in at.expander)
    at.selectbox(key=f"pe_episode_{data.run_id}").select(cold).run()
    assert not at.exception
    assert "Nothing known yet" in " ".join(i.value for i in at.info)
    lines = next(d.value for d in at.dataframe if "read as" in d.value.columns)
    assert set(lines["read as"]) <= {"knowledge", "phatic", "not standalone"} and \
        {"knowledge", "phatic"} <= set(lines["read as"])
    assert lines["why"].str.len().gt(0).all()
