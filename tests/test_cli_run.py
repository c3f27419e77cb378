"""The run, runs, ask and export commands as a user calls them, with real files (in this
process: tests/cli_runner.py; the kill of a run is tests/test_kill_resume.py's subprocess)."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from tests.cli_runner import copy_home, run_cli
from tests.conftest import SAMPLE


def cli(*args, home):
    return run_cli(*args, "--home", str(home))


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    home = tmp_path_factory.mktemp("cli-home")
    out = cli("run", str(SAMPLE), "--json", home=home)
    assert out.returncode == 0, out.stderr
    return home, json.loads(out.stdout)


def test_run_prints_one_json_object_with_the_figures(finished):
    _, summary = finished
    assert set(summary) >= {"run_id", "conversation", "messages", "windows", "raw_episodes",
                            "episodes", "integrated", "insights", "semantic_memories",
                            "decisions", "llm", "seconds"}
    assert summary["messages"] == 95 and summary["windows"] == 5
    assert summary["decider"] == "offline engine, no LLM"
    assert set(summary["decisions"]) == {"new", "merge", "conflict"}
    assert summary["llm"] == {"calls": 0, "cached": 0, "failed": 0, "input_tokens": 0,
                              "output_tokens": 0}


def test_runs_lists_the_run(finished):
    home, summary = finished
    out = cli("runs", "--json", home=home)
    listed = json.loads(out.stdout)
    assert [r["run_id"] for r in listed] == [summary["run_id"]]
    assert listed[0]["status"] == "done"


def test_ask_answers_with_scored_retrieval(finished):
    home, summary = finished
    out = cli("ask", summary["run_id"], "When is the 10k race?", "--json", home=home)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert "9 June" in result["answer"]
    assert result["episodes"] and all("score" in e for e in result["episodes"])
    assert result["semantic"] and result["raw"] and result["context_tokens"] > 0
    assert len(result["episodes"]) <= 10 and len(result["semantic"]) <= 20


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".parquet"])
def test_export_writes_the_whole_run(finished, tmp_path, suffix):
    home, summary = finished
    out_file = tmp_path / f"run{suffix}"
    out = cli("export", summary["run_id"], "--out", str(out_file), home=home)
    assert out.returncode == 0, out.stderr
    if suffix == ".json":
        doc = json.loads(out_file.read_text())
        assert set(doc) == {"run", "messages", "episodes", "semantic", "events", "llm_calls"}
        episode = doc["episodes"][0]
        assert {"id", "status", "cue", "narrative", "message_ids", "superseded_by"} <= set(episode)
        memory = doc["semantic"][0]
        assert {"id", "status", "text", "source_episode_ids", "superseded_by"} <= set(memory)
        assert len(doc["messages"]) == 95
    elif suffix == ".jsonl":
        rows = [json.loads(line) for line in out_file.read_text().splitlines()]
        assert {r["table"] for r in rows} == {"run", "messages", "episodes", "semantic", "events"}
    else:
        table = pq.read_table(out_file).to_pylist()
        assert sum(r["table"] == "messages" for r in table) == 95


def test_unknown_run_and_bad_export_name_exit_2(finished, tmp_path):
    home, summary = finished
    out = cli("ask", "no-such-run", "hello", home=home)
    assert out.returncode == 2 and "no run 'no-such-run'" in out.stderr
    out = cli("export", summary["run_id"], "--out", str(tmp_path / "run.xlsx"), home=home)
    assert out.returncode == 2 and "run.xlsx" in out.stderr and ".parquet" in out.stderr


def test_rerun_of_a_finished_run_starts_a_new_one_and_resume_continues(finished, tmp_path):
    home, first = finished
    home = copy_home(home, tmp_path / "h")
    second = json.loads(cli("run", str(SAMPLE), "--json", home=home).stdout)
    assert first["run_id"] != second["run_id"]
    assert {k: v for k, v in first.items() if k not in ("run_id", "seconds")} == \
        {k: v for k, v in second.items() if k not in ("run_id", "seconds")}
