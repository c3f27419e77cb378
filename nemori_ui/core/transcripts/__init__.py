"""Transcript import: read a file (or uploaded bytes), detect its format, parse it.

    load_transcript(path, format=None, max_bytes=..., column_map=None) -> Transcript
    parse_transcript(data, source="chat.json", ...)                    -> Transcript
    detect_format(source, text) -> one of FORMATS

Every problem with the input is an InputError naming the file and the line or field; nothing
else escapes for bad input. Timestamps are naive (see timestamps.py).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path, PurePath
from typing import Any

from ..errors import InputError
from ..models import Transcript
from . import chat, locomo, longmemeval, plaintext, tabular
from .common import describe, load_json
from .fields import field_problem
from .outline import outline

__all__ = ["FORMATS", "DEFAULT_MAX_BYTES", "load_transcript", "parse_transcript",
           "detect_format", "outline"]

FORMATS = ("locomo", "longmemeval", "chat", "jsonl", "csv", "text")
DEFAULT_MAX_BYTES = 20 * 1024 * 1024
_ALIASES = {"openai": "chat", "ndjson": "jsonl", "tsv": "csv", "txt": "text",
            "plaintext": "text", "plain": "text"}
_JSON_FORMATS = {"locomo": locomo, "longmemeval": longmemeval, "chat": chat}
_NO_DOC = object()      # "JSON not parsed (yet)"; None is a valid JSON document


def load_transcript(path: str | Path, *, format: str | None = None,
                    max_bytes: int = DEFAULT_MAX_BYTES,
                    column_map: dict[str, str] | None = None) -> Transcript:
    shown = str(path)
    p = Path(path)
    try:
        data = _read_regular(p, max_bytes, shown)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=shown) from None
    except ValueError as exc:     # e.g. a NUL character in the path
        if isinstance(exc, InputError):
            raise
        raise InputError(f"not a usable path: {exc}", file=shown) from None
    return _parse(data, shown=shown, name=p.name, format=format, max_bytes=max_bytes,
                  column_map=column_map)


def _read_regular(p: Path, max_bytes: int, shown: str) -> bytes:
    """The bytes of a regular file, at most max_bytes of them.

    A device (/dev/zero), FIFO or socket reports a size of 0 and then reads without end or
    blocks forever, so anything but a regular file is refused before it is opened, the file is
    opened without blocking, checked again (it may have been swapped meanwhile), and read with
    a limit rather than trusting the size it reports.
    """
    if not p.exists():
        raise InputError("no such file", file=shown)
    if p.is_dir():
        raise InputError("is a directory, not a transcript file", file=shown)
    if not stat.S_ISREG(p.stat().st_mode):
        raise InputError(f"is {_kind_of(p.stat().st_mode)}, not a regular file", file=shown)
    fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as fh:
        mode = os.fstat(fh.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise InputError(f"is {_kind_of(mode)}, not a regular file", file=shown)
        _check_size(os.fstat(fh.fileno()).st_size, max_bytes, shown)
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:       # it grew while being read
        raise InputError(f"file is over the limit of {_size(max_bytes)}", file=shown)
    return data


def _kind_of(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def parse_transcript(data: bytes | str, *, source: str, format: str | None = None,
                     max_bytes: int = DEFAULT_MAX_BYTES,
                     column_map: dict[str, str] | None = None) -> Transcript:
    """Same as load_transcript, from the content and file name of an upload."""
    return _parse(data, shown=source, name=PurePath(source).name or source, format=format,
                  max_bytes=max_bytes, column_map=column_map)


def detect_format(source: str, text: str, *, column_map: dict[str, str] | None = None) -> str:
    return _detect(source, text, column_map)[0]


def _parse(data: bytes | str, *, shown: str, name: str, format: str | None, max_bytes: int,
           column_map: dict[str, str] | None) -> Transcript:
    fmt = _canonical(format)
    text = _decode(data, shown, max_bytes)
    if not text.strip():
        raise InputError("file is empty", file=shown)
    if fmt is None:
        fmt, doc = _detect(shown, text, column_map)
        convs = _dispatch(fmt, text, doc, shown, column_map)
    else:
        try:
            convs = _dispatch(fmt, text, _NO_DOC, shown, column_map)
        except InputError as exc:
            raise _with_hint(exc, fmt, shown, text, column_map) from None

    if not convs:
        raise InputError("no conversations found", file=shown)
    seen: set[str] = set()
    for conv in convs:
        if not conv.messages:
            raise InputError(f"conversation '{conv.id}' has no messages", file=shown)
        if conv.id in seen:
            raise InputError(f"conversation id '{conv.id}' appears more than once", file=shown)
        seen.add(conv.id)
        _check_fields(conv, shown)
    return Transcript(format=fmt, source=name, conversations=convs)


def _check_fields(conv, shown: str) -> None:
    """Escapes can spell what is not text (a lone surrogate "\\ud800", a NUL "\\u0000"), and
    a speaker can be a whole text: refused here, as the Python API refuses them (`fields`),
    rather than failing the run later."""
    for m in conv.messages:
        for name, value in (("speaker", m.speaker), ("text", m.text)):
            problem = field_problem(name, value)
            if problem:
                ref = m.source_ref or ""
                line = int(ref[5:]) if ref.startswith("line ") and ref[5:].isdigit() else None
                raise InputError(f"the {name} of message {m.id} {problem}", file=shown,
                                 line=line, field=None if line else m.source_ref)


def _canonical(format: str | None) -> str | None:
    if format is None or format == "" or format == "auto":
        return None
    key = str(format).strip().lower()
    name = _ALIASES.get(key, key)
    if name not in FORMATS:
        raise InputError(f"unknown format {format!r}; choose one of {', '.join(FORMATS)} "
                         "(or leave it out to detect the format)")
    return name


def _check_size(size: int, max_bytes: int, shown: str) -> None:
    if size > max_bytes:
        raise InputError(f"file is {_size(size)}, over the limit of {_size(max_bytes)}",
                         file=shown)


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MB" if n >= 1024 * 1024 else f"{n} bytes"


def _decode(data: bytes | str, shown: str, max_bytes: int) -> str:
    if isinstance(data, str):
        _check_size(len(data.encode("utf-8", "surrogatepass")), max_bytes, shown)
        text = data
    else:
        _check_size(len(data), max_bytes, shown)
        # Only UTF-16 files (which need a byte-order mark here) legitimately contain NUL bytes.
        encoding = "utf-16" if data.startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8-sig"
        if encoding != "utf-16" and b"\x00" in data:
            raise _binary(shown, data.count(b"\n", 0, data.index(b"\x00")) + 1)
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError as exc:
            line = data.count(b"\n", 0, exc.start) + 1
            name = ("UTF-16 text (it starts with a UTF-16 byte-order mark)"
                    if encoding == "utf-16" else "UTF-8 text")
            raise InputError(f"not {name}: byte 0x{data[exc.start]:02x} at offset "
                             f"{exc.start} cannot be decoded; save the file as UTF-8",
                             file=shown, line=line) from None
    text = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        raise _binary(shown, text.count("\n", 0, text.index("\x00")) + 1)
    return text


def _binary(shown: str, line: int) -> InputError:
    return InputError("looks like a binary file (it contains NUL bytes), not a transcript",
                      file=shown, line=line)


def _dispatch(fmt: str, text: str, doc: Any, shown: str,
              column_map: dict[str, str] | None) -> list:
    if fmt in _JSON_FORMATS:
        if doc is _NO_DOC:
            doc = load_json(text, file=shown, fmt=fmt)
        return _JSON_FORMATS[fmt].parse(doc, source=shown)
    if fmt == "jsonl":
        return tabular.parse_jsonl(text, source=shown, column_map=column_map)
    if fmt == "csv":
        delimiter = "\t" if PurePath(shown).suffix.lower() == ".tsv" else None
        return tabular.parse_csv(text, source=shown, column_map=column_map, delimiter=delimiter)
    return plaintext.parse(text, source=shown)


def _detect(source: str, text: str, column_map: dict[str, str] | None) -> tuple[str, Any]:
    """(format, parsed JSON document or _NO_DOC), by content first, then by file extension."""
    ext = PurePath(source).suffix.lower()
    stripped = text.strip()
    if not stripped:
        raise InputError("file is empty", file=source)
    lines = [line for line in stripped.split("\n") if line.strip()]
    if ext == ".json" or stripped[0] in "[{":
        try:
            doc = json.loads(stripped)
        except (ValueError, RecursionError):
            doc = _NO_DOC
        if doc is not _NO_DOC:
            for fmt, module in _JSON_FORMATS.items():
                if module.looks_like(doc):
                    return fmt, doc
            if isinstance(doc, dict) and (ext in (".jsonl", ".ndjson") or _is_row(doc, column_map)):
                return "jsonl", _NO_DOC     # a JSONL file with a single line
            raise InputError(
                f"JSON of an unrecognised shape: found {describe(doc)}; expected LoCoMo "
                "(objects with 'sample_id' and 'conversation'), LongMemEval (objects with "
                "'haystack_sessions'), chat (a list of {'role', 'content'} messages or "
                "{'messages': [...]}), or one JSON object per line (JSONL)", file=source)
        if len(lines) > 1 and _first_is_object(lines[0]):
            return "jsonl", _NO_DOC
        if ext == ".json":
            load_json(stripped, file=source)    # raises with the decoder's line
    if ext in (".jsonl", ".ndjson"):
        return "jsonl", _NO_DOC
    if ext in (".csv", ".tsv") or tabular.csv_delimiter(lines[0], column_map):
        return "csv", _NO_DOC
    return "text", _NO_DOC


def _first_is_object(line: str) -> bool:
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, RecursionError):
        return False


def _is_row(doc: dict, column_map: dict[str, str] | None) -> bool:
    try:
        cols = tabular.resolve(list(doc), tabular.check_column_map(column_map))
    except InputError:
        return False
    return "text" in cols


def _with_hint(exc: InputError, fmt: str, shown: str, text: str,
               column_map: dict[str, str] | None) -> InputError:
    """For an explicit format that failed: say which format the content looks like."""
    try:
        detected = _detect(shown, text, column_map)[0]
    except InputError:
        return exc
    if detected == fmt:
        return exc
    hinted = InputError(f"{exc.reason} (format '{fmt}' was requested, but the content looks "
                        f"like '{detected}')", file=exc.file, line=exc.line, field=exc.field)
    return hinted
