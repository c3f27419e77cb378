"""Builds what a run talks to from its configuration: embedder, gateway and decider."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .config import PipelineConfig
from .embed import CachedEmbedder
from .deciders.offline import OfflineDecider
from .pipeline.runner import Clients
from .store import Store
from .store.caches import SqliteResponseCache, SqliteVectorCache
from .counts import plural


def build_embedder(config: PipelineConfig, store: Store | None, *, api_key: str | None = None,
                   secrets: Mapping | None = None, base_url: str | None = None):
    """`base_url` is the URL as the user gave it, credentials included (see openai_backend)."""
    cache = SqliteVectorCache(store) if store else None
    if config.embedder == "openai":
        from .embed import OpenAIEmbedder
        from .llm.openai_backend import (credential_redactor, make_openai_client,
                                         resolve_openai_settings)
        key, base = resolve_openai_settings(api_key, base_url or config.base_url, secrets)
        inner = OpenAIEmbedder(make_openai_client(key, base), config.embedding_model,
                               redactor=credential_redactor([key], [base]))
    else:
        from .embed import load_minilm
        inner = load_minilm()
    return CachedEmbedder(inner, cache)


def build_gateway(config: PipelineConfig, store: Store | None, backend, *,
                  temperature: float | None = None, notice: Callable[[str], None] | None = None,
                  replies=None):
    """The gateway of a backend with the run's call settings, writing its calls to the store;
    `replies` is its response cache, if not the store's."""
    from .llm import BufferSink, LLMGateway
    from .llm.store_sink import StoreCallSink
    cache = replies if replies is not None else SqliteResponseCache(store) if store else None
    return LLMGateway(backend, cache,
                      max_concurrency=config.concurrency, retries=config.attempts - 1,
                      timeout_s=config.timeout_s, retry_budget_s=config.retry_budget_s,
                      structured_output=config.structured_output,
                      temperature=config.temperature if temperature is None else temperature,
                      sink=StoreCallSink(store) if store else BufferSink(), notice=notice)


def openai_backend(config: PipelineConfig, model: str, *, api_key: str | None = None,
                   base_url: str | None = None, secrets: Mapping | None = None):
    """`base_url` is the URL as the user gave it, credentials included; the config keeps it
    without them, so a stored run never holds a password."""
    from .llm.openai_backend import OpenAIChatBackend, resolve_openai_settings
    key, base = resolve_openai_settings(api_key, base_url or config.base_url, secrets)
    return OpenAIChatBackend(model, api_key=key, base_url=base)


def check_server(backend, gateway, notes: list[str]) -> None:
    """A local server's own word on what it serves: the model it lists (the default
    gpt-4o-mini would otherwise be labelled and priced for a llama.cpp model) and how many
    requests it serves at once."""
    from .llm.servers import choose_model
    if not getattr(backend, "local", False):
        return
    model, warning = choose_model(backend.model, backend.list_models(), backend.base_url)
    if warning:
        notes.append(warning)
    backend.model = model
    slots = backend.server_slots()
    if slots and slots < gateway.limit.ceiling:
        gateway.limit.set_ceiling(slots)
        notes.append(f"{backend.base_url} serves {plural(slots, 'request')} at a time: at most "
                     f"{slots} "
                     "will be sent at once")


def build_clients(config: PipelineConfig, store: Store | None, *, api_key: str | None = None,
                  secrets: Mapping | None = None, backend=None, embedder=None,
                  base_url: str | None = None,
                  notice: Callable[[str], None] | None = None, replies=None) -> Clients:
    """`backend` (a ChatBackend), `embedder` and the response cache `replies` may be given
    directly, e.g. by tests.
    `notice` hears each retry and what was learnt about the server as it happens."""
    embedder = embedder or build_embedder(config, store, api_key=api_key, secrets=secrets,
                                          base_url=base_url)
    offline = OfflineDecider(embedder, config.offline)
    if config.backend == "offline" and backend is None:
        return Clients(decider=offline, embedder=embedder)
    from .deciders.llm import LLMDecider
    notes: list[str] = []
    probe = backend is None
    if backend is None:
        backend = openai_backend(config, config.model, api_key=api_key, base_url=base_url,
                                 secrets=secrets)
    gateway = build_gateway(config, store, backend, notice=notice, replies=replies)
    if probe:
        check_server(backend, gateway, notes)
        for note in notes:
            if notice:
                notice(note)
    decider = LLMDecider(gateway, config, fallback=offline)
    return Clients(decider=decider, embedder=embedder, drain_calls=gateway.drain_records,
                   llm_totals=gateway.totals, notes=notes)
