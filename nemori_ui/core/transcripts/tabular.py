"""Row-per-message formats: JSONL (one JSON object per line) and CSV (with a header row).

Columns are found by common names, case-insensitively; `column_map` names the others, e.g.
{"speaker": "who", "text": "said"}. A `conversation` column splits one file into several
conversations; a `session` column numbers sessions 1, 2, ... in order of first appearance
(the original labels are kept in `extra["session_labels"]`, because labels such as "s-a" or a
date cannot be Message.session integers).
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any, Callable, Iterator

from ..errors import InputError
from ..models import Conversation
from .chat import ROLES, content_text
from .common import Turn, build_conversation, kind, long_number, role_for, scalar_text, stem
from .timestamps import to_timestamp

FIELDS = {
    "speaker": ("speaker", "name", "author", "user", "from", "sender", "role"),
    "text": ("text", "content", "message", "body", "utterance"),
    "timestamp": ("timestamp", "time", "date", "datetime", "created_at", "ts"),
    "session": ("session", "session_id"),
    "conversation": ("conversation", "conversation_id", "conv_id", "dialog_id"),
    "role": ("role",),
}
_ROLE_VALUES = {**ROLES, "human": "user", "ai": "assistant", "bot": "assistant"}


def check_column_map(column_map: dict[str, str] | None) -> dict[str, str]:
    column_map = dict(column_map or {})
    for field, name in column_map.items():
        if field not in FIELDS:
            raise InputError(f"column_map: unknown field {field!r}; use one of "
                             f"{', '.join(FIELDS)}")
        if not isinstance(name, str) or not name.strip():
            raise InputError(f"column_map: the column for {field!r} needs a name")
    return column_map


def resolve(keys: list[str], column_map: dict[str, str]) -> dict[str, str]:
    """field -> actual key of this header/object. Mapped fields claim their column first."""
    lower: dict[str, str] = {}
    for key in keys:
        lower.setdefault(str(key).strip().lower(), key)
    cols: dict[str, str] = {}
    for field, name in column_map.items():
        if name.strip().lower() in lower:
            cols[field] = lower[name.strip().lower()]
    used = set(cols.values())
    for field, names in FIELDS.items():
        if field in column_map:
            continue
        for name in names:
            if name in lower and lower[name] not in used:
                cols[field] = lower[name]
                used.add(lower[name])
                break
    return cols


def _looked(field: str, column_map: dict[str, str]) -> str:
    if field in column_map:
        return f"column {column_map[field]!r} is missing or empty"
    return (f"looked for columns {', '.join(FIELDS[field])}; name another one with "
            f"--column {field}=NAME / column_map")


def _missing(field: str, column_map: dict[str, str]) -> str:
    return f"no {field} ({_looked(field, column_map)})"


class _Builder:
    """Collects rows into conversations and numbers their sessions."""

    def __init__(self, source: str, column_map: dict[str, str]):
        self.source, self.column_map = source, column_map
        self.convs: dict[str, tuple[list[Turn], list[str]]] = {}
        self.has_sessions = False

    def add(self, get: Callable[[str], Any], cols: dict[str, str], line: int) -> None:
        src, where = self.source, {"file": self.source, "line": line}

        def value(field: str) -> Any:
            v = get(cols[field]) if field in cols else None
            return None if v is None or (isinstance(v, str) and not v.strip()) else v

        text = value("text")
        if text is None:
            raise InputError(_missing("text", self.column_map), **where)
        if not isinstance(text, (str, list)):
            text = scalar_text(text, **where, field=cols["text"], what="text")
        text = content_text(text, file=src, line=line, field=cols["text"])
        speaker = value("speaker")
        if speaker is None:
            raise InputError(_missing("speaker", self.column_map), **where)
        speaker = scalar_text(speaker, **where, field=cols["speaker"], what="a name").strip()
        role = value("role")
        role = (_ROLE_VALUES.get(str(role).strip().lower(), "other") if role is not None
                else role_for(speaker))
        stamp = value("timestamp")
        when = to_timestamp(stamp, **where, field=cols["timestamp"]) if stamp is not None else None

        conv_key = value("conversation")
        if conv_key is not None:
            conv_key = scalar_text(conv_key, **where, field=cols["conversation"],
                                   what="a conversation id")
        turns, labels = self.convs.setdefault(conv_key or "", ([], []))
        label = value("session")
        if label is not None:
            label = scalar_text(label, **where, field=cols["session"], what="a session label")
            self.has_sessions = True
            if str(label) not in labels:
                labels.append(str(label))
            session = labels.index(str(label)) + 1
        else:   # a row without a session stays in the session of the row before it
            session = turns[-1].session if turns else 1
        turns.append(Turn(speaker=speaker, text=text, role=role, timestamp=when,
                          session=session, source_ref=f"line {line}"))

    def conversations(self) -> list[Conversation]:
        result = []
        for key, (turns, labels) in self.convs.items():
            extra = {"session_labels": labels} if self.has_sessions else {}
            result.append(build_conversation(key or stem(self.source), turns, extra))
        return result


def parse_jsonl(text: str, *, source: str, column_map: dict[str, str] | None = None
                ) -> list[Conversation]:
    column_map = check_column_map(column_map)
    builder = _Builder(source, column_map)
    cache: dict[tuple, dict[str, str]] = {}
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"not valid JSON: {exc.msg} at column {exc.colno}",
                             file=source, line=n) from None
        except (ValueError, RecursionError) as exc:
            raise long_number(line, file=source, line=n) or InputError(
                f"not valid JSON: {type(exc).__name__}", file=source, line=n) from None
        if not isinstance(row, dict):
            raise InputError(f"expected a JSON object, got {kind(row)}", file=source, line=n)
        keys = tuple(row)
        if keys not in cache:
            cache[keys] = resolve(list(keys), column_map)
        builder.add(row.get, cache[keys], n)
    return builder.conversations()


def csv_delimiter(header_line: str, column_map: dict[str, str] | None = None) -> str | None:
    """',' or '\\t' if this line is a header with a recognised text column, else None."""
    texts = set(FIELDS["text"])
    if column_map and isinstance(column_map.get("text"), str):
        texts = {column_map["text"].strip().lower()}
    for delim in (",", "\t", ";"):
        if delim not in header_line:
            continue
        try:
            cells = next(csv.reader([header_line], delimiter=delim))
        except (csv.Error, StopIteration):
            continue
        if len(cells) >= 2 and texts & {c.strip().lower() for c in cells}:
            return delim
    return None


def _rows(text: str, delimiter: str, source: str) -> Iterator[tuple[int, list[str]]]:
    """(first line of the record, cells) for every non-blank record."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    end = 0
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise InputError(f"CSV: {exc}", file=source, line=reader.line_num) from None
        start, end = end + 1, reader.line_num
        if any(cell.strip() for cell in row):
            yield start, row


def unclosed_quote(text: str, delimiter: str) -> tuple[int, str] | None:
    """(line, why) of a quoted field that swallows the rows after it, or None.

    The csv module reads an unterminated quote as text up to the end of the file (or up to the
    next quote anywhere), so the rows after it silently become one message. A quoted field that
    never closes, or that runs across lines and then closes in the middle of a field (a quote
    was missing and a later one closed it), is such a swallow; a quoted field that spans lines
    and closes properly is legitimate multi-line text.
    """
    boundary = re.compile(re.escape(delimiter) + "|\n")
    i, line, n, field_start = 0, 1, len(text), True
    while i < n:
        if field_start and text[i] == '"':
            j = i + 1
            while True:
                k = text.find('"', j)
                if k == -1:
                    return line, "the quote opened here is never closed"
                if text.startswith('""', k):
                    j = k + 2           # a doubled quote is a quote inside the text
                    continue
                break
            spanned = text.count("\n", i, k)
            after = text[k + 1:k + 2]
            if spanned and after not in (delimiter, "\n", ""):
                return line, (f"the quote opened here runs over {spanned + 1} lines and closes "
                              f"in the middle of a field on line {line + spanned}: a closing "
                              "quote is missing")
            line += spanned
            i, field_start = k + 1, False
            continue
        found = boundary.search(text, i)
        if not found:
            break
        if found.group() == "\n":
            line += 1
        i, field_start = found.end(), True
    return None


def parse_csv(text: str, *, source: str, column_map: dict[str, str] | None = None,
              delimiter: str | None = None) -> list[Conversation]:
    column_map = check_column_map(column_map)
    delimiter = delimiter or _guess_delimiter(text, column_map)
    problem = unclosed_quote(text, delimiter)
    if problem:
        line, why = problem
        raise InputError(f"CSV: {why}, so the rows after it would be read as one message's "
                         'text (close the quote, or write a quote inside text as "")',
                         file=source, line=line)
    rows = _rows(text, delimiter, source)
    header_line, header = next(rows, (1, []))
    cols = resolve(header, column_map)
    for field in ("text", "speaker"):
        if field not in cols:
            found = ", ".join(repr(h) for h in header[:12])
            raise InputError(f"CSV header has no {field} column (found {found}; "
                             f"{_looked(field, column_map)})", file=source, line=header_line)
    index = {name: i for i, name in reversed(list(enumerate(header)))}
    builder = _Builder(source, column_map)
    for line, row in rows:
        if len(row) > len(header):
            raise InputError(f"row has {len(row)} fields but the header has {len(header)} "
                             "(quote text that contains the delimiter)", file=source, line=line)
        builder.add(lambda name: row[index[name]] if index[name] < len(row) else None,
                    cols, line)
    return builder.conversations()


def _guess_delimiter(text: str, column_map: dict[str, str]) -> str:
    first = next((line for line in text.split("\n") if line.strip()), "")
    return csv_delimiter(first, column_map) or ("\t" if "\t" in first else ",")
