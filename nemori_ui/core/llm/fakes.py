"""A scripted chat backend for unit tests of stages (after simonw/llm's mock model).

Replies are queued with `enqueue` and handed out in order, optionally per prompt so that stages
calling from a thread pool get the right reply whatever the scheduling. It implements the real
`ChatBackend` protocol, so the gateway's cache, retries, repair and records all run for real.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Union

from pydantic import BaseModel

from .protocol import ChatReply
from .tokens import estimate_tokens
from .schema import schema_name

# What a script step may be: reply text, a JSON-able dict/list, a model instance, a full
# ChatReply, an exception to raise (e.g. TransientError), or a callable of the messages.
Step = Union[str, dict, list, BaseModel, ChatReply, BaseException, Callable[[list[dict]], Any]]


class ScriptExhausted(AssertionError):
    """The code under test made a call the test did not script."""


@dataclass
class ScriptedCall:
    messages: list[dict]
    temperature: float
    response_format: dict | None
    timeout: float
    prompt: str | None          # schema name from response_format, when there is one
    max_tokens: int | None = None


class ScriptedBackend:
    name = "scripted"

    def __init__(self, model: str = "scripted-model", *, default: Step | None = None):
        self.model = model
        self.default = default   # used, and kept, when a queue runs dry
        self.calls: list[ScriptedCall] = []
        self._queue: deque[Step] = deque()
        self._by_prompt: dict[str, deque[Step]] = {}
        self._lock = threading.Lock()

    def enqueue(self, *steps: Step, prompt: str | None = None) -> ScriptedBackend:
        """Queue replies; with `prompt`, only calls for that prompt name take them."""
        with self._lock:
            if prompt is None:
                self._queue.extend(steps)
            else:
                self._by_prompt.setdefault(schema_name(prompt), deque()).extend(steps)
        return self

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._queue) + sum(len(q) for q in self._by_prompt.values())

    def calls_for(self, prompt: str) -> list[ScriptedCall]:
        name = schema_name(prompt)
        return [c for c in self.calls if c.prompt == name]

    def chat(self, messages: list[dict], *, temperature: float, response_format: dict | None,
             timeout: float, max_tokens: int | None = None) -> ChatReply:
        prompt = _prompt_of(response_format)
        call = ScriptedCall([dict(m) for m in messages], temperature, response_format, timeout,
                            prompt, max_tokens)
        with self._lock:
            self.calls.append(call)
            queue = self._by_prompt.get(prompt) if prompt else None
            if queue:
                step = queue.popleft()
            elif self._queue:
                step = self._queue.popleft()
            elif self.default is not None:
                step = self.default
            else:
                raise ScriptExhausted(f"no scripted reply left for prompt {prompt or '(unnamed)'}")
        return _play(step, messages)


def _prompt_of(response_format: dict | None) -> str | None:
    if response_format and response_format.get("type") == "json_schema":
        return response_format.get("json_schema", {}).get("name")
    return None


def _play(step: Step, messages: list[dict]) -> ChatReply:
    if isinstance(step, BaseException):
        raise step
    if isinstance(step, ChatReply):
        return step
    if callable(step) and not isinstance(step, type):
        return _play(step(messages), messages)
    if isinstance(step, BaseModel):
        text = step.model_dump_json()
    elif isinstance(step, (dict, list)):
        text = json.dumps(step, ensure_ascii=False)
    else:
        text = str(step)
    prompt = "".join(str(m.get("content") or "") for m in messages)
    return ChatReply(text=text, input_tokens=max(1, estimate_tokens(prompt)),
                     output_tokens=max(1, estimate_tokens(text)))
