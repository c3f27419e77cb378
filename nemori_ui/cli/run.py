"""`run`: the pipeline on one conversation of a transcript file."""

from __future__ import annotations

import sys
import time

from ..core.clients import RunEnvironment, build_clients
from ..core.config import PipelineConfig
from ..core.pipeline.runner import run_windows, start_run
from ..core.run_figures import run_figures
from ..core.transcripts import load_transcript
from .commands import COMMANDS
from .common import (TerminalProgress, add_semantic_options, add_episode_match, add_home,
                     add_llm_options, semantic_settings, llm_settings, make_config, notice,
                     print_json, store_from)


def add_parser(sub) -> None:
    p = sub.add_parser("run", help=COMMANDS["run"])
    p.add_argument("file")
    p.add_argument("--format", help="transcript format (default: detected)")
    p.add_argument("--conversation", help="conversation id (default: the first)")
    p.add_argument("--backend", choices=["offline", "openai"], default="offline")
    p.add_argument("--model", default="gpt-4o-mini")
    p.add_argument("--base-url", help="OpenAI-compatible server (default: $OPENAI_BASE_URL)")
    p.add_argument("--embedder", choices=["minilm", "openai"], default="minilm")
    p.add_argument("--window", type=int, default=20, help="window length w (default 20)")
    p.add_argument("--tau", type=float, default=None,
                   help="similarity threshold τ (default: the embedder's; 0.57 MiniLM, "
                        "0.70 text-embedding-3-small)")
    p.add_argument("--k-e", type=int, default=5, help="integration candidates K_e (default 5)")
    p.add_argument("--k-s", type=int, default=10, help="evoked memories K_s (default 10)")
    p.add_argument("--k-m", type=int, default=5, help="consolidation candidates K_m (default 5)")
    p.add_argument("--variant", choices=["nemori", "nemori-s"], default="nemori")
    p.add_argument("--management", choices=["native", "naive", "summary"], default="native")
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--index", choices=["flat", "hnsw", "ivf"], default="flat",
                   help="FAISS index: flat (exact, default), hnsw or ivf (approximate)")
    add_episode_match(p)
    add_semantic_options(p)
    add_llm_options(p)
    p.add_argument("--name", help="a name for the run")
    p.add_argument("--fresh", action="store_true", help="start a new run instead of resuming")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_home(p)


def config_from(args) -> PipelineConfig:
    return make_config(backend=args.backend, model=args.model, embedder=args.embedder,
                       window=args.window, tau=args.tau, k_e=args.k_e, k_s=args.k_s,
                       k_m=args.k_m, variant=args.variant, management=args.management,
                       concurrency=args.concurrency, index=args.index,
                       episode_match=args.episode_match, **semantic_settings(args),
                       **llm_settings(args))


def run(args) -> int:
    transcript = load_transcript(args.file, format=args.format)
    conv = transcript.conversation(args.conversation)
    if args.conversation is None and len(transcript.conversations) > 1:
        print(f"{args.file} holds {len(transcript.conversations)} conversations; running the first, "
              f"'{conv.id}' (choose with --conversation)", file=sys.stderr)
    config = config_from(args)
    store = store_from(args)
    env = RunEnvironment(base_url=args.base_url, notice=notice)
    clients = build_clients(config, store, env)
    run_id = start_run(store, conv, config, clients, source=str(args.file), fmt=transcript.format,
                       name=args.name, resume=not args.fresh,
                       notice=lambda text: print(f"note: {text}", file=sys.stderr))
    started = time.perf_counter()
    try:
        run_windows(store, run_id, clients, progress=TerminalProgress())
    except KeyboardInterrupt:
        print(f"\ninterrupted: run {run_id} resumes where it stopped if you run the same "
              "command again", file=sys.stderr)
        return 130
    figures = run_figures(store, run_id)
    figures.seconds = round(time.perf_counter() - started, 3)
    if args.json:
        print_json(figures.model_dump())
    else:
        print(f"run {run_id} ({figures.decider}): {figures.messages} messages, "
              f"{figures.windows} windows → {figures.episodes} episodes "
              f"({figures.integrated} integrated), {figures.insights} insights "
              f"({figures.predicted} facts told again predicted, not stored) → "
              f"{figures.semantic_memories} memories "
              f"(new {figures.decisions['new']}, merge {figures.decisions['merge']}, "
              f"conflict {figures.decisions['conflict']}); LLM calls {figures.llm.calls} "
              f"(+{figures.llm.cached} cached, {figures.llm.failed} failed, "
              f"{figures.fallbacks} decisions by the offline fallback); "
              f"{figures.seconds} s")
    return 0
