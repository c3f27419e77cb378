"""What a message's speaker and text may hold, wherever messages come from: a transcript file,
the Python API, the Live page.

A lone UTF-16 surrogate (JSON and Python escapes can spell "\\ud800") and a NUL character are
not text: they cannot be stored or shown, and would fail a run later. A speaker is a name:
past a couple of hundred characters it is a text pasted into the wrong field.
"""

from __future__ import annotations

MAX_SPEAKER = 200     # characters of a speaker's name


def field_problem(name: str, value: str) -> str | None:
    """Why `value` cannot be a message's `name` ("speaker" or "text"), or None."""
    if "\x00" in value:
        return (f"holds a NUL character (\\x00) at position {value.index(chr(0)) + 1}, "
                "which is not text")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        return f"holds an unpaired surrogate (\\u{ord(value[exc.start]):04x}), which is not text"
    if name == "speaker" and len(value) > MAX_SPEAKER:
        return (f"is {len(value):,} characters long; a speaker's name may have at most "
                f"{MAX_SPEAKER}")
    return None


def message_problem(speaker: str, text: str) -> str | None:
    """The first problem of a message's speaker or text, saying which: 'the speaker is ...'."""
    for name, value in (("speaker", speaker), ("text", text)):
        problem = field_problem(name, value)
        if problem:
            return f"the {name} {problem}"
    return None
