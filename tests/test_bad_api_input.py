"""What is not text, a speaker that is not a name, a file name too long: refused with a clear
message by the Python API, the transcript loader, the Live page's typing and the command line,
and nothing stored."""

from __future__ import annotations

import json

import pytest

from nemori_ui import Memory
from nemori_ui.cli import main
from nemori_ui.core.errors import InputError
from nemori_ui.core.live_input import typed_message
from nemori_ui.core.models import Message
from nemori_ui.core.store import records
from nemori_ui.core.transcripts import parse_transcript
from nemori_ui.core.transcripts.fields import MAX_SPEAKER
from tests.cli_runner import run_cli

BAD = [
    ({"speaker": "Maya", "text": "bad \ud800 half"}, r"the text holds an unpaired surrogate \(\\ud800\)"),
    ({"speaker": "Ma\x00ya", "text": "hi"}, r"the speaker holds a NUL character"),
    ({"speaker": "Maya", "text": "a\x00b"}, r"the text holds a NUL character"),
    ({"speaker": "M" * 100_000, "text": "hi"}, r"the speaker is 100,000 characters long; a "
                                               r"speaker's name may have at most 200"),
    (Message(id="", speaker="\udc00", text="x"), r"the speaker holds an unpaired surrogate"),
]


@pytest.mark.parametrize("item, said", BAD, ids=["surrogate", "nul-speaker", "nul-text",
                                                  "long-speaker", "message-object"])
def test_memory_add_refuses_what_is_not_text_and_stores_nothing(item, said, tmp_path):
    memory = Memory(home=tmp_path, window=4)
    with pytest.raises(InputError, match=r"message 2: " + said) as info:
        memory.add([{"speaker": "Maya", "text": "fine"}, item])
    assert isinstance(info.value, ValueError)
    assert records.load_messages(memory.store, memory.run_id) == []   # not even message 1
    memory.close()


def test_a_speaker_of_the_limit_is_a_name_one_more_is_not(tmp_path):
    memory = Memory(home=tmp_path, window=4)
    assert memory.add({"speaker": "M" * MAX_SPEAKER, "text": "hi"}).message_ids == ["m0001"]
    with pytest.raises(InputError, match=f"is {MAX_SPEAKER + 1} characters long"):
        memory.add({"speaker": "M" * (MAX_SPEAKER + 1), "text": "hi"})
    memory.close()


@pytest.mark.parametrize("name, data, said", [
    ("a.json", json.dumps([{"role": "user", "name": "Maya\u0000", "content": "hi"}]),
     r"a\.json: field '\[0\]': the speaker of message m0001 holds a NUL character"),
    ("b.json", json.dumps({"messages": [{"role": "user", "content": "hi \u0000 there"}]}),
     r"b\.json: field 'messages\[0\]': the text of message m0001 holds a NUL character"),
    ("c.csv", "speaker,text\nJonas,hi\n" + "M" * 100_000 + ",hello\n",
     r"c\.csv: line 3: the speaker of message m0002 is 100,000 characters long"),
], ids=["json-nul-speaker", "json-nul-text", "csv-long-speaker"])
def test_the_transcript_loader_refuses_the_same_naming_where(name, data, said):
    with pytest.raises(InputError, match=said):
        parse_transcript(data.encode(), source=name)


def test_typing_on_the_live_page_refuses_the_same():
    with pytest.raises(InputError, match="the speaker is 100,000 characters long"):
        typed_message("M" * 100_000, "hi")
    with pytest.raises(InputError, match="the text holds an unpaired surrogate"):
        typed_message("Maya", "\ud800")


@pytest.fixture(scope="module")
def stored_run(tmp_path_factory):
    home = tmp_path_factory.mktemp("home")
    transcript = home / "t.txt"
    transcript.write_text("Maya: I started at the bakery.\nJonas: Congratulations!\n")
    done = run_cli("run", str(transcript), "--json", "--home", str(home))
    assert done.returncode == 0, done.stderr
    return home, json.loads(done.stdout)["run_id"]


@pytest.mark.parametrize("name", ["a" * 295 + ".json", "a" * 300 + "/run.json"],
                         ids=["file", "folder"])
def test_export_to_a_name_too_long_exits_2_saying_so(stored_run, tmp_path, name):
    home, run_id = stored_run
    done = run_cli("export", run_id, "--out", str(tmp_path / name), "--home", str(home))
    assert done.returncode == 2, done.stderr
    assert "a name in it is too long (300 characters; the file system allows at most 255)" \
        in done.stderr
    assert "OSError" not in done.stderr and "Traceback" not in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_export_to_a_path_with_a_nul_exits_2(stored_run, tmp_path, capsys):
    home, run_id = stored_run
    assert main(["export", run_id, "--out", str(tmp_path / "a\x00b.json"),
                 "--home", str(home)]) == 2
    assert "holds a NUL character" in capsys.readouterr().err


def test_export_still_writes_where_it_can(stored_run, tmp_path):
    home, run_id = stored_run
    assert main(["export", run_id, "--out", str(tmp_path / "x" / "run.json"),
                 "--home", str(home)]) == 0
    assert json.loads((tmp_path / "x" / "run.json").read_text())["run"]["id"] == run_id
