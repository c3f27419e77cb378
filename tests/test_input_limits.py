"""Input that is not a transcript file, or numbers too large to store, stop with a clear
message naming the file and field: never a hang, a runaway read or a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from nemori_ui.cli import main
from nemori_ui.core.errors import InputError
from nemori_ui.core.transcripts import load_transcript, parse_transcript
from tests.conftest import ROOT


def load_within(path, seconds: float = 10.0, **kwargs):
    """load_transcript(path) in a thread: a read that blocks must fail the test, not hang it."""
    outcome: dict = {}

    def target():
        try:
            outcome["value"] = load_transcript(path, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome["error"] = exc
    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"reading {path} did not return within {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_link_to_a_device_is_refused_before_reading(tmp_path):
    link = tmp_path / "chat.txt"
    link.symlink_to("/dev/zero")
    with pytest.raises(InputError, match=r"chat\.txt: is a character device, not a regular file"):
        load_within(link)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "chat.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match=r"chat\.jsonl: is a named pipe \(FIFO\), not a regular"):
        load_within(fifo)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_the_cli_refuses_a_device_with_exit_2(tmp_path):
    link = tmp_path / "zero.txt"
    link.symlink_to("/dev/zero")
    done = subprocess.run([sys.executable, "-m", "nemori_ui", "inspect", str(link)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "zero.txt: is a character device, not a regular file" in done.stderr


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc")
def test_a_file_that_reports_no_size_is_read_with_the_limit():
    # /proc files are regular and report a size of 0 whatever they hold
    assert os.stat("/proc/self/status").st_size == 0
    with pytest.raises(InputError, match=r"/proc/self/status: file is over the limit of 64 bytes"):
        load_within("/proc/self/status", max_bytes=64)


def locomo(session_key: str) -> bytes:
    return json.dumps([{"sample_id": "s1", "conversation": {
        "speaker_a": "Ann", "speaker_b": "Bo",
        session_key: [{"speaker": "Ann", "dia_id": "D1:1", "text": "hi"}],
        f"{session_key}_date_time": "1:56 pm on 8 May, 2023"}}]).encode()


def test_a_huge_locomo_session_number_names_the_field():
    with pytest.raises(InputError) as info:
        parse_transcript(locomo("session_99999999999999999999"), source="big.json")
    text = str(info.value)
    assert "big.json" in text and "conversation.session_99999999999999999999" in text
    assert "session number" in text


def test_a_session_number_with_thousands_of_digits_names_the_field():
    key = "session_" + "9" * 5000
    with pytest.raises(InputError) as info:
        parse_transcript(locomo(key), source="big.json")
    assert "big.json" in str(info.value) and "session number" in str(info.value)
    assert "set_int_max_str_digits" not in str(info.value)


def test_the_cli_names_the_file_and_field_for_a_huge_session_number(tmp_path, capsys):
    path = tmp_path / "big.json"
    path.write_bytes(locomo("session_99999999999999999999"))
    assert main(["run", str(path), "--home", str(tmp_path / "home")]) == 2
    err = capsys.readouterr().err
    assert "big.json" in err and "session_99999999999999999999" in err
    assert "OverflowError" not in err


@pytest.mark.parametrize("name, data", [
    ("a.json", b'{"messages": [{"role": "user", "content": "hi", "n": 1' + b"1" * 5000 + b"}]}"),
    ("a.jsonl", b'{"speaker": "a", "text": "x"}\n{"speaker": "b", "text": "y", "n": '
     + b"7" * 5000 + b"}\n"),
], ids=["json", "jsonl"])
def test_a_number_of_thousands_of_digits_is_a_clear_error(name, data):
    with pytest.raises(InputError) as info:
        parse_transcript(data, source=name)
    text = str(info.value)
    assert name in text and "digits" in text and "line" in text
    assert "set_int_max_str_digits" not in text


def test_a_lone_surrogate_is_refused_naming_the_message():
    with pytest.raises(InputError, match=r"a\.json: field '\[0\]': the text of message m0001 "
                                         r"holds an unpaired surrogate"):
        parse_transcript(b'[{"role": "user", "content": "hi \\ud800 there"}]', source="a.json")


APP = str(ROOT / "app.py")


def run_page():
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_file(APP, default_timeout=120)
    at.run()
    at.switch_page("pages/run.py").run()
    return at


def test_the_app_names_the_field_of_a_huge_session_number():
    at = run_page()
    at.radio(key="source_kind").set_value("Upload a file").run()
    at.file_uploader(key="upload").upload("big.json", locomo("session_99999999999999999999"),
                                          "application/json").run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any("big.json" in e and "session_99999999999999999999" in e for e in errors), errors


def test_a_run_the_store_refuses_is_an_error_message_not_a_traceback(monkeypatch, isolated_home):
    from nemori_ui.core.store import open_store, runs
    from nemori_ui.core.store.runs import list_runs

    def refuse(*args, **kwargs):
        raise OverflowError("Python int too large to convert to SQLite INTEGER")
    monkeypatch.setattr(runs, "create_run", refuse)
    at = run_page()
    at.button(key="run_button").click().run()
    assert not at.exception, [e.value for e in at.exception]
    errors = [e.value for e in at.error]
    assert any("Could not start the run" in e and "too large" in e for e in errors), errors
    assert list_runs(open_store(isolated_home)) == []
