"""What a chat backend is, what it returns, and the errors that tell the gateway what to do."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel


class ChatReply(BaseModel):
    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    finish_reason: str | None = None    # "length": the reply was cut at max_tokens
    model: str | None = None            # the model the server says answered


class TransientError(Exception):
    """Worth retrying: rate limit, 5xx, timeout, dropped connection."""

    def __init__(self, message: str, *, retry_after: float | None = None,
                 timed_out: bool = False, not_ready: bool = False):
        super().__init__(message)
        self.retry_after = retry_after
        self.timed_out = timed_out      # no complete reply within the deadline
        # the server is there but cannot serve yet (HTTP 503 while it loads a model) or is
        # restarting (connection refused): asked again until the retry budget is spent
        self.not_ready = not_ready


class CallInterrupted(KeyboardInterrupt):
    """The process is stopping (Ctrl-C, SIGTERM, SIGHUP): a call in flight was cut off."""


class StructuredOutputUnsupported(Exception):
    """The server refused the json_schema response_format (older llama.cpp, Ollama, vLLM)."""


class ChatBackend(Protocol):
    name: str
    model: str

    def chat(self, messages: list[dict], *, temperature: float, response_format: dict | None,
             timeout: float, max_tokens: int | None = None) -> ChatReply: ...
