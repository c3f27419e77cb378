"""Builds what a run talks to from its configuration and its environment: embedder, gateway
and decider."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .config import PipelineConfig
from .embed import CachedEmbedder
from .deciders.offline import OfflineDecider
from .executors import IN_PROCESS, Executor
from .pipeline.runner import Clients
from .store import Store
from .store.caches import SqliteResponseCache, SqliteVectorCache
from .counts import plural


@dataclass(frozen=True, repr=False)
class RunEnvironment:
    """Where a run's model and embeddings come from, where its tasks run and who hears what it
    learns on the way: everything a run needs besides its settings (the PipelineConfig, which
    is stored with it and decides what it builds).

    It holds the key, so it never leaves the process that made it: it is not stored, exported
    or sent to a worker (a worker reads its key from its own environment, see scale/fanout),
    its repr hides the key, the secrets and any password in the URL, and it refuses to be
    pickled, so a closure that captured it cannot carry it to Ray either."""
    api_key: str | None = None       # else the secrets' OPENAI_API_KEY, else the environment's
    secrets: Mapping | None = None   # Streamlit secrets
    base_url: str | None = None      # as given, credentials included (see openai_backend)
    # given directly (tests, benchmarks); else built from the config
    backend: Any = None              # the answering and memory model's ChatBackend
    judge_backend: Any = None        # an evaluation judge's ChatBackend
    embedder: Any = None
    notice: Callable[[str], None] | None = None   # each retry, what is learnt about the server
    executor: Executor = IN_PROCESS  # where an evaluation's or a sweep's tasks run

    def worker_key(self, config: PipelineConfig) -> str | None:
        """The key workers must hold: the one this process would use, if the work needs one."""
        if config.backend == "offline" and config.embedder != "openai":
            return None
        from .llm.openai_backend import PLACEHOLDER_KEY, resolve_openai_settings
        key, _ = resolve_openai_settings(self.api_key, self.base_url or config.base_url,
                                         self.secrets)
        return None if key in (None, PLACEHOLDER_KEY) else key

    def __repr__(self) -> str:
        from .llm.redact import redact_patterns, strip_url_credentials
        shown = [f"{name}=***" for name in ("api_key", "secrets") if getattr(self, name)]
        if self.base_url:
            shown.append(f"base_url={redact_patterns(strip_url_credentials(self.base_url))!r}")
        # a backend's or embedder's own repr is theirs to keep clean: only its kind is shown
        shown += [f"{name}={type(value).__name__}"
                  for name in ("backend", "judge_backend", "embedder", "notice", "executor")
                  if (value := getattr(self, name)) is not None]
        return f"RunEnvironment({', '.join(shown)})"

    def __reduce__(self):
        raise TypeError("a RunEnvironment holds the API key and is never pickled: a worker "
                        "reads its key from its own environment")


# the key and server of this process's environment; tasks run here; no one hears notes
DEFAULT_ENV = RunEnvironment()


def build_embedder(config: PipelineConfig, store: Store | None,
                   env: RunEnvironment = DEFAULT_ENV):
    cache = SqliteVectorCache(store) if store else None
    if config.embedder == "openai":
        from .embed import OpenAIEmbedder
        from .llm.openai_backend import (credential_redactor, make_openai_client,
                                         resolve_openai_settings)
        key, base = resolve_openai_settings(env.api_key, env.base_url or config.base_url,
                                            env.secrets)
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


def openai_backend(config: PipelineConfig, model: str, env: RunEnvironment = DEFAULT_ENV):
    """From the environment's URL as the user gave it, credentials included; the config keeps
    it without them, so a stored run never holds a password."""
    from .llm.openai_backend import OpenAIChatBackend, resolve_openai_settings
    key, base = resolve_openai_settings(env.api_key, env.base_url or config.base_url,
                                        env.secrets)
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


def build_clients(config: PipelineConfig, store: Store | None,
                  env: RunEnvironment = DEFAULT_ENV, *, replies=None) -> Clients:
    """The environment's backend and embedder when it gives them (e.g. tests), else those the
    config names; `replies` is the response cache, if not the store's. The environment's
    `notice` hears each retry and what was learnt about the server as it happens."""
    embedder = env.embedder or build_embedder(config, store, env)
    offline = OfflineDecider(embedder, config.offline)
    backend = env.backend
    if config.backend == "offline" and backend is None:
        return Clients(decider=offline, embedder=embedder)
    from .deciders.llm import LLMDecider
    notes: list[str] = []
    probe = backend is None
    if backend is None:
        backend = openai_backend(config, config.model, env)
    gateway = build_gateway(config, store, backend, notice=env.notice, replies=replies)
    if probe:
        check_server(backend, gateway, notes)
        for note in notes:
            if env.notice:
                env.notice(note)
    decider = LLMDecider(gateway, config, fallback=offline)
    return Clients(decider=decider, embedder=embedder, drain_calls=gateway.drain_records,
                   llm_totals=gateway.totals, notes=notes)
