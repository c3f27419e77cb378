"""Chat backend for OpenAI and every server that speaks its API (Ollama, vLLM, llama.cpp, LM Studio).

The SDK's own retries are off (`max_retries=0`): the gateway owns retries so that every attempt
is counted in the call record. The API key lives only inside the SDK client and in the private
redaction list; every error leaving this module has been redacted.
"""

from __future__ import annotations

import email.utils
import errno
import json
import os
import time
import urllib.request
from typing import Any, Mapping
from urllib.parse import urlsplit

import httpx2
import openai

from ..errors import InputError
from .deadline import Deadline, within
from .protocol import ChatReply, StructuredOutputUnsupported, TransientError
from .redact import Redactor, basic_token, strip_url_credentials, url_credentials, url_secrets

PLACEHOLDER_KEY = "not-needed"   # local servers ignore the key, but the SDK insists on one
OPENAI_HOSTS = ("api.openai.com",)
PROBE_TIMEOUT_S = 5.0
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
            "no OpenAI API key: set OPENAI_API_KEY (environment or Streamlit secrets), or point "
            "to a local OpenAI-compatible server with --base-url URL (or OPENAI_BASE_URL), "
            "which needs no key", field="OPENAI_API_KEY")
    # user:password in the base URL is HTTP Basic authentication of that server (what a proxy
    # in front of a local server asks for), sent in place of the key, as curl or a browser
    # would. The HTTP client is given it explicitly and the SDK keeps the URL without it, so
    # no error message that quotes the URL carries the password.
    found = url_credentials(url)
    http_client = None
    if found is not None:
        http_client = openai.DefaultHttpxClient(auth=httpx2.BasicAuth(*found), timeout=timeout)
    return openai.OpenAI(api_key=key, base_url=strip_url_credentials(url), timeout=timeout,
                         max_retries=0, http_client=http_client)


safe_url = strip_url_credentials   # the URL without user:password, fit to store or show


def credential_redactor(keys: list[str | None], urls: list[str | None]) -> Redactor:
    """A Redactor of the keys and of every wire form of the URLs' passwords."""
    known = [*keys, *(form for url in urls for form in url_secrets(url))]
    return Redactor(s for s in known if s and s != PLACEHOLDER_KEY)


def _refused(exc: BaseException) -> bool:
    """Nothing listens at the address yet: a local server that is (re)starting."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, ConnectionRefusedError) or getattr(exc, "errno", None) == errno.ECONNREFUSED:
            return True
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return False


def is_openai_itself(url: str | None) -> bool:
    host = (urlsplit(str(url)).hostname or "") if url else "api.openai.com"
    return host in OPENAI_HOSTS


def _kind_of_body(value: Any) -> str:
    text = str(value).lstrip()[:200].lower()
    if text.startswith("<!doctype html") or text.startswith("<html") or "<body" in text:
        return "an HTML page"
    return "something that is not JSON" if isinstance(value, str) else f"a {type(value).__name__}"


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


def _rejects_param(exc: openai.APIStatusError, param: str) -> bool:
    body = exc.body if isinstance(exc.body, dict) else {}
    text = str(body.get("message") or exc.message)
    return exc.status_code == 400 and (body.get("param") == param or param in text)


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
        raw_url = str(client.base_url)
        self.base_url = safe_url(raw_url)
        self._basic = url_credentials(base_url) or url_credentials(raw_url)
        # Reasoning models (o-series, gpt-5) reject any temperature; learnt from the first 400.
        self.send_temperature = True
        # OpenAI itself wants max_completion_tokens (reasoning models reject max_tokens); other
        # servers know max_tokens. A 400 naming the parameter switches to the other one.
        self.cap_param = "max_completion_tokens" if is_openai_itself(raw_url) else "max_tokens"
        self.redactor = credential_redactor([api_key, getattr(client, "api_key", None)],
                                            [base_url, raw_url])

    def __repr__(self) -> str:
        return f"OpenAIChatBackend(model={self.model!r}, base_url={self.base_url!r}, api_key='***')"

    @property
    def local(self) -> bool:
        return not is_openai_itself(self.base_url)

    def redact(self, text: str) -> str:
        return self.redactor.text(text)

    def list_models(self) -> list[str] | None:
        """The ids the server lists at /v1/models; None when it does not say."""
        try:
            # within: a server that trickles bytes would hold the SDK's per-read timeout open
            page = within(PROBE_TIMEOUT_S, lambda: self._client.models.list(timeout=PROBE_TIMEOUT_S))
            return [m.id for m in getattr(page, "data", []) or [] if getattr(m, "id", None)]
        except Exception:  # noqa: BLE001 - a server without /models is still usable
            return None

    def server_slots(self) -> int | None:
        """How many requests a llama.cpp server serves at once (its /props), when it says."""
        root = self.base_url.rstrip("/")
        root = root[:-3] if root.endswith("/v1") else root
        auth = f"Basic {basic_token(*self._basic)}" if self._basic else \
            f"Bearer {self._client.api_key}"
        request = urllib.request.Request(f"{root}/props", headers={"Authorization": auth})
        def read() -> Any:
            with urllib.request.urlopen(request, timeout=PROBE_TIMEOUT_S) as resp:  # noqa: S310
                return json.loads(resp.read(65536)).get("total_slots")

        try:
            slots = within(PROBE_TIMEOUT_S, read)
        except Exception:  # noqa: BLE001 - not llama.cpp, or no /props: nothing learnt
            return None
        return int(slots) if isinstance(slots, int) and slots > 0 else None

    def chat(self, messages: list[dict], *, temperature: float, response_format: dict | None,
             timeout: float, max_tokens: int | None = None) -> ChatReply:
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages, "timeout": timeout}
        if self.send_temperature:
            kwargs["temperature"] = temperature
        if response_format is not None:
            kwargs["response_format"] = response_format
        if max_tokens:
            kwargs[self.cap_param] = max_tokens
        again = dict(messages=messages, temperature=temperature,
                     response_format=response_format, timeout=timeout, max_tokens=max_tokens)
        try:
            resp = within(timeout, lambda: self._client.chat.completions.create(**kwargs))
        except (Deadline, openai.APITimeoutError):
            raise TransientError(f"request timed out: no complete reply from {self.base_url} "
                                 f"within {timeout:g} s", timed_out=True) from None
        except openai.APIConnectionError as exc:
            cause = exc.__cause__ or exc.__context__
            detail = f" ({type(cause).__name__}: {cause})" if cause is not None else ""
            refused = _refused(exc)
            what = "connection refused (the server is not running, or not ready yet): " \
                "could not reach" if refused else "connection error: could not reach"
            raise TransientError(self.redact(f"{what} {self.base_url}{detail}"),
                                 not_ready=refused) from None
        except openai.APIStatusError as exc:
            if "temperature" in kwargs and _rejects_temperature(exc):
                self.send_temperature = False
                return self.chat(**again)
            if max_tokens and _rejects_param(exc, self.cap_param):
                self.cap_param = ("max_tokens" if self.cap_param == "max_completion_tokens"
                                  else "max_completion_tokens")
                return self.chat(**again)
            raise self._status_error(exc, response_format) from None
        except openai.OpenAIError as exc:
            raise BackendError(self.redact(f"{type(exc).__name__}: {exc}")) from None
        if not hasattr(resp, "choices"):
            # a proxy or a web server at the base URL: HTTP 200, but an HTML page
            raise BackendError(self.redact(
                f"the server at {self.base_url} answered with {_kind_of_body(resp)} instead of "
                "an OpenAI chat completion: check the base URL (it usually ends in /v1)"))
        if not resp.choices:
            raise TransientError("the server returned no choices")
        choice = resp.choices[0]
        message = choice.message
        refusal = getattr(message, "refusal", None)
        if not message.content and refusal:
            raise BackendError(self.redact(f"the model refused: {refusal}"))
        usage = resp.usage
        return ChatReply(text=message.content or "",
                         input_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
                         output_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
                         finish_reason=getattr(choice, "finish_reason", None),
                         model=getattr(resp, "model", None))

    def _status_error(self, exc: openai.APIStatusError, response_format: dict | None) -> Exception:
        status = exc.status_code
        body = exc.body if isinstance(exc.body, dict) else {}
        detail = body.get("message") or exc.message
        text = self.redact(f"HTTP {status}: {detail}")
        code = str(body.get("code") or body.get("type") or "")
        if status == 429 and code == "insufficient_quota":
            return BackendError(text)   # out of credit: waiting will not help
        if status in (408, 409, 429) or status >= 500:
            # 503: the server is up but cannot serve yet (llama.cpp while it loads a model)
            return TransientError(text, retry_after=retry_after_seconds(exc.response.headers),
                                  not_ready=status == 503)
        asked_schema = bool(response_format) and response_format.get("type") == "json_schema"
        if asked_schema and status in (400, 422) and any(w in text.lower() for w in _FORMAT_WORDS):
            return StructuredOutputUnsupported(text)
        return BackendError(text)
