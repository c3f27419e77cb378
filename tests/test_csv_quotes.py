"""An unterminated quote in a CSV is refused at the line where it opened, instead of the rows
after it being swallowed into one message; legitimate quoting still reads as before."""

from __future__ import annotations

import pytest

from nemori_ui.cli import main
from nemori_ui.core.errors import InputError
from nemori_ui.core.transcripts import parse_transcript


def texts(data: str, source: str = "chat.csv") -> list[tuple[str, str]]:
    conv = parse_transcript(data.encode(), source=source).conversations[0]
    return [(m.speaker, m.text) for m in conv.messages]


@pytest.mark.parametrize("data, line", [
    ('speaker,text\nann,hi\nbo,"hello\ncy,how are you\ndi,fine\n', 3),
    ('speaker,text\nann,"never closed', 2),
    # a later quote closes the field: the rows between would silently become text
    ('speaker,text\nann,"hello\nbo,hi\ncy,"quoted" word\ndi,x\n', 2),
    ('speaker;text\nann;hi\nbo;"open\ncy;x\n', 3),
], ids=["to-the-end", "last-line", "closed-by-a-later-quote", "semicolons"])
def test_an_unterminated_quote_names_the_line_it_opened(data, line):
    with pytest.raises(InputError) as info:
        parse_transcript(data.encode(), source="chat.csv")
    message = str(info.value)
    assert message.startswith(f"chat.csv: line {line}: CSV:"), message
    assert "quote" in message


def test_a_tab_separated_file_is_checked_too():
    with pytest.raises(InputError, match=r"chat\.tsv: line 2: CSV: the quote opened here is "
                                         "never closed"):
        parse_transcript(b'speaker\ttext\nann\t"hi\nbo\tyes\n', source="chat.tsv")


def test_legitimate_quoting_still_reads():
    got = texts('speaker,text\nann,"two\nlines"\nbo,"say ""hi"", then, go"\ncy,a 5" screen\n'
                'di,"""quoted"" at the start"\n')
    assert got == [("ann", "two\nlines"), ("bo", 'say "hi", then, go'), ("cy", 'a 5" screen'),
                   ("di", '"quoted" at the start')]


def test_the_cli_exits_2_with_the_line(tmp_path, capsys):
    path = tmp_path / "chat.csv"
    path.write_text('speaker,text\nann,hi\nbo,"hello\ncy,how are you\n')
    assert main(["inspect", str(path)]) == 2
    assert f"{path}: line 3: CSV: the quote opened here is never closed" in capsys.readouterr().err
