"""Replies that copy the prompt's own examples or placeholders instead of answering.

A small model may return the reply format it was shown (`{"text": "a statement", ...}`) or one
of the prompt's GOOD examples; parsed as it is, "a statement" would become a memory. The
values of the JSON a system prompt shows (`"reason": "one sentence"`, the bare "..."), and the
quoted texts of its paragraphs that start with "Example", are what a reply may not consist
of, unless the inputs themselves say it. A value of one word is a choice the reply is meant
to make ("new", "CORRECT"), and a quote in the rules ("Not mentioned in the conversation.")
is an instruction: neither counts.
"""

from __future__ import annotations

import functools
import re
from typing import Any

_QUOTED = re.compile(r'"((?:[^"\\]|\\.){1,600})"', re.S)
_JSON_VALUE = re.compile(r'"[A-Za-z_]+"\s*:\s*"((?:[^"\\]|\\.){1,600})"', re.S)
_EDGE = " \t\r\n.,;:!?'\"`()[]{}"
ELLIPSIS = "..."


def normal(text: str) -> str:
    """Case, spacing and the punctuation at either end do not make a reply original."""
    core = " ".join(text.replace("\\n", " ").split()).casefold().strip(_EDGE)
    if not core and text.strip() and set(text.strip()) <= set(".… "):
        return ELLIPSIS
    return core


@functools.lru_cache(maxsize=128)
def examples_in(system: str) -> frozenset[str]:
    """The examples and placeholders a system prompt quotes, normalised."""
    quoted = [m.group(1) for m in _JSON_VALUE.finditer(system)]
    for paragraph in re.split(r"\n\s*\n", system):
        if paragraph.lstrip().startswith("Example"):
            quoted += [m.group(1) for m in _QUOTED.finditer(paragraph)]
    found = {normal(q) for q in quoted}
    return frozenset(q for q in found if q == ELLIPSIS or len(q.split()) >= 2)


def _strings(value: Any, where: str = ""):
    if isinstance(value, str):
        yield where or "(root)", value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{where}.{key}" if where else str(key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _strings(item, f"{where}.{i}" if where else str(i))


def copied_example(messages: list[dict], reply: Any) -> str | None:
    """What a reply copies from the prompt's examples, worded for the repair prompt; None when
    it copies nothing."""
    systems = [str(m.get("content") or "") for m in messages if m.get("role") == "system"]
    examples = frozenset().union(*(examples_in(s) for s in systems)) if systems else frozenset()
    if not examples:
        return None
    inputs = " ".join(str(m.get("content") or "") for m in messages
                      if m.get("role") != "system").casefold()
    for where, text in _strings(reply):
        key = normal(text)
        if key in examples and (key == ELLIPSIS or key not in " ".join(inputs.split())):
            shown = text.strip() if len(text) <= 80 else text.strip()[:77] + "..."
            return (f"{where} is {shown!r}, an example or placeholder copied from the "
                    "instructions: write what the input itself says")
    return None
