"""Credentials out of everything the product stores or shows.

An API key can come back inside a reply (a server that echoes the request), an error, or a
base URL that carries user:password. Every text a call produces passes through `Redactor`
before it is kept: the reply before it is parsed (so no stage, cache or export ever sees the
key), the record, and the messages sent.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlsplit, urlunsplit

MASK = "***"
_KEY = re.compile(r"\b(sk-[A-Za-z0-9_\-]{2,})[A-Za-z0-9_\-*.]*")
_BEARER = re.compile(r"(Bearer\s+)(?!\*\*\*)\S+", re.IGNORECASE)
_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.\-]*://)[^\s/@:]*(?::[^\s/@]*)?@", re.IGNORECASE)
_QUERY_KEY = re.compile(r"((?:api[_-]?key|access[_-]?token|token|password|secret)=)[^&\s\"']+",
                        re.IGNORECASE)


def strip_url_credentials(url: str | None) -> str | None:
    """The URL without user:password, fit to store or display."""
    if not url:
        return url
    parts = urlsplit(str(url))
    if parts.username or parts.password:
        netloc = parts.hostname or ""
        if parts.port:
            netloc += f":{parts.port}"
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts)


def url_secrets(url: str | None) -> list[str]:
    """The password (and user name) inside a URL, to mask wherever they appear."""
    if not url:
        return []
    parts = urlsplit(str(url))
    return [s for s in (parts.password, parts.username) if s and len(s) >= 4]


def redact_patterns(text: str) -> str:
    """Masks what looks like a credential, known or not: keys, bearer tokens, URL passwords.
    Each pattern runs only when its marker is in the text: every prompt passes through here."""
    if "earer" in text or "EARER" in text:
        text = _BEARER.sub(rf"\1{MASK}", text)
    if "@" in text and "://" in text:
        text = _USERINFO.sub(rf"\1{MASK}@", text)
    if "=" in text:
        text = _QUERY_KEY.sub(rf"\1{MASK}", text)
    if "sk-" in text:
        text = _KEY.sub(lambda m: m.group(1)[:5] + MASK, text)
    return text


class Redactor:
    def __init__(self, secrets=()):
        # longest first, so a secret that contains another is masked whole
        self.secrets = sorted({s for s in secrets if isinstance(s, str) and len(s) >= 4},
                              key=len, reverse=True)

    def __call__(self, text: str) -> str:
        return self.text(text)

    def text(self, text: str | None) -> str | None:
        if not text:
            return text
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return redact_patterns(text)

    def value(self, obj: Any) -> Any:
        """Every string inside a JSON-like value, redacted."""
        if isinstance(obj, str):
            return self.text(obj)
        if isinstance(obj, dict):
            return {k: self.value(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self.value(v) for v in obj]
        return obj
