"""The harness with the offline engine: all of conv-30 (81 scored questions, about 40 s with
the memory build), the baselines, memory reuse, every ablation, bad data and the command."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.eval import qa, results
from nemori_ui.core.eval.ablations import VARIANTS
from nemori_ui.core.eval.baselines import Rag, chunk_vectors, line, make_chunks
from nemori_ui.core.eval.conversation import construction_fingerprint
from nemori_ui.core.eval.harness import OFFLINE_JUDGE_NOTE, EvalOptions, evaluate
from nemori_ui.core.models import Message
from nemori_ui.core.retrieval import count_tokens
from nemori_ui.core.store import open_store, runs
from nemori_ui.core.transcripts import load_transcript
from tests.cli_runner import run_cli
from tests.conftest import ROOT
from tests.fakes import HashEmbedder

SMALL = ROOT / "tests" / "fixtures" / "transcripts" / "locomo_small.json"
CONV30 = {"1": 11, "2": 26, "4": 44}     # scored questions of conv-30 by category (no 3)


@pytest.fixture(scope="module")
def conv30(locomo_path, tmp_path_factory):
    store = open_store(tmp_path_factory.mktemp("eval-home"))
    transcript = load_transcript(locomo_path)
    done = {}
    for name in ("nemori", "rag-4096", "full-context"):
        done[name] = evaluate(store, transcript, PipelineConfig(),
                              EvalOptions(variant=name, conversations=["conv-30"]),
                              source=str(locomo_path))
    return store, transcript, done


def test_conv30_scores_every_category_with_evidence_recall(conv30):
    _, _, done = conv30
    s = done["nemori"].summary
    assert s["questions"] == 81
    assert {k: g["questions"] for k, g in s["by_category"].items()} == CONV30
    assert [g["name"] for g in s["by_category"].values()] == ["multi-hop", "temporal",
                                                              "single-hop"]
    for g in [*s["by_category"].values(), s["overall"]]:
        assert g["judge"] is None and g["judged"] == 0
        assert 0 <= g["f1"] <= 100 and 0 <= g["bleu1"] <= 100
        assert g["recall"] is not None and g["recall_questions"] == g["questions"]
        assert g["context_tokens"] > 0 and g["total_ms"] >= g["retrieval_ms"] > 0
    assert s["overall"]["recall"] > 30         # retrieval finds evidence, not noise
    assert s["skipped"] == {qa.ADVERSARIAL: 24}
    assert s["judge"] == {"model": None, "note": OFFLINE_JUDGE_NOTE}


def test_the_json_shape(conv30):
    out = results.summary_json(conv30[2]["nemori"])
    assert {"overall", "by_category", "questions", "skipped"} <= set(out)
    assert out["questions"] == 81 and out["variant"] == "nemori"
    json.dumps(out)


def test_baselines_on_the_same_questions(conv30):
    _, _, done = conv30
    rag, full = done["rag-4096"].summary, done["full-context"].summary
    assert rag["questions"] == full["questions"] == 81
    assert full["overall"]["recall"] == 100.0      # the whole transcript holds every turn
    assert rag["overall"]["context_tokens"] <= 4096
    assert full["overall"]["context_tokens"] > 10_000
    assert done["rag-4096"].memory_runs == done["full-context"].memory_runs == {}


def test_results_are_stored_and_export(conv30):
    store, _, done = conv30
    run = done["nemori"]
    assert {r.id for r in results.list_evals(store)} >= {r.id for r in done.values()}
    rows = results.load_questions(store, run.id)
    assert len(rows) == 81 and all(r.evidence for r in rows)
    assert results.load_context(store, run.id, rows[0].item_id)
    # the full transcript is not stored once per question
    assert results.load_context(store, done["full-context"].id, rows[0].item_id) is None
    text = results.questions_csv(run, rows)
    assert text.splitlines()[0].startswith("eval_id,variant,conversation,item,category")
    assert len(text.strip().splitlines()) == 82
    summary = results.summary_csv(list(done.values()))
    assert len(summary.strip().splitlines()) == 1 + 3 * 4
    assert results.get_eval(store, run.id).summary == run.summary


def test_a_finished_memory_is_reused(conv30):
    store, transcript, done = conv30
    before = len(runs.list_runs(store))
    again = evaluate(store, transcript, PipelineConfig(k=5),
                     EvalOptions(variant="no-raw", conversations=["conv-30"], k=5, limit=4),
                     source="elsewhere/locomo.json")
    assert again.memory_runs == done["nemori"].memory_runs
    assert len(runs.list_runs(store)) == before
    assert again.summary["questions"] == 4 and again.config.k == 5


def test_retrieval_settings_do_not_change_the_memory_fingerprint():
    base = construction_fingerprint(PipelineConfig())
    assert construction_fingerprint(PipelineConfig(k=3, r=1, concurrency=2)) == base
    assert construction_fingerprint(PipelineConfig(tau=0.5)) != base


# -- every variant, bad data and the command line on a tiny transcript ---------------------------

def write_locomo(tmp_path, qa_items) -> str:
    doc = json.loads(SMALL.read_text())
    doc[0]["qa"] = qa_items
    path = tmp_path / "small.json"
    path.write_text(json.dumps(doc))
    return str(path)


GOOD = [{"question": "What did Ana adopt?", "answer": "a puppy", "evidence": ["D1:1"],
         "category": 4},
        {"question": "When did Ana adopt the puppy?", "answer": "the week before 8 May 2023",
         "evidence": ["D1:1; D1:3"], "category": 2}]


@pytest.mark.parametrize("name", list(VARIANTS))
def test_every_variant_answers(tmp_path, name):
    path = write_locomo(tmp_path, GOOD)
    store = open_store(tmp_path / "home")
    run = evaluate(store, load_transcript(path), PipelineConfig(), EvalOptions(variant=name),
                   source=path)
    rows = results.load_questions(store, run.id)
    assert len(rows) == 2 and all(r.answer for r in rows)
    v = VARIANTS[name]
    context = results.load_context(store, run.id, rows[0].item_id) or ""
    if v.memory:
        assert ("Episodic memories:" in context) == (v.episodic and v.content == "N")
        assert ("Original messages" in context) == (v.raw or v.content == "P")
        assert set(run.memory_runs) == {"conv-mini"}
    semantic_only = v.memory and not v.episodic and not v.raw
    # without episodes, recall counts only the turns retrieved memories carry
    assert (rows[0].recall_episodes is None) == semantic_only or not v.memory
    if semantic_only:
        assert rows[0].recall is not None and rows[0].evidence_share_episodes is None


def test_malformed_items_are_reported_and_skipped(tmp_path):
    path = write_locomo(tmp_path, GOOD + [
        {"question": "Who is Ben?", "evidence": ["D1:2"], "category": 4},          # no answer
        {"question": "Which year?", "answer": 2023, "evidence": ["D7:7"], "category": 2},
        {"question": "Odd?", "answer": "yes", "evidence": ["nowhere"], "category": 1},
        {"question": "What did Ben adopt?", "adversarial_answer": "a puppy", "category": 5},
        {"question": "Broken", "answer": "x", "category": "two"},
    ])
    store = open_store(tmp_path / "home")
    run = evaluate(store, load_transcript(path), PipelineConfig(), EvalOptions(), source=path)
    s = run.summary
    assert s["questions"] == 4
    assert s["skipped"] == {qa.NO_ANSWER: 1, qa.BAD_EVIDENCE: 2, qa.ADVERSARIAL: 1,
                            qa.BAD_CATEGORY: 1}
    assert s["overall"]["recall_questions"] == 2
    reported = {(i["item"], i["reason"]) for i in s["issues"]}
    assert ("conv-mini#3", qa.NO_ANSWER) in reported
    assert ("conv-mini#2", qa.REPAIRED) in reported
    rows = {r.item_id: r for r in results.load_questions(store, run.id)}
    assert rows["conv-mini#4"].gold == "2023" and rows["conv-mini#4"].recall is None


def test_the_command_prints_json_and_a_table(tmp_path):
    path = write_locomo(tmp_path, GOOD)
    home = tmp_path / "home"

    def cli(*args):
        return run_cli("eval", "locomo", path, *args, "--home", str(home))

    out = cli("--json", "--variant", "nemori,full-context", "--csv", str(tmp_path / "q.csv"))
    assert out.returncode == 0, out.stderr
    first, second = [json.loads(x) for x in out.stdout.splitlines()]
    assert {"overall", "by_category", "questions", "skipped"} <= set(first)
    assert (first["variant"], second["variant"]) == ("nemori", "full-context")
    assert first["judge"]["note"] == OFFLINE_JUDGE_NOTE
    assert len((tmp_path / "q.csv").read_text().strip().splitlines()) == 1 + 2 * 2
    table = cli("--variant", "rag-4096")
    assert table.returncode == 0, table.stderr
    assert "single-hop" in table.stdout and "overall" in table.stdout
    bad = cli("--categories", "1,9")
    assert bad.returncode == 2 and "--categories" in bad.stderr
    unknown = cli("--conversations", "conv-404")
    assert unknown.returncode == 2 and "conv-404" in unknown.stderr


# -- RAG-4096 chunks -----------------------------------------------------------------------------

def messages(n: int, words: int = 40) -> list[Message]:
    return [Message(id=f"m{i:04d}", speaker="Ana", text=" ".join(f"w{i}x{j}" for j in range(words)))
            for i in range(n)]


def test_chunks_hold_whole_messages_up_to_the_size():
    ms = messages(300)
    chunks = make_chunks(ms, 4096)
    assert [m.id for c in chunks for m in c.messages] == [m.id for m in ms]
    assert len(chunks) > 1
    assert all(count_tokens(c.text) <= 4096 for c in chunks)
    # a chunk ends only where the next message would not fit
    for a, b in zip(chunks, chunks[1:]):
        assert count_tokens(a.text + "\n" + line(b.messages[0])) > 4096


def test_rag_gives_the_best_chunk_within_the_budget():
    ms = messages(300)
    embedder = HashEmbedder(dim=4096)     # wide enough that 2,000-word chunks stay apart
    rag = Rag(ms, embedder)
    target = ms[250]
    found = rag(target.text, embedder.embed([target.text])[0])
    assert target.id in found.message_ids
    assert len(found.rows["chunks"]) == 1 and found.context_tokens <= 4096 + 10


class ShortReader(HashEmbedder):
    max_length = 256      # like MiniLM: only the start of a long text would be read


def test_a_short_input_embedder_gets_the_mean_of_a_chunks_messages():
    ms = messages(40)
    chunks = make_chunks(ms, 4096)
    short, whole = ShortReader(), HashEmbedder()
    means = chunk_vectors(chunks, short)
    per_message = short.embed([f"{m.speaker}: {m.text}" for m in chunks[0].messages])
    expected = per_message.mean(axis=0)
    assert np.allclose(means[0], expected / np.linalg.norm(expected), atol=1e-6)
    assert np.allclose(chunk_vectors(chunks, whole)[0], whole.embed([chunks[0].text])[0])
