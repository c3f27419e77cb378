"""Facts about the server a backend talks to: local or not, which model it serves, and how to
name a model whose id is a file path."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

LOCAL_NAMES = {"localhost", "localhost.localdomain", "host.docker.internal"}


def is_local_server(url: str | None) -> bool:
    """A base URL on this machine or the local network: its calls cost nothing."""
    if not url:
        return False
    host = (urlsplit(str(url)).hostname or "").lower()
    if host in LOCAL_NAMES or host.endswith(".local") or host.endswith(".localhost"):
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.is_loopback or ip.is_private or ip.is_unspecified or ip.is_link_local


def display_model(model: str | None) -> str:
    """A long model id (a local server often names its model by its file path) by its file
    name: '/models/SmolLM2-135M-Instruct-Q4_1.gguf' shows as 'SmolLM2-135M-Instruct-Q4_1.gguf'."""
    text = str(model or "")
    if "/" in text or "\\" in text:
        tail = text.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        if tail and (tail.endswith((".gguf", ".bin", ".safetensors")) or len(text) > 40):
            return tail
    return text


def choose_model(configured: str, served: list[str] | None,
                 server: str | None) -> tuple[str, str | None]:
    """(model to use, warning or None) once the server's /v1/models list is known.

    A configured model the server lists is used as it is. A server that serves exactly one
    model (llama.cpp, a single-model vLLM) gets that one: it would answer with it anyway,
    and the run should be labelled, cached and priced by what really answered.
    """
    if not served or configured in served:
        return configured, None
    where = server or "the server"
    if len(served) == 1:
        return served[0], (f"{where} serves only '{display_model(served[0])}', not "
                           f"'{configured}': using '{display_model(served[0])}'")
    listed = ", ".join(display_model(s) for s in served[:8])
    return configured, (f"{where} does not list the model '{configured}' (it lists {listed}); "
                        "its answers may come from another model")
