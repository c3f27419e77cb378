"""The pipeline through a local OpenAI-compatible server with a model's latency: wall time
against the critical path, calls and tokens per stage, concurrency 1 against 8, a warm re-run.

    python benchmarks/bench_pipeline_llm.py [--conv conv-30] [--delay 0.1] [--per-token 0.002]
                                            [--embedder minilm|hash] [--window 20]
                                            [--prompts paper|strict]

The server is the test suite's (tests/openai_server.py) answering with its deterministic
responder (tests/llm_responder.py); it waits `delay` seconds per request plus `per-token`
seconds per output token, as a model's time to first token and decoding speed. Replies and
their lengths are the responder's, not a real model's; the prompts are the product's.

The critical path is the LLM latency that no concurrency can hide, summed over windows: the
partition, then the slowest narration of the window (narrations run concurrently), then every
later call of each episode in turn (select, integrate, anticipate, distill, consolidate), since
each reads what the previous one stored. It is computed from the server's latency model and
each call's output tokens; the wall time adds everything else (embeddings, FAISS, SQLite, HTTP).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a source checkout; the test server lives in tests/

from nemori_ui.core.clients import RunEnvironment, build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.llm import OpenAIChatBackend  # noqa: E402
from nemori_ui.core.models import LLMCallRecord  # noqa: E402
from nemori_ui.core.pipeline.runner import run_windows, start_run  # noqa: E402
from nemori_ui.core.prompts import STAGE_OF  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402
from tests.llm_responder import respond  # noqa: E402
from tests.openai_server import OpenAIServer  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
PROMPT_ORDER = list(STAGE_OF)


def simulated(call: LLMCallRecord, args) -> float:
    """What the server made this call wait: per request, plus per output token."""
    return 0.0 if call.cached else call.attempts * args.delay + call.output_tokens * args.per_token


def critical_path(calls_by_window: dict[int, list[LLMCallRecord]], latency) -> float:
    total = 0.0
    for calls in calls_by_window.values():
        narrate = [latency(c) for c in calls if c.prompt_name == "narrate"]
        total += max(narrate, default=0.0)
        total += sum(latency(c) for c in calls if c.prompt_name != "narrate")
    return total


def run_once(store, conv, config, server, args, label: str) -> dict:
    backend = OpenAIChatBackend(config.model, api_key="bench-key", base_url=server.url)
    embedder = None
    if args.embedder == "hash":
        from tests.fakes import HashEmbedder
        embedder = HashEmbedder(dim=384)
    clients = build_clients(config, store, RunEnvironment(backend=backend, embedder=embedder))
    clients.embedder.embed(["warm up"])   # the model load is not the pipeline's time
    run_id = start_run(store, conv, config, clients, source=args.data, fmt="locomo",
                       resume=False)
    started = time.perf_counter()
    run_windows(store, run_id, clients)
    wall = time.perf_counter() - started
    by_window: dict[int, list[LLMCallRecord]] = defaultdict(list)
    for row in store.query("SELECT window, record FROM llm_calls WHERE run_id = ? ORDER BY rowid",
                           (run_id,)):
        by_window[row["window"]].append(LLMCallRecord.model_validate_json(row["record"]))
    calls = [c for cs in by_window.values() for c in cs]
    result = {
        "label": label, "wall": wall, "calls": len(calls),
        "requests": sum(c.attempts for c in calls), "cached": sum(c.cached for c in calls),
        "critical": critical_path(by_window, lambda c: simulated(c, args)),
        "critical_measured": critical_path(by_window, lambda c: c.latency_s),
        "sequential": sum(simulated(c, args) for c in calls),
        "usage": clients.decider.gateway.usage(),
    }
    print(f"  {label}: {wall:.1f} s, {result['calls']} calls ({result['cached']} cached)",
          flush=True)
    return result


def report(results: list[dict], conv, args) -> None:
    print(f"\n{args.conv}: {len(conv.messages)} messages, w={args.window}, embedder "
          f"{args.embedder}; simulated model latency {args.delay * 1000:.0f} ms per request + "
          f"{args.per_token * 1000:.1f} ms per output token\n")
    head = (f"{'run':<24}{'wall s':>8}{'critical s':>12}{'wall/crit':>11}{'all calls s':>13}"
            f"{'calls':>7}{'requests':>10}{'cached':>8}")
    print(head + "\n" + "-" * len(head))
    for r in results:
        ratio = f"{r['wall'] / r['critical']:.2f}x" if r["critical"] else "-"
        print(f"{r['label']:<24}{r['wall']:>8.1f}{r['critical']:>12.1f}{ratio:>11}"
              f"{r['sequential']:>13.1f}{r['calls']:>7}{r['requests']:>10}{r['cached']:>8}")
    print("critical: the latency no concurrency can hide (model of the server); all calls: "
          "every call's latency end to end\n(critical path from the latencies the client "
          f"measured, concurrency 8: {results[1]['critical_measured']:.1f} s)\n")

    usage = results[1]["usage"]
    head = (f"{'prompt':<13}{'stage':<13}{'calls':>6}{'requests':>9}{'input tok':>11}"
            f"{'output tok':>11}{'latency s':>11}")
    print("Per stage, concurrency 8, cold:\n" + head + "\n" + "-" * len(head))
    for p in sorted(usage, key=PROMPT_ORDER.index):
        u = usage[p]
        print(f"{p:<13}{STAGE_OF[p]:<13}{u['calls']:>6}{u['requests']:>9}{u['input_tokens']:>11,}"
              f"{u['output_tokens']:>11,}{u['latency_s']:>11.1f}")
    total = {k: sum(u[k] for u in usage.values()) for k in
             ("calls", "requests", "input_tokens", "output_tokens", "latency_s")}
    print("-" * len(head) + f"\n{'total':<26}{total['calls']:>6}{total['requests']:>9}"
          f"{total['input_tokens']:>11,}{total['output_tokens']:>11,}{total['latency_s']:>11.1f}\n")

    c1, c8, warm = results
    print(f"concurrency 8 against 1: {c1['wall'] / c8['wall']:.2f}x faster "
          f"({c1['wall']:.1f} s -> {c8['wall']:.1f} s)")
    print(f"concurrency 8 wall time / critical path: {c8['wall'] / c8['critical']:.2f}x "
          f"(target at most 1.5x)")
    print(f"warm re-run (every reply cached): {warm['wall']:.2f} s, "
          f"{c8['wall'] / warm['wall']:.0f}x faster than cold (target at least 20x)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", default=str(LOCOMO))
    ap.add_argument("--conv", default="conv-30")
    ap.add_argument("--window", type=int, default=20)
    ap.add_argument("--delay", type=float, default=0.1, help="seconds per request")
    ap.add_argument("--per-token", type=float, default=0.002, help="seconds per output token")
    ap.add_argument("--embedder", choices=["minilm", "hash"], default="minilm")
    ap.add_argument("--prompts", choices=["paper", "strict"], default="paper")
    args = ap.parse_args()
    conv = load_transcript(args.data).conversation(args.conv)
    results = []
    with OpenAIServer() as server:
        server.responder = respond
        server.delay, server.token_delay = args.delay, args.per_token
        print(f"running {args.conv} three times (a few minutes)")
        for concurrency in (1, 8):
            config = PipelineConfig(backend="openai", model="test-model", window=args.window,
                                    concurrency=concurrency, prompts=args.prompts)
            store = open_store(tempfile.mkdtemp(prefix="nemori-bench-"))   # nothing cached
            results.append(run_once(store, conv, config, server, args,
                                    f"concurrency {concurrency}, cold"))
        results.append(run_once(store, conv, config, server, args, "concurrency 8, warm"))
    report(results, conv, args)


if __name__ == "__main__":
    main()
