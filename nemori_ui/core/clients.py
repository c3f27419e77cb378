"""Builds what a run talks to from its configuration: embedder, gateway and decider."""

from __future__ import annotations

from collections.abc import Mapping

from .config import PipelineConfig
from .embed import CachedEmbedder
from .offline import OfflineDecider
from .pipeline.runner import Clients
from .store import Store
from .store.caches import SqliteResponseCache, SqliteVectorCache


def build_embedder(config: PipelineConfig, store: Store | None, *, api_key: str | None = None,
                   secrets: Mapping | None = None):
    cache = SqliteVectorCache(store) if store else None
    if config.embedder == "openai":
        from .embed import OpenAIEmbedder
        from .llm.openai_backend import make_openai_client, resolve_openai_settings
        key, base = resolve_openai_settings(api_key, config.base_url, secrets)
        inner = OpenAIEmbedder(make_openai_client(key, base), config.embedding_model)
    else:
        from .embed import load_minilm
        inner = load_minilm()
    return CachedEmbedder(inner, cache)


def build_clients(config: PipelineConfig, store: Store | None, *, api_key: str | None = None,
                  secrets: Mapping | None = None, backend=None, embedder=None) -> Clients:
    """`backend` (a ChatBackend) and `embedder` may be given directly, e.g. by tests."""
    embedder = embedder or build_embedder(config, store, api_key=api_key, secrets=secrets)
    offline = OfflineDecider(embedder, config.offline)
    if config.backend == "offline" and backend is None:
        return Clients(decider=offline, embedder=embedder)
    from .llm import LLMGateway
    from .llm.openai_backend import OpenAIChatBackend, resolve_openai_settings
    from .prompts.decider import LLMDecider
    if backend is None:
        key, base = resolve_openai_settings(api_key, config.base_url, secrets)
        backend = OpenAIChatBackend(config.model, api_key=key, base_url=base)
    gateway = LLMGateway(backend, SqliteResponseCache(store) if store else None,
                         max_concurrency=config.concurrency,
                         structured_output=config.structured_output,
                         temperature=config.temperature)
    decider = LLMDecider(gateway, config, fallback=offline)
    return Clients(decider=decider, embedder=embedder, drain_calls=gateway.drain_records,
                   llm_totals=gateway.totals)
