"""Chat backend for OpenAI and every server that speaks its API (Ollama, vLLM, llama.cpp, LM Studio).

The SDK's own retries are off (`max_retries=0`): the gateway owns retries so that every attempt
is counted in the call record. The API key lives only inside the SDK client and in the private
redaction list; every error leaving this module has been redacted.
"""

from __future__ import annotations

import email.utils
import os
import re
import time
from typing import Any, Mapping
from urllib.parse import urlsplit, urlunsplit

import openai

from ..errors import InputError
from .gateway import ChatReply, StructuredOutputUnsupported, TransientError

PLACEHOLDER_KEY = "not-needed"   # local servers ignore the key, but the SDK insists on one
_KEY_PATTERN = re.compile(r"\b(sk-[A-Za-z0-9_\-]{2,})[A-Za-z0-9_\-*.]*")
_BEARER = re.compile(r"(Bearer\s+)\S+", re.IGNORECASE)
_FORMAT_WORDS = ("response_format", "json_schema", "structured output", "response format")


class MissingCredentials(InputError):
    """No key and no base URL: there is nothing to talk to."""


class BackendError(RuntimeError):
    """A non-transient failure (bad key, bad request, refusal). Message already redacted."""


def _clean(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def _secret(secrets: Mapping | None, name: str) -> str | None:
    if not secrets:
        return None
    try:
        return _clean(secrets.get(name))
    except Exception:  # noqa: BLE001 - a secrets mapping with no file raises on access
        return None


def resolve_openai_settings(api_key: str | None = None, base_url: str | None = None,
                            secrets: Mapping | None = None) -> tuple[str | None, str | None]:
    """(key, base_url): explicit argument, else Streamlit secrets, else environment.

    A base URL without a key is a local server: the key becomes a placeholder. With neither,
    the key is None and `make_openai_client` refuses with an actionable message.
    """
    key = _clean(api_key) or _secret(secrets, "OPENAI_API_KEY") or _clean(os.environ.get("OPENAI_API_KEY"))
    url = _clean(base_url) or _secret(secrets, "OPENAI_BASE_URL") or _clean(os.environ.get("OPENAI_BASE_URL"))
    if key is None and url is not None:
        key = PLACEHOLDER_KEY
    return key, url


def make_openai_client(api_key: str | None = None, base_url: str | None = None,
                       timeout: float = 60.0) -> openai.OpenAI:
    key, url = resolve_openai_settings(api_key, base_url)
    if key is None:
        raise MissingCredentials(
            "no OpenAI API key: set OPENAI_API_KEY (environment or Streamlit secrets), or set "
            "OPENAI_BASE_URL to a local OpenAI-compatible server", field="OPENAI_API_KEY")
    return openai.OpenAI(api_key=key, base_url=url, timeout=timeout, max_retries=0)


def safe_url(url: str | None) -> str | None:
    """The URL without user:password, fit for display."""
    if not url:
        return url
    parts = urlsplit(str(url))
    if parts.username or parts.password:
        netloc = parts.hostname or ""
        if parts.port:
            netloc += f":{parts.port}"
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts)


def retry_after_seconds(headers: Mapping[str, str] | None) -> float | None:
    """Parse `retry-after-ms` / `retry-after` (seconds or HTTP date)."""
    if not headers:
        return None
    raw_ms = headers.get("retry-after-ms")
    if raw_ms:
        try:
            return max(0.0, float(raw_ms) / 1000)
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        parsed = email.utils.parsedate_tz(raw)
        if parsed is None:
            return None
        return max(0.0, email.utils.mktime_tz(parsed) - time.time())


def _rejects_temperature(exc: openai.APIStatusError) -> bool:
    body = exc.body if isinstance(exc.body, dict) else {}
    text = str(body.get("message") or exc.message).lower()
    return exc.status_code == 400 and (body.get("param") == "temperature"
                                       or ("temperature" in text and "unsupported" in text))


class OpenAIChatBackend:
    name = "openai"

    def __init__(self, model: str = "gpt-4o-mini", *, api_key: str | None = None,
                 base_url: str | None = None, client: openai.OpenAI | None = None):
        self.model = model
        if client is None:
            key, url = resolve_openai_settings(api_key, base_url)
            client = make_openai_client(key, url)
        self._client = client
        self.base_url = safe_url(str(client.base_url))
        # Reasoning models (o-series, gpt-5) reject any temperature; learnt from the first 400.
        self.send_temperature = True
        known = {api_key, getattr(client, "api_key", None)}
        self._secrets = tuple(s for s in known if isinstance(s, str) and len(s) >= 4 and s != PLACEHOLDER_KEY)

    def __repr__(self) -> str:
        return f"OpenAIChatBackend(model={self.model!r}, base_url={self.base_url!r}, api_key='***')"

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "***")
        text = _BEARER.sub(r"\1***", text)
        return _KEY_PATTERN.sub(lambda m: m.group(1)[:5] + "***", text)

    def chat(self, messages: list[dict], *, temperature: float, response_format: dict | None,
             timeout: float) -> ChatReply:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "timeout": timeout}
        if self.send_temperature:
            kwargs["temperature"] = temperature
        if response_format is not None:
            kwargs["response_format"] = response_format
        try:
            resp = self._client.chat.completions.create(**kwargs)
        except openai.APITimeoutError:
            raise TransientError(f"request timed out after {timeout:g}s") from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc.__context__
            detail = f" ({type(cause).__name__})" if cause is not None else ""
            raise TransientError(self.redact(f"connection error{detail}: {exc}")) from None
        except openai.APIStatusError as exc:
            if "temperature" in kwargs and _rejects_temperature(exc):
                self.send_temperature = False
                return self.chat(messages, temperature=temperature,
                                 response_format=response_format, timeout=timeout)
            raise self._status_error(exc, response_format) from None
        except openai.OpenAIError as exc:
            raise BackendError(self.redact(f"{type(exc).__name__}: {exc}")) from None

        if not resp.choices:
            raise TransientError("the server returned no choices")
        message = resp.choices[0].message
        refusal = getattr(message, "refusal", None)
        if not message.content and refusal:
            raise BackendError(self.redact(f"the model refused: {refusal}"))
        usage = resp.usage
        return ChatReply(text=message.content or "",
                         input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                         output_tokens=int(getattr(usage, "completion_tokens", 0) or 0))

    def _status_error(self, exc: openai.APIStatusError, response_format: dict | None) -> Exception:
        status = exc.status_code
        body = exc.body if isinstance(exc.body, dict) else {}
        detail = body.get("message") or exc.message
        text = self.redact(f"HTTP {status}: {detail}")
        code = str(body.get("code") or body.get("type") or "")
        if status == 429 and code == "insufficient_quota":
            return BackendError(text)   # out of credit: waiting will not help
        if status in (408, 409, 429) or status >= 500:
            return TransientError(text, retry_after=retry_after_seconds(exc.response.headers))
        asked_schema = bool(response_format) and response_format.get("type") == "json_schema"
        if asked_schema and status in (400, 422) and any(w in text.lower() for w in _FORMAT_WORDS):
            return StructuredOutputUnsupported(text)
        return BackendError(text)
