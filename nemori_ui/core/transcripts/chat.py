"""OpenAI-style chat JSON.

Accepted shapes:
- ``[{"role", "content"}, ...]``                       one conversation, id = file stem
- ``{"messages": [...], "id"?: ...}``                   one conversation
- ``{"conversations": [{"id", "messages"}, ...]}``     several
- ``[{"id", "messages"}, ...]``                         several (same as above, without wrapper)

A message with ``"content": null`` is skipped: that is how the API records an assistant turn
that only called tools, and it has no text for the memory to use.
"""

from __future__ import annotations

from typing import Any

from ..errors import InputError
from ..models import Conversation
from .common import Turn, build_conversation, describe, join, kind, need, scalar_text, stem
from .timestamps import to_timestamp

ROLES = {"user": "user", "assistant": "assistant", "system": "system", "developer": "system",
         "tool": "other", "function": "other"}
TIME_KEYS = ("timestamp", "created_at", "time")


def _is_message(x: Any) -> bool:
    return isinstance(x, dict) and "role" in x and "content" in x


def _is_conversation(x: Any) -> bool:
    return isinstance(x, dict) and isinstance(x.get("messages"), list)


def looks_like(doc: Any) -> bool:
    if isinstance(doc, list) and doc:
        return _is_message(doc[0]) or _is_conversation(doc[0])
    return isinstance(doc, dict) and (_is_conversation(doc)
                                      or isinstance(doc.get("conversations"), list))


def parse(doc: Any, *, source: str) -> list[Conversation]:
    # (object, field path of its message list, default id) for every conversation in the file
    if isinstance(doc, list) and doc and not _is_conversation(doc[0]):
        found = [(None, doc, "", stem(source))]
    elif isinstance(doc, dict) and "messages" in doc:
        found = [(doc, doc["messages"], "messages", stem(source))]
    elif isinstance(doc, dict) and "conversations" in doc:
        convs = need(doc["conversations"], list, file=source, field="conversations",
                     what="a list of conversations")
        found = [_unwrap(c, join("conversations", i), i, source) for i, c in enumerate(convs)]
    elif isinstance(doc, list) and doc:
        found = [_unwrap(c, join("", i), i, source) for i, c in enumerate(doc)]
    else:
        raise InputError("expected chat messages (a list of {'role', 'content'} objects, "
                         "{'messages': [...]} or {'conversations': [...]}), found "
                         f"{describe(doc)}", file=source)
    if not found:
        raise InputError("no conversations", file=source, field="conversations")
    result = []
    for obj, messages, path, default_id in found:
        conv_id = default_id
        if obj and obj.get("id") not in (None, ""):
            owner = path.removesuffix("messages").removesuffix(".")   # the conversation's path
            conv_id = scalar_text(obj["id"], file=source, field=join(owner, "id"))
        extra = {k: v for k, v in obj.items() if k not in ("id", "messages")} if obj else {}
        result.append(build_conversation(conv_id, _messages(messages, path, source), extra))
    return result


def _unwrap(conv: Any, path: str, i: int, source: str) -> tuple:
    if isinstance(conv, list):      # a bare list of messages inside 'conversations'
        return None, conv, path, f"conv-{i + 1}"
    need(conv, dict, file=source, field=path, what="a conversation object")
    if "messages" not in conv:
        raise InputError(f"missing 'messages' (found {describe(conv)})", file=source,
                         field=path or None)
    return conv, conv["messages"], join(path, "messages"), f"conv-{i + 1}"


def _messages(messages: Any, path: str, source: str) -> list[Turn]:
    need(messages, list, file=source, field=path, what="a list of messages")
    turns = []
    for i, msg in enumerate(messages):
        mpath = join(path, i)
        need(msg, dict, file=source, field=mpath, what="a message object")
        if "role" not in msg:
            raise InputError(f"missing 'role' (found {describe(msg)})", file=source, field=mpath)
        raw_role = msg["role"]
        if not isinstance(raw_role, str) or raw_role.strip().lower() not in ROLES:
            raise InputError(f"unknown role {raw_role!r}; expected one of "
                             f"{', '.join(ROLES)}", file=source, field=join(mpath, "role"))
        role = ROLES[raw_role.strip().lower()]
        if "content" not in msg:
            raise InputError("missing 'content'", file=source, field=mpath)
        if msg["content"] is None:
            continue
        text = content_text(msg["content"], file=source, field=join(mpath, "content"))
        if not text.strip():
            raise InputError("'content' is empty: a message needs text (null marks a turn "
                             "that only called tools)", file=source, field=join(mpath, "content"))
        name = msg.get("name")
        speaker = name.strip() if isinstance(name, str) and name.strip() else raw_role.strip()
        stamp = next((k for k in TIME_KEYS if msg.get(k) not in (None, "")), None)
        when = (to_timestamp(msg[stamp], file=source, field=join(mpath, stamp))
                if stamp else None)
        turns.append(Turn(speaker=speaker, text=text, role=role, timestamp=when,
                          source_ref=mpath))
    return turns


def content_text(content: Any, *, file: str, field: str, line: int | None = None) -> str:
    """A message's text from a string or a list of content parts (text parts joined by lines)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise InputError(f"expected a string or a list of content parts, got {kind(content)}",
                         file=file, line=line, field=field)
    parts = []
    for i, part in enumerate(content):
        if isinstance(part, str):
            parts.append(part)
            continue
        if not isinstance(part, dict):
            raise InputError(f"expected a content part object, got {kind(part)}", file=file,
                             line=line, field=join(field, i))
        ptype = part.get("type")
        if isinstance(part.get("text"), str) and ptype in (None, "text", "input_text",
                                                           "output_text"):
            parts.append(part["text"])
        elif isinstance(ptype, str):
            # Non-text parts leave a marker so the reader knows something was shared.
            parts.append("[Image]" if "image" in ptype else f"[{ptype}]")
        else:
            raise InputError("content part has neither 'text' nor 'type'", file=file,
                             line=line, field=join(field, i))
    return "\n".join(parts)
