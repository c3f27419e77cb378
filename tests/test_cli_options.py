"""Options out of range, and output paths that cannot be written, stop a command with exit 2
and one line naming the option or the path: no pydantic dump, no traceback."""

from __future__ import annotations

import json

import pytest

from nemori_ui.cli import main
from nemori_ui.core.clients import build_clients
from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.pipeline.runner import run_windows, start_run
from nemori_ui.core.store import open_store
from nemori_ui.core.transcripts import parse_transcript

SMALL = (b"[2024-03-04 18:02] Maya: I started a new job at Finch Labs today.\n"
         b"[2024-03-04 18:03] Jonas: Congratulations! Do you cycle there?\n")


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.txt"
    path.write_bytes(SMALL)
    return path


def one_error_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err and "validation error" not in err and "pydantic" not in err
    return err


@pytest.mark.parametrize("command, option", [
    (["run", "{file}", "--window", "1"], "--window 1"),
    (["run", "{file}", "--tau", "5"], "--tau 5.0"),
    (["run", "{file}", "--tau", "nan"], "--tau nan"),
    (["run", "{file}", "--concurrency", "0"], "--concurrency 0"),
    (["run", "{file}", "--k-e", "0"], "--k-e 0"),
    (["eval", "locomo", "{file}", "--tau", "5"], "--tau 5.0"),
    (["eval", "locomo", "{file}", "--concurrency", "0"], "--concurrency 0"),
    (["sweep", "{file}", "--tau", "0.5,5"], "--tau 5.0"),
    (["sweep", "{file}", "--window", "1"], "--window 1"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_an_option_out_of_range_exits_2_naming_it(command, option, small, tmp_path, capsys):
    argv = [a.format(file=small) for a in command] + ["--home", str(tmp_path / "home")]
    assert main(argv) == 2
    err = one_error_line(capsys)
    assert err.startswith("error: ") and option in err, err
    assert not (tmp_path / "home" / "nemori.db").exists() or "sweep" not in command


@pytest.fixture
def finished(tmp_path):
    home = tmp_path / "home"
    store = open_store(home)
    config = PipelineConfig()
    clients = build_clients(config, store)
    conv = parse_transcript(SMALL, source="small.txt").conversations[0]
    run_id = start_run(store, conv, config, clients, source="small.txt", fmt="text")
    run_windows(store, run_id, clients)
    return home, run_id


def test_an_export_to_a_directory_is_one_line(finished, tmp_path, capsys):
    home, run_id = finished
    folder = tmp_path / "out.json"
    folder.mkdir()
    assert main(["export", run_id, "--out", str(folder), "--home", str(home)]) == 2
    err = one_error_line(capsys)
    assert str(folder) in err and "is a directory" in err


def test_an_export_under_a_file_is_one_line(finished, tmp_path, capsys):
    home, run_id = finished
    (tmp_path / "notes.txt").write_text("x")
    out = tmp_path / "notes.txt" / "run.json"
    assert main(["export", run_id, "--out", str(out), "--home", str(home)]) == 2
    err = one_error_line(capsys)
    assert str(out) in err and "cannot create the folder" in err


def test_an_export_to_a_missing_folder_creates_it(finished, tmp_path, capsys):
    home, run_id = finished
    out = tmp_path / "new" / "deeper" / "run.json"
    assert main(["export", run_id, "--out", str(out), "--home", str(home)]) == 0
    assert json.loads(out.read_text())["run"]["id"] == run_id


@pytest.mark.parametrize("where", ["dir", "missing"])
def test_eval_csv_that_cannot_be_written_fails_before_the_evaluation(where, small, tmp_path,
                                                                      capsys):
    target = tmp_path / ("out.csv" if where == "dir" else "missing/out.csv")
    if where == "dir":
        target.mkdir()
    argv = ["eval", "locomo", str(small), "--csv", str(target), "--home", str(tmp_path / "h")]
    assert main(argv) == 2
    err = one_error_line(capsys)
    assert "--csv" in err and str(target) in err
