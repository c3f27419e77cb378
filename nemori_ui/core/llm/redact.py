"""Credentials out of everything the product stores or shows.

An API key can come back inside a reply (a server that echoes the request), an error, or a
base URL that carries user:password. Every text a call produces passes through `Redactor`
before it is kept: the reply before it is parsed (so no stage, cache or export ever sees the
key), the record, and the messages sent.

A credential is masked in every form it takes on the wire, because a server that echoes a
refused header quotes it as sent: the key (a Bearer token), the URL's password as written,
percent-decoded and percent-encoded, and the HTTP Basic token (base64 of `user:password`).
The user name of a URL is no secret: masking it would rewrite every "Maya" or "user" in the
prompts and replies.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any
from urllib.parse import quote, unquote, urlsplit, urlunsplit

MASK = "***"
MIN_SECRET = 4      # shorter strings are masked only inside their longer wire forms
_KEY = re.compile(r"\b(sk-[A-Za-z0-9_\-]{2,})[A-Za-z0-9_\-*.]*")
_BEARER = re.compile(r"(Bearer\s+)(?!\*\*\*)\S+", re.IGNORECASE)
_BASIC = re.compile(r"(\bBasic\s+)([A-Za-z0-9+/]{4,}={0,2})(?![A-Za-z0-9+/=])", re.IGNORECASE)
_USERINFO = re.compile(r"(\b[a-z][a-z0-9+.\-]*://)[^\s/@:]*(?::[^\s/@]*)?@", re.IGNORECASE)
_QUERY_KEY = re.compile(r"((?:api[_-]?key|access[_-]?token|token|password|secret)=)[^&\s\"']+",
                        re.IGNORECASE)


def strip_url_credentials(url: str | None) -> str | None:
    """The URL without user:password, fit to store or display."""
    if not url:
        return url
    parts = urlsplit(str(url))
    if parts.username is not None or parts.password is not None:
        host = parts.hostname or ""
        netloc = f"[{host}]" if ":" in host else host
        if parts.port:
            netloc += f":{parts.port}"
        parts = parts._replace(netloc=netloc)
    return urlunsplit(parts)


def url_credentials(url: str | None) -> tuple[str, str] | None:
    """(user, password) of a URL, percent-decoded as they are sent; None when it has neither."""
    if not url:
        return None
    parts = urlsplit(str(url))
    if not parts.username and not parts.password:
        return None
    return unquote(parts.username or ""), unquote(parts.password or "")


def basic_token(user: str, password: str) -> str:
    """The HTTP Basic credentials of user:password, as the Authorization header carries them."""
    return base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii")


def url_secrets(url: str | None) -> list[str]:
    """Every form the password inside a URL can take on the wire (the user name alone is not
    a secret; it is masked only inside the Basic token)."""
    if not url:
        return []
    raw = urlsplit(str(url)).password
    found = url_credentials(url)
    if not raw or found is None:
        return []
    user, password = found
    forms = {raw, password, quote(password, safe=""), quote(password)}
    for token in (basic_token(user, password), basic_token("", password)):
        forms.update({token, token.rstrip("=")})   # an echo may drop the padding
    return sorted(forms)


def _is_basic_token(token: str) -> bool:
    """A base64 word after "Basic" that decodes to user:password (not the word "Basic"
    followed by any long English word)."""
    try:
        decoded = base64.b64decode(token + "=" * (-len(token) % 4), validate=True)
        text = decoded.decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return ":" in text and text.isprintable()


def _mask_basic(match: re.Match) -> str:
    return match.group(1) + MASK if _is_basic_token(match.group(2)) else match.group(0)


def redact_patterns(text: str) -> str:
    """Masks what looks like a credential, known or not: keys, bearer and basic tokens, URL
    passwords. Each pattern runs only when its marker is in the text: every prompt passes
    through here."""
    if "earer" in text or "EARER" in text:
        text = _BEARER.sub(rf"\1{MASK}", text)
    if "asic" in text or "ASIC" in text:
        text = _BASIC.sub(_mask_basic, text)
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
        self.secrets = sorted({s for s in secrets if isinstance(s, str) and len(s) >= MIN_SECRET},
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
