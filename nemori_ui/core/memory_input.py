"""What a caller of the Python API may pass, checked before anything is stored: each misuse is
an `InputError` naming the argument."""

from __future__ import annotations

import difflib
import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from pydantic import ValidationError

from .config import PipelineConfig
from .errors import InputError
from .models import Message
from .store.stream import Incoming
from .transcripts.fields import message_problem


def to_message(item: Message | Mapping[str, Any], position: int) -> Message:
    """A message from a Message or a dict: {speaker, text} or the chat form {role, content},
    with optional timestamp (datetime or ISO 8601 text) and session."""
    if isinstance(item, Message):
        return _checked(item, position)
    if not isinstance(item, Mapping):
        raise InputError(f"message {position}: expected a dict or a Message, "
                         f"got {type(item).__name__}", field="messages")
    text = item.get("text", item.get("content"))
    if not isinstance(text, str):
        raise InputError(f"message {position}: needs a 'text' (or 'content') string",
                         field="messages")
    speaker = item.get("speaker") or item.get("name") or item.get("role")
    if not isinstance(speaker, str) or not speaker.strip():
        raise InputError(f"message {position}: needs a 'speaker' (or 'role')", field="messages")
    role = item.get("role") if item.get("role") in ("user", "assistant", "system") else "user"
    try:
        message = Message(id="", speaker=speaker.strip(), role=role, text=text,
                          timestamp=item.get("timestamp"), session=item.get("session") or 0,
                          source_ref=item.get("source_ref"))
    except ValidationError as exc:
        err = exc.errors()[0]
        raise InputError(f"message {position}: {err['msg']}",
                         field=str(err["loc"][0]) if err["loc"] else None) from None
    return _checked(message, position)


def _checked(message: Message, position: int) -> Message:
    """The message, unless its speaker or text holds what a transcript file may not either."""
    problem = message_problem(message.speaker, message.text)
    if problem:
        raise InputError(f"message {position}: {problem}", field="messages")
    return message


def _key(item: Any, position: int) -> str | None:
    """The caller's own id of a message (`id` or `message_id` of a dict), if it gave one."""
    if not isinstance(item, Mapping):
        return None
    key = item.get("id", item.get("message_id"))
    if key is None:
        return None
    if isinstance(key, bool) or not isinstance(key, (str, int)) or not str(key).strip():
        raise InputError(f"message {position}: its id must be a non-empty string or an "
                         f"integer, got {key!r}", field=f"messages[{position - 1}].id")
    return str(key)


def incoming(messages: Any) -> list[Incoming]:
    """The messages of an `add` call: one message (a dict or a Message) or an iterable of them."""
    if isinstance(messages, (Message, Mapping)):
        items = [messages]
    elif isinstance(messages, (str, bytes)) or not isinstance(messages, Iterable):
        raise InputError("expected a message (a dict or a Message) or a list of them, got "
                         f"{type(messages).__name__}", field="messages")
    else:
        items = list(messages)
    return [Incoming(message=to_message(item, i), key=_key(item, i), position=i)
            for i, item in enumerate(items, start=1)]


def home_path(home: Any) -> Path | None:
    """The home folder with `~` and environment variables expanded."""
    if home is None:
        return None
    if not isinstance(home, (str, os.PathLike)):
        raise InputError(f"expected a folder path, got {type(home).__name__}", field="home")
    text = os.path.expandvars(os.path.expanduser(os.fspath(home)))
    if not text.strip():
        raise InputError("an empty path", field="home")
    return Path(text)


def config_of(settings: dict) -> PipelineConfig:
    """The settings of a new run; a name that is no setting is refused, not ignored."""
    known = set(PipelineConfig.model_fields)
    for name in settings:
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise InputError(f"no such setting{hint}", field=name)
    try:
        return PipelineConfig(**settings)
    except ValidationError as exc:
        err = exc.errors()[0]
        name = str(err["loc"][0]) if err["loc"] else "settings"
        raise InputError(f"{err.get('input')!r}: {err['msg']}", field=name) from None


def same_settings(run_id: str, config: PipelineConfig, settings: dict) -> None:
    """An existing run keeps the settings it was built with: asking for others is an error,
    not a silent switch."""
    config_of({**config.model_dump(), **settings})     # unknown names, bad values
    differ = [f"{key}={value!r} (the run has {getattr(config, key, None)!r})"
              for key, value in settings.items() if getattr(config, key, None) != value]
    if differ:
        raise InputError(f"run {run_id} was built with other settings: {', '.join(differ)}; "
                         "open it without them, or create a new Memory", field="settings")


def count_arg(value: Any, name: str, *, optional: bool = True) -> int | None:
    """A positive whole number (k, m), or None when it may be left out."""
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"expected a whole number of at least 1, got {value!r}", field=name)
    return value


def text_arg(value: Any, name: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"expected a string, got {type(value).__name__}", field=name)
    if not value.strip():
        raise InputError("an empty string", field=name)
    return value


def id_arg(value: Any, name: str = "id") -> str:
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"expected an id such as 'm0001', 'ep0001' or 'sm0001', got {value!r}",
                         field=name)
    return value.strip()
