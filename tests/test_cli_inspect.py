"""`python -m nemori_ui inspect`: one real subprocess for the contract (one JSON document on
stdout, nothing heavy imported), in this process for the rest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nemori_ui.cli import main
from tests.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures" / "transcripts"


def cli(*args: str):
    return run_cli(*args)


def test_inspect_json_on_locomo_dev(locomo_path):
    proc = subprocess.run([sys.executable, "-m", "nemori_ui", "inspect", str(locomo_path),
                           "--json"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)            # exactly one JSON document, nothing else
    assert out["format"] == "locomo"
    assert [(c["id"], c["messages"], c["sessions"]) for c in out["conversations"]] == [
        ("conv-26", 419, 19), ("conv-30", 369, 19)]
    c26 = out["conversations"][0]
    assert c26["speakers"] == ["Caroline", "Melanie"]
    assert c26["first"] == "2023-05-08T13:56:00"
    assert set(c26) == {"id", "speakers", "sessions", "messages", "first", "last"}


def test_inspect_table_on_locomo_dev(locomo_path):
    proc = cli("inspect", str(locomo_path))
    assert proc.returncode == 0, proc.stderr
    assert "format locomo" in proc.stdout
    lines = proc.stdout.splitlines()
    row = next(line for line in lines if line.startswith("conv-26"))
    assert row.split()[1:5] == ["Caroline,", "Melanie", "19", "419"]
    assert "2023-05-08 13:56" in row


def test_inspect_bad_input_exits_2_with_message(tmp_path):
    bad = tmp_path / "broken.jsonl"
    bad.write_text('{"speaker": "a", "text": "x"}\n{"speaker": "b", oops}\n')
    proc = cli("inspect", str(bad), "--json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("error: ") and "broken.jsonl: line 2" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_inspect_missing_file_exits_2():
    proc = cli("inspect", "does-not-exist.txt")
    assert proc.returncode == 2
    assert "error: does-not-exist.txt: no such file" in proc.stderr


def test_inspect_path_stays_light():
    """The inspect path must not pull in the heavy libraries (start-up time)."""
    code = ("import sys\nfrom nemori_ui.cli import main\n"
            f"rc = main(['inspect', {str(FIXTURES / 'rows.csv')!r}, '--json'])\n"
            "heavy = {'numpy', 'pandas', 'faiss', 'streamlit', 'openai', 'onnxruntime'}\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy), rc)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == "[] 0"


def test_inspect_fixture_table(capsys):
    assert main(["inspect", str(FIXTURES / "rows.jsonl"), "--home", "/nowhere"]) == 0
    out = capsys.readouterr().out
    assert "format jsonl, 2 conversations, 4 messages" in out
    assert any(line.split()[:4] == ["c1", "Alice,", "Bob", "2"] for line in out.splitlines())


def test_inspect_no_timestamps_shows_dash(capsys):
    assert main(["inspect", str(FIXTURES / "chat_list.json"), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["conversations"][0]["first"] is None and out["conversations"][0]["last"] is None
    assert main(["inspect", str(FIXTURES / "chat_list.json")]) == 0
    row = capsys.readouterr().out.splitlines()[-1]
    assert row.split()[-2:] == ["-", "-"]


def test_inspect_column_option(capsys):
    args = ["inspect", str(FIXTURES / "custom_columns.csv"), "--json"]
    assert main(args) == 2
    assert "no text column" in capsys.readouterr().err
    assert main([*args, "--column", "speaker=who", "--column", "text=said"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["conversations"][0]["speakers"] == ["Alice", "Bob"]
    assert main([*args, "--column", "oops"]) == 2
    assert "--column expects FIELD=NAME" in capsys.readouterr().err


@pytest.mark.parametrize("fmt, message", [
    ("yaml", "unknown format 'yaml'"),
    ("locomo", "looks like 'chat'"),
])
def test_inspect_format_errors(capsys, fmt, message):
    assert main(["inspect", str(FIXTURES / "chat_list.json"), "--format", fmt]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err


def test_inspect_explicit_format(capsys):
    assert main(["inspect", str(FIXTURES / "dialogue.txt"), "--format", "text", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "text"


def test_help_lists_every_command_without_importing_one():
    """`python -m nemori_ui --help` is read before any command runs: it must be quick."""
    code = ("import sys\nfrom nemori_ui.cli import main\ntry:\n    main(['--help'])\n"
            "except SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('nemori_ui.cli.') and "
            "m != 'nemori_ui.cli.commands' or m.split('.')[0] in {'numpy', 'pydantic'}))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert all(f"    {name} " in proc.stdout for name in ("inspect", "run", "eval", "sweep"))
    assert proc.stdout.strip().splitlines()[-1] == "[]"
