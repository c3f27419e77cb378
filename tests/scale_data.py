"""Data for the fan-out tests (tests/test_scale.py): the LoCoMo head they build memory from,
two small conversations, and a run's or an evaluation's stored results without what depends
on the clock, to compare sequential and fanned-out work."""

from __future__ import annotations

import json
import re

from nemori_ui.core.eval import results
from nemori_ui.core.models import Conversation
from nemori_ui.core.store import open_store, records, runs
from nemori_ui.core.transcripts import load_transcript
from tests.conftest import ROOT

SMALL = ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json"
TIMING = re.compile(r"(_ms|_s|seconds)$")


def untimed(value):
    """A stored figure without what depends on the clock or on ids chosen at random."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items()
                if not TIMING.search(k) and k not in ("run_id", "created_at")}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def memory_of(store, run_id: str) -> dict:
    """Everything a run stored that does not depend on when or where it ran."""
    info = runs.get_run(store, run_id)
    return {
        "run": (info.name, info.status, info.fingerprint, info.decider, info.windows_done,
                info.conversation_id),
        "messages": [m.model_dump() for m in records.load_messages(store, run_id)],
        "episodes": [e.model_dump() for e in records.load_episodes(store, run_id)],
        "memories": [m.model_dump() for m in records.load_memories(store, run_id)],
        "events": [(e.seq, e.stage, e.window, e.episode_ids, e.memory_ids)
                   for e in records.load_events(store, run_id)],
    }


def stored_eval(home) -> tuple[dict, list, dict]:
    store = open_store(home)
    [run] = results.list_evals(store)
    rows = [untimed(r.model_dump()) for r in results.load_questions(store, run.id)]
    memories = {conv: memory_of(store, rid) for conv, rid in run.memory_runs.items()}
    return untimed(run.summary), rows, memories


def dev_head(locomo_path, tmp_path, sessions: int = 4):
    """conv-26 and conv-30 from the shared LoCoMo file, their first sessions only (a whole
    conversation's memory takes a minute to build) and the questions about those."""
    keep = [f"session_{i}" for i in range(1, sessions + 1)]
    samples = []
    for sample in json.loads(locomo_path.read_text()):
        conv = sample["conversation"]
        sample["conversation"] = {k: v for k, v in conv.items()
                                  if k.startswith("speaker") or k.replace("_date_time", "") in keep}
        sample["qa"] = [q for q in sample["qa"] if q.get("evidence") and all(
            re.match(rf"D({'|'.join(str(i) for i in range(1, sessions + 1))}):", e)
            for e in q["evidence"])]
        samples.append(sample)
    path = tmp_path / "locomo-head.json"
    path.write_text(json.dumps(samples))
    return path


def short_conversation(locomo_path, n: int = 60) -> Conversation:
    conv = load_transcript(locomo_path).conversation("conv-30")
    return conv.model_copy(update={"messages": conv.messages[:n]})


def two_conversations(tmp_path):
    data = json.loads(SMALL.read_text())
    twin = json.loads(json.dumps(data[0]))
    twin["sample_id"] = "conv-twin"
    path = tmp_path / "two.json"
    path.write_text(json.dumps([data[0], twin]))
    return path
