"""`ask`: retrieve from a run's memory and answer a question."""

from __future__ import annotations

import sys

from ..core.clients import RunEnvironment, build_clients
from ..core.retrieval import answer_question, load_memory
from ..core.store import runs
from .commands import COMMANDS
from .common import add_home, print_json, store_from


def add_parser(sub) -> None:
    p = sub.add_parser("ask", help=COMMANDS["ask"])
    p.add_argument("run_id")
    p.add_argument("question")
    p.add_argument("--json", action="store_true")
    add_home(p)


def _by(out) -> str:
    if out.source == "model":
        return "from the model"
    if out.source == "offline fallback":
        return f"from the offline fallback: {out.fallback}"
    return "from the offline engine, no LLM"


def run(args) -> int:
    store = store_from(args)
    config = runs.get_run(store, args.run_id).config
    clients = build_clients(config, store, RunEnvironment(
        notice=lambda text: print(f"note: {text}", file=sys.stderr)))
    state, messages = load_memory(store, args.run_id, clients.embedder, config)
    out = answer_question(args.question, clients.decider, clients.embedder, state, messages,
                          config, run_id=args.run_id)
    answer, found = out.answer, out.found
    if args.json:
        print_json({"answer": answer, "answered_by": out.source, "fallback": out.fallback,
                    "episodes": found.episodes, "semantic": found.semantic,
                    "raw": found.raw, "context_tokens": found.context_tokens})
        return 0
    print(f"answer ({_by(out)}): {answer}\n")
    for e in found.episodes:
        print(f"  episode {e['id']} {e['score']:.3f}  {e['cue']}")
    for m in found.semantic:
        print(f"  memory  {m['id']} {m['score']:.3f}  {m['text']}")
    for r in found.raw:
        print(f"  raw     {r['message_id']} ({r['episode_id']})  {r['speaker']}: {r['text']}")
    print(f"\ncontext: {found.context_tokens} tokens")
    return 0
