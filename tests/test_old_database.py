"""A database written before stage events were typed opens, reads and renders with today's code.

tests/fixtures/old_release/ holds it (see its README): three runs of our own transcript,
native, flat summary and Nemori-s. It is copied to a temporary home and never rewritten.
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError
from streamlit.testing.v1 import AppTest

from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.errors import StoreError
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.stage_events import (ConsolidatePayload, IntegratePayload, SummaryPayload,
                                         load_event)
from nemori_ui.core.store import open_store, records
from nemori_ui.core.store.runs import list_runs
from nemori_ui.core.transcripts import parse_transcript
from nemori_ui.core.views import episodes as ev_view
from nemori_ui.core.views import knowledge as kv
from nemori_ui.core.views import prediction as pr
from nemori_ui.core.views.run_data import load_run_data
from nemori_ui.ui.layout import PAGES

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "old_release"
APP = str(Path(__file__).resolve().parents[1] / "app.py")
NATIVE, SUMMARY, DIRECT = "old release native", "old release summary", "old release nemori-s"
EVENT_PAGES = ["partitions", "episodes", "prediction_error", "knowledge"]


def copy_home(home: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    with gzip.open(FIXTURE / "nemori.db.gz") as src, open(home / "nemori.db", "wb") as dst:
        shutil.copyfileobj(src, dst)
    return home


@pytest.fixture(scope="module")
def old_home(tmp_path_factory):
    return copy_home(tmp_path_factory.mktemp("old-home"))


@pytest.fixture
def old_runs(old_home, monkeypatch):
    """The old store, and its runs by name; the pages read the same home."""
    monkeypatch.setenv("NEMORI_HOME", str(old_home))
    store = open_store(old_home)
    return store, {r.name: r.id for r in list_runs(store)}


def unknown_keys(model: BaseModel, where: str = "payload") -> list[str]:
    """Every stored key no field of its model took, anywhere in the payload."""
    found = [f"{where}.{key}" for key in model.model_extra or {}]
    for name in type(model).model_fields:
        value = getattr(model, name)
        for i, item in enumerate(value if isinstance(value, list) else [value]):
            if isinstance(item, BaseModel):
                found += unknown_keys(item, f"{where}.{name}[{i}]")
    return found


def test_every_stored_key_is_a_field_of_its_stages_model(old_runs):
    # a field renamed in a model leaves the stored key unclaimed: this fails, naming it
    store, runs = old_runs
    assert set(runs) == {NATIVE, SUMMARY, DIRECT}
    for run_id in runs.values():
        events = records.load_events(store, run_id)
        assert {e.stage for e in events} >= {"partition", "narrate", "integrate", "distill",
                                             "consolidate"}
        for event in events:
            assert not unknown_keys(event.payload), (run_id, event.seq, event.stage)


def test_typed_events_read_the_values_the_old_release_stored(old_runs):
    store, runs = old_runs
    data = load_run_data(store, runs[NATIVE])
    merged = [e.payload for e in data.stage("integrate") if e.payload.choice != -1]
    assert len(merged) == 1 and isinstance(merged[0], IntegratePayload)
    m = merged[0]
    assert (m.episode_id, m.target, m.result_id, m.choice) == ("ep0003", "ep0002", "ep0004", 1)
    assert m.candidates[0].id == "ep0002" and m.candidates[0].score == pytest.approx(0.8907)
    assert "ferry back on 7 February" in m.after.narrative and m.merge_fallback is None
    skipped = ev_view.integration_detail(data, "ep0001")
    assert skipped.skipped == "no earlier episode to continue" and skipped.choice == -1

    cold = [e.payload.episode_id for e in data.stage("anticipate") if e.payload.cold_start]
    assert cold[0] == "ep0001" and len(cold) >= 2
    seen = pr.evoked(data, "ep0004")
    told = seen.frame[seen.frame["continued"]]
    assert list(told["memory"]) == ["sm0005", "sm0004", "sm0006"] and told["passed"].all()
    assert seen.tau == 0.57 and seen.management == "native"

    conflicts = kv.decision_table(data, actions=["conflict"])
    assert list(conflicts["insight"]) == ["Ines doesn't drink black tea anymore."]
    assert list(conflicts["targets"]) == ["sm0003"]
    assert kv.decision_counts(data) == {"new": 22, "merge": 2, "conflict": 1, "summary": 0}
    distilled = data.stage("distill")
    assert sum(len(e.payload.insights) for e in distilled) == 25
    assert any(line.kind == "phatic" for e in distilled for line in e.payload.lines)
    assert any(c.predicted_by for e in distilled for c in e.payload.covered)

    summary = load_run_data(store, runs[SUMMARY])
    rewrites = [e.payload for e in summary.stage("consolidate")]
    assert rewrites and all(isinstance(p, SummaryPayload) for p in rewrites)
    assert rewrites[-1].result_text and rewrites[1].before == rewrites[0].result_text
    direct = load_run_data(store, runs[DIRECT])
    assert not direct.stage("anticipate")
    assert {e.payload.mode for e in direct.stage("distill")} == {"direct"}
    assert all(isinstance(e.payload, ConsolidatePayload) for e in direct.stage("consolidate"))


def page(path: str, run_id: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    at.switch_page(path)
    at.session_state["run_id"] = run_id
    at.run()
    assert not at.exception, f"{path}: {[e.value for e in at.exception]}"
    return at


def page_text(at: AppTest) -> str:
    parts = [x.value for kind in ("markdown", "caption", "text", "info", "warning", "error")
             for x in getattr(at, kind)]
    parts += [f"{m.label}: {m.value}" for m in at.metric]
    parts += [d.value.to_string() for d in at.dataframe]
    return "\n".join(str(p) for p in parts)


@pytest.mark.parametrize("path", [p[0] for p in PAGES])
def test_every_page_renders_the_old_native_run(old_runs, path):
    _, runs = old_runs
    at = page(path, runs[NATIVE])
    text = page_text(at)
    if path.endswith("overview.py"):
        assert "Integrated: 1" in text and "Insights: 25" in text
        assert "22 new · 2 merged · 1 conflict" in text and "1 conflicts" not in text
    elif path.endswith("episodes.py"):
        assert "merged with ep0002 into ep0004" in text
    elif path.endswith("knowledge.py"):
        assert "Ines doesn't drink black tea anymore." in text and "conflict" in text
    elif path.endswith("partitions.py"):
        assert "window start" in text


@pytest.mark.parametrize("path", [f"pages/{name}.py" for name in EVENT_PAGES])
@pytest.mark.parametrize("name", [SUMMARY, DIRECT])
def test_the_pages_that_read_events_render_the_other_old_runs(old_runs, name, path):
    _, runs = old_runs
    text = page_text(page(path, runs[name]))
    if path.endswith("prediction_error.py") and name == DIRECT:
        assert "Nemori-s" in text
    if path.endswith("knowledge.py") and name == SUMMARY:
        assert "summary" in text


def key_shapes(payload) -> frozenset[str]:
    def walk(x, at: str) -> set[str]:
        if isinstance(x, dict):
            return {k for key, v in x.items() for k in {at + key} | walk(v, f"{at}{key}.")}
        if isinstance(x, list):
            return {k for v in x for k in walk(v, f"{at}[].")}
        return set()
    return frozenset(walk(payload, ""))


def stored_shapes(db: Path, run_id: str) -> dict[str, set[frozenset[str]]]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT stage, payload FROM events WHERE run_id = ?", (run_id,))
        shapes: dict[str, set[frozenset[str]]] = {}
        for stage, payload in rows:
            shapes.setdefault(stage, set()).add(key_shapes(json.loads(payload)))
    return shapes


@pytest.mark.parametrize("name,config", [
    (NATIVE, PipelineConfig(window=10)),
    (SUMMARY, PipelineConfig(window=10, management="summary")),
    (DIRECT, PipelineConfig(window=10, variant="nemori-s"))])
def test_todays_runs_store_payloads_of_the_shape_the_old_release_stored(tmp_path, old_runs,
                                                                         name, config):
    store, runs = old_runs
    new_home = tmp_path / "new"
    new_store = open_store(new_home)
    transcript = parse_transcript((FIXTURE / "transcript.txt").read_bytes(),
                                  source="transcript.txt")
    clients = build_clients(config, new_store)
    run_id = start_run(new_store, transcript.conversations[0], config, clients,
                       source="transcript.txt", fmt=transcript.format, resume=False)
    run_windows(new_store, run_id, clients)
    old = stored_shapes(store.path, runs[name])
    new = stored_shapes(new_home / "nemori.db", run_id)
    assert set(new) == set(old)
    for stage, shapes in new.items():
        # the texts of stored memories and episodes are no longer copied into events
        shapes, before = ({s - NOT_COPIED for s in x} for x in (shapes, old[stage]))
        # key by key: which keys one event holds together follows the engine's decisions on
        # the transcript, which may change; a key the old release never wrote may not appear
        keys, known = frozenset().union(*shapes), frozenset().union(*before) | ADDED_SINCE
        assert keys <= known, (stage, sorted(keys - known))


# optional keys written since, only when set (the old release keeps a key it does not know)
ADDED_SINCE = frozenset({"insights.[].elaborates",      # the predicted fact a detail adds to
                         "asked",                       # why a gated run asked a model
                         # the class of a skipped statement, and what an integrated episode
                         # carried from the part an earlier distillation read
                         "covered.[].kind", "covered.[].memory_id", "covered.[].learnt_from",
                         "carried_message_ids",
                         # a memory a statement of the episode called up, above τ
                         "evoked.[].recalled_by", "evoked.[].recall_score", "evoked.[].by_cue"})
# keys of the old release's events that held copies of stored texts (tests/test_run_size.py)
NOT_COPIED = frozenset({"evoked.[].text", "candidates.[].text", "candidates.[].cue",
                        "result_text", "before", "before.cue", "before.narrative", "incoming",
                        "incoming.cue", "incoming.narrative", "after", "after.cue",
                        "after.narrative"})


def test_an_unknown_stored_key_is_kept_and_a_missing_one_is_named(tmp_path):
    home = copy_home(tmp_path / "home")
    store = open_store(home)
    run_id = next(r.id for r in list_runs(store) if r.name == NATIVE)
    with sqlite3.connect(home / "nemori.db") as conn:
        conn.execute("UPDATE events SET payload = json_set(payload, '$.written_later', 'kept') "
                     "WHERE run_id = ? AND stage = 'integrate'", (run_id,))
    event = records.load_events(store, run_id, "integrate")[0]
    assert event.payload.model_extra == {"written_later": "kept"}
    assert event.payload.stored()["written_later"] == "kept"   # what a save writes back
    with sqlite3.connect(home / "nemori.db") as conn:
        conn.execute("UPDATE events SET payload = json_remove(payload, '$.episode_id') "
                     "WHERE run_id = ? AND seq = 1", (run_id,))
    with pytest.raises(StoreError, match=rf"run {run_id}, event 1 \(narrate\).*episode_id"):
        records.load_events(store, run_id)


def test_code_cannot_write_a_key_the_model_does_not_declare():
    with pytest.raises(ValidationError, match="choise"):
        IntegratePayload(episode_id="ep0001", choise=1)
    with pytest.raises(ValidationError, match="continues"):
        IntegratePayload.model_validate(
            {"episode_id": "ep0001", "candidates": [{"id": "ep0002", "continues": 1}]})
    # read back from the store, the same keys are kept instead
    stored = load_event({"stage": "integrate", "window": 0, "payload": {
        "episode_id": "ep0001", "candidates": [{"id": "ep0002", "continues": 1}]}})
    assert stored.payload.candidates[0].model_extra == {"continues": 1}
