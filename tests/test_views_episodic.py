"""The Partitions, Episodes and Prediction error views, on real offline runs of the sample."""

from __future__ import annotations

import copy

import pytest

from nemori_ui.core.models import Episode
from nemori_ui.core.views import episodes as ev
from nemori_ui.core.views import partitions as pv
from nemori_ui.core.views import prediction as pr
from nemori_ui.core.views.run_data import RunData, load_run_data
from tests.conftest import run_sample


@pytest.fixture(scope="module")
def data(sample_run) -> RunData:
    store, run_id = sample_run
    return load_run_data(store, run_id)


def run_sample_into(home, **settings):
    """The bundled sample run offline into `home` with the given settings: (store, run_id)."""
    from nemori_ui.core.store import open_store

    store = open_store(home)
    return store, run_sample(store, **settings)


@pytest.fixture(scope="module")
def direct_data(tmp_path_factory) -> RunData:
    """The sample run as Nemori-s: distilled directly, with no prediction."""
    return load_run_data(*run_sample_into(tmp_path_factory.mktemp("nemori-s-home"),
                                          variant="nemori-s"))


def _with(data: RunData, *, events=None, backend=None) -> RunData:
    """A copy of the run with some events or the backend changed (LLM-shaped variations)."""
    info = data.info
    if backend:
        info = info.model_copy(update={"config": info.config.model_copy(
            update={"backend": backend})})
    return RunData(info=info, messages=data.messages, episodes=data.episodes,
                   memories=data.memories, events=events if events is not None else data.events,
                   calls=data.calls)


# ------------------------------------------------------------------ partitions

def test_every_message_sits_in_its_raw_and_its_final_episode(data):
    frame = pv.message_frame(data)
    assert list(frame["pos"]) == list(range(1, len(data.messages) + 1))
    assert list(frame["message"]) == [m.id for m in data.messages]
    for row in frame.itertuples(index=False):
        raw, final = data.episode_by_id[row.raw_episode], data.episode_by_id[row.episode]
        assert row.message in raw.message_ids and row.message in final.message_ids
        assert final.status == "active"
        assert row.window == (row.pos - 1) // data.info.config.window + 1
    # the sample's one integration merges episodes across a window edge
    assert (frame["raw_episode"] != frame["episode"]).any()


def test_windows_list_proposed_and_kept_groups_covering_each_window_once(data):
    table = pv.window_table(data)
    assert list(table["window"]) == list(range(1, data.info.windows_total + 1))
    assert table["size"].sum() == len(data.messages)
    for _, row in table.iterrows():
        kept = [int(i) for group in row["kept (1-based)"].split(" | ") for i in group.split(",")]
        assert sorted(kept) == list(range(1, row["size"] + 1))
    # the offline partitioner proposes valid partitions: nothing to repair
    assert not table["repaired"].any() and (table["repairs"] == "").all()


def test_a_repaired_partition_is_flagged_with_its_repairs(data):
    events = copy.deepcopy(data.events)
    first = next(e for e in events if e.stage == "partition")
    first.payload.proposed = [[1, 2, 2], [40]]
    first.payload.repairs = ["dropped repeated index 2", "dropped out-of-range index 40"]
    first.payload.topics = [""] * len(first.payload.groups)  # as a repaired run stores
    repaired = _with(data, events=events)
    table = pv.window_table(repaired)
    row = table.iloc[0]
    assert bool(row["repaired"]) and "repeated index 2" in row["repairs"]
    assert row["proposed (1-based)"] == "1,2,2 | 40"
    assert not table.iloc[1:]["repaired"].any()
    cuts = pv.cuts_table(repaired)
    assert (cuts[cuts["window"] == 1]["reason"].str.contains("partition was repaired")).all()
    assert not cuts[cuts["window"] > 1]["reason"].str.contains("repaired").any()


def test_cuts_carry_the_reason_and_boundaries_fall_inside_windows(data):
    cuts = pv.cuts_table(data)
    assert cuts["size"].sum() == len(data.messages)
    starts = cuts.groupby("window")["reason"].first()
    assert (starts == "window start").all()
    reasons = " ".join(cuts["reason"])
    assert "topic shift" in reasons and "new session" in reasons
    frame = pv.message_frame(data)
    inner = pv.boundaries(frame)
    w = data.info.config.window
    assert inner and all((p - 1) % w != 0 for p in inner)
    assert set(inner) <= set(cuts["starts at"])


def test_sessions_are_runs_of_the_transcript(data):
    spans = pv.session_spans(pv.message_frame(data))
    assert [s.session for s in spans] == sorted({m.session for m in data.messages})
    assert spans[0].first == 1 and spans[-1].last == len(data.messages)


# ------------------------------------------------------------------ episodes

def test_cards_filter_by_status_and_show_merges(data):
    active, superseded = ev.episode_cards(data, "active"), ev.episode_cards(data, "superseded")
    assert len(active) + len(superseded) == len(ev.episode_cards(data, "all")) == len(data.episodes)
    assert superseded and all(c.superseded_by for c in superseded)
    merged = [c for c in active if c.supersedes]
    assert merged and all(c.window >= 1 and c.span for c in active)
    with pytest.raises(ValueError):
        ev.episode_cards(data, "deleted")


def test_episode_messages_are_its_raw_messages_in_order(data):
    episode = next(e for e in data.episodes if e.supersedes)
    table = ev.episode_messages(data, episode.id)
    assert sorted(table["message"]) == sorted(episode.message_ids)
    assert list(table.columns) == ["message", "time", "speaker", "text"]
    first = data.message_by_id[table.iloc[0]["message"]]
    assert table.iloc[0]["text"] == first.text and table.iloc[0]["speaker"] == first.speaker


def test_final_episode_follows_merges_and_survives_a_cycle(data):
    merged = next(e for e in data.episodes if e.supersedes)
    for old in merged.supersedes:
        assert ev.final_episode_id(data, old) == merged.id
    loop = _with(data)
    loop.episode_by_id = {"a": Episode(id="a", cue="", narrative="", message_ids=[],
                                       superseded_by="b"),
                          "b": Episode(id="b", cue="", narrative="", message_ids=[],
                                       superseded_by="a")}
    assert ev.final_episode_id(loop, "a") in {"a", "b"}


def test_integration_decisions_list_candidates_choice_and_merge_texts(data):
    table = ev.integration_table(data)
    assert len(table) == len(data.stage("integrate"))
    assert table.iloc[0]["decision"].startswith("kept: nothing earlier")
    merges = table[table["decision"].str.startswith("merged")]
    assert len(merges) >= 1
    detail = ev.integration_detail(data, merges.iloc[0]["new episode"])
    assert detail.merged and detail.choice >= 1
    chosen = detail.candidates[detail.candidates["chosen"]]
    assert list(chosen["episode"]) == [detail.target]
    assert detail.candidates["score"].is_monotonic_decreasing
    for part in ("before", "incoming", "after"):
        assert getattr(detail, part).cue and getattr(detail, part).narrative
    assert set(data.episode_by_id[detail.result_id].supersedes) == {
        detail.target, detail.episode_id}
    assert ev.integration_detail(data, "no-such-episode") is None


# ------------------------------------------------------------------ prediction error

def test_surprise_is_insights_per_raw_message_for_every_distilled_episode(data):
    table = pr.surprise_table(data)
    assert len(table) == len(data.stage("distill"))
    assert list(table["order"]) == list(range(1, len(table) + 1))
    for row in table.itertuples(index=False):
        assert row.surprise == pytest.approx(row.insights / row.messages, abs=1e-3)
    top = pr.most_surprising(table)
    assert table.set_index("episode").loc[top, "surprise"] == table["surprise"].max()
    assert pr.most_surprising(table.iloc[0:0]) is None


def test_the_page_opens_where_the_prediction_held_the_most(data):
    table = pr.surprise_table(data)
    eid = pr.most_predicted(data, table)
    assert table.set_index("episode").loc[eid, "covered"] == table["covered"].max() > 0
    # a model reports no covered statements: then the first episode with a prediction
    bare = table.assign(covered=0)
    first = next(e.payload.episode_id for e in sorted(data.stage("distill"),
                                                          key=lambda e: e.seq)
                 if e.payload.prediction)
    assert pr.most_predicted(data, bare) == first


def test_evoked_memories_pass_only_above_tau(data):
    looked = [e for e in data.stage("anticipate") if e.payload.evoked]
    assert looked
    for event in looked:
        seen = pr.evoked(data, event.payload.episode_id)
        assert seen.tau == data.info.config.tau and seen.management == "native"
        frame = seen.frame
        # memories of the episode an integrated one continues, and those a statement of the
        # episode called up, are known whatever their score
        told = frame["continued"] | (frame["recall score"].astype(float).fillna(-1) > seen.tau)
        assert (frame["passed"] == ((frame["score"] > seen.tau) | told)).all()
        # the cue's own top K_s come first, by its score
        assert frame[~told & frame["by cue"]]["score"].is_monotonic_decreasing
        assert seen.passed == int(frame["passed"].sum())


def _covered_episode(data) -> str:
    return next(e.payload.episode_id for e in data.stage("distill") if e.payload.covered)


def test_comparison_marks_learnt_and_predicted_statements(data):
    eid = _covered_episode(data)
    comp = pr.comparison(data, eid)
    assert comp.mode == "prediction-error" and comp.statements_checked
    by_id = {r.message: r for r in comp.rows}
    for c in comp.covered:
        row = by_id[c.message_id]
        assert c in row.covered
        assert row.status in ((pr.PREDICTED, pr.LEARNT) if c.kind == "predicted" else
                              (pr.PREDICTED, pr.LEARNT, pr.CARRIED))
        assert any(c.text in line.held for line in comp.prediction_lines
                   if line.text == c.predicted_by)
    assert comp.counts[pr.PREDICTED] >= 1
    cited = {mid for ins in comp.insights for mid in ins.source_message_ids}
    assert {r.message for r in comp.rows if r.status == pr.LEARNT} == cited
    assert sum(comp.counts.values()) == len(comp.rows)
    for ins in comp.insights:
        assert [s.message for s in ins.sources] == ins.source_message_ids
        assert ins.outcome.action in ("new", "merge", "conflict")
        assert ins.outcome.result_id in data.memory_by_id


def test_without_covered_statements_cited_messages_are_learnt(data):
    """An LLM run reports no covered statements: only insights' citations mark messages."""
    events = copy.deepcopy(data.events)
    for e in events:
        if e.stage == "distill":
            e.payload.covered = []
    llm = _with(data, events=events, backend="openai")
    comp = pr.comparison(llm, _covered_episode(data))
    assert not comp.statements_checked
    assert comp.counts[pr.PREDICTED] == 0
    assert comp.counts[pr.LEARNT] == len(
        {m for ins in comp.insights for m in ins.source_message_ids})


def test_nemori_s_has_no_prediction_to_compare(direct_data):
    table = pr.surprise_table(direct_data)
    assert not table.empty and (table["mode"] == "direct").all()
    eid = pr.most_surprising(table)
    assert pr.most_predicted(direct_data, table) is None, "Nemori-s predicts nothing"
    assert pr.evoked(direct_data, eid) is None
    comp = pr.comparison(direct_data, eid)
    assert comp.mode == "direct" and comp.prediction_lines == []
    assert comp.counts[pr.LEARNT] >= 1 and comp.counts[pr.PREDICTED] == 0
