"""LLM calls and tokens per prompt for one conversation, through the real pipeline and SDK.

    python benchmarks/bench_llm_calls.py [--conv conv-30] [--embedder minilm|hash] [--window 20]
                                         [--tau T] [--variant nemori|nemori-s] [--group 6]
                                         [--consolidation gated|always|off]
                                         [--semantic-order sequential|window]
                                         [--cold-start prediction|narrative]
                                         [--against-always]

The model is the local OpenAI-compatible test server answering with the deterministic test
responder, so no real model is involved: reply lengths (output tokens) and the decisions are
artificial, while the input tokens come from the real prompts filled with the real
conversation. Input tokens are estimated from every request the server received, two ways:
characters / 4 (plus the chat format's per-message overhead) and WordPiece tokens of the
MiniLM tokenizer. The stage shares are set beside the paper's Table 9, and each step's calls
and input tokens a message of conversation beside Table 3's tokens shared out by Table 9, with
what the issue's target (1.15x the paper) leaves for consolidation. `--group` sets how many
messages the responder puts in one episode, which drives the number of every later call.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

from tokenizers import Tokenizer  # noqa: E402

from nemori_ui.cli.common import add_semantic_options, semantic_settings  # noqa: E402
from nemori_ui.core.clients import RunEnvironment, build_clients  # noqa: E402
from nemori_ui.core.config import PipelineConfig, default_tau  # noqa: E402
from nemori_ui.core.embed.minilm import TOKENIZER_PATH  # noqa: E402
from nemori_ui.core.llm import OpenAIChatBackend  # noqa: E402
from nemori_ui.core.pipeline.runner import run_windows, start_run  # noqa: E402
from nemori_ui.core.prompts import STAGE_OF  # noqa: E402
from nemori_ui.core.store import open_store, records  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402
from nemori_ui.core.views.calls import PAPER_TABLE_3, PAPER_TABLE_9  # noqa: E402
from tests import llm_responder  # noqa: E402
from tests.llm_responder import prompt_of, respond  # noqa: E402
from tests.openai_server import OpenAIServer  # noqa: E402

LOCOMO = Path("/work/shared/data/locomo/locomo-dev.json")
PER_MESSAGE = 4      # role and separators each chat message costs, as OpenAI counts them
PER_REQUEST = 3      # the primed assistant reply


def chars_estimate(messages: list[dict]) -> int:
    return PER_REQUEST + sum(PER_MESSAGE + len(str(m.get("content") or "")) // 4
                             for m in messages)


class WordPiece:
    def __init__(self) -> None:
        self.tok = Tokenizer.from_file(str(TOKENIZER_PATH))
        self.tok.no_truncation()
        self.tok.no_padding()

    def __call__(self, messages: list[dict]) -> int:
        texts = [str(m.get("content") or "") for m in messages]
        pieces = sum(len(e.ids) - 2 for e in self.tok.encode_batch(texts))  # less [CLS] [SEP]
        return PER_REQUEST + PER_MESSAGE * len(messages) + pieces


def hash_embedder():
    from tests.fakes import HashEmbedder
    return HashEmbedder(dim=256)


def measure(args) -> tuple[dict, dict, float, int, int, dict]:
    conv = load_transcript(args.data).conversation(args.conv)
    config = PipelineConfig(backend="openai", model="test-model", window=args.window,
                            tau=args.tau, variant=args.variant, **semantic_settings(args))
    embedder = hash_embedder() if args.embedder == "hash" else None
    llm_responder.GROUP = args.group
    with tempfile.TemporaryDirectory() as home, OpenAIServer() as server:
        server.responder = respond
        store = open_store(home)
        backend = OpenAIChatBackend(config.model, api_key="test-key", base_url=server.url)
        clients = build_clients(config, store, RunEnvironment(backend=backend, embedder=embedder))
        run_id = start_run(store, conv, config, clients, source=str(args.data), fmt="locomo",
                           resume=False)
        started = time.perf_counter()
        run_windows(store, run_id, clients)
        seconds = time.perf_counter() - started
        usage = clients.decider.gateway.usage()
        decided = [e.payload for e in records.load_events(store, run_id) if e.stage == "consolidate"]
        # insights, and how many of them a model was asked about
        insights = (len(decided), sum(bool(d.candidates) and not d.skipped for d in decided))
        kept = {"active": {m.text for m in records.load_memories(store, run_id)
                           if m.status == "active"},
                "changed": sum(d.action != "new" for d in decided)}
        wordpiece = WordPiece()
        est: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
        for req in server.chat_requests:
            row = est[prompt_of(req.body)]
            row["requests"] += 1
            row["chars4"] += chars_estimate(req.messages)
            row["wordpiece"] += wordpiece(req.messages)
            row["system"] += chars_estimate(req.messages[:1])
        store.conn.close()
    return usage, est, seconds, len(conv.messages), insights, kept


def compare(kept: dict, always: dict) -> None:
    """How far this run's stored memories are from those of `--consolidation always`."""
    a, b = kept["active"], always["active"]
    print(f"\nStored memories beside --consolidation always: {len(a)} against {len(b)}; "
          f"{len(b - a)} of always's missing here, {len(a - b)} only here "
          f"({len(a & b) / max(1, len(a | b)):.1%} in common); merged or replaced by a call: "
          f"{kept['changed']} here, {always['changed']} with always")


def pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:5.1f}%" if whole else "    -"


# The method's steps, finer than Table 9's stages: the semantic stage is split into its calls.
STEP_OF = {"partition": "partition", "narrate": "narration", "select": "integration",
           "integrate": "integration", "anticipate": "anticipation", "distill": "distillation",
           "distill_direct": "distillation", "cold_start": "distillation",
           "consolidate": "consolidation", "consolidate_episode": "consolidation",
           "summarize": "consolidation"}
SEMANTIC_STEPS = ("anticipation", "distillation", "consolidation")
TARGET = 1.15          # issue 21: at most this many times the paper's calls and tokens a message
TARGET_SHARE = 40.0    # and at most this share of input tokens semantic


def per_step(usage: dict, est: dict, n_messages: int) -> dict[str, dict]:
    """Calls and input tokens (characters / 4) a message of conversation, per step of the
    method, then the semantic stage whole and the total; `paper` is the paper's input tokens a
    message, Table 3's shared out by Table 9 (which gives no calls and no split of the semantic
    stage)."""
    out = {s: {"calls": 0.0, "tokens": 0.0, "paper": None} for s in dict.fromkeys(STEP_OF.values())}
    for prompt, e in est.items():
        row = out[STEP_OF[prompt]]
        row["calls"] += usage.get(prompt, {}).get("calls", 0) / n_messages
        row["tokens"] += e["chars4"] / n_messages
    paper = PAPER_TABLE_3["input tokens"] / PAPER_TABLE_3["messages"]
    for stage in ("partition", "narration", "integration"):
        out[stage]["paper"] = paper * PAPER_TABLE_9[stage] / 100
    steps = list(out)
    out["semantic"] = {k: sum(out[s][k] for s in SEMANTIC_STEPS) for k in ("calls", "tokens")}
    out["semantic"]["paper"] = paper * PAPER_TABLE_9["semantic"] / 100
    out["total"] = {k: sum(out[s][k] for s in steps) for k in ("calls", "tokens")}
    out["total"]["paper"] = paper
    return out


def report_steps(steps: dict[str, dict[str, float]]) -> None:
    per = PAPER_TABLE_3["messages"]
    print("Per message of conversation, by step, beside the paper (tokens: Table 3's input "
          "shared out by Table 9):")
    head = f"{'step':<16}{'calls':>7}{'in tokens':>11}{'paper':>8}"
    print(head)
    print("-" * len(head))
    for step, row in steps.items():
        paper = "" if row["paper"] is None else f"{row['paper']:.0f}"
        name = f"  {step}" if step in SEMANTIC_STEPS else step
        print(f"{name:<16}{row['calls']:>7.2f}{row['tokens']:>11.0f}{paper:>8}")
    rest = {k: steps["total"][k] - steps["consolidation"][k] for k in ("calls", "tokens")}
    calls, tokens = TARGET * PAPER_TABLE_3["calls"] / per, TARGET * steps["total"]["paper"]
    share = 100 * (steps["semantic"]["tokens"] - steps["consolidation"]["tokens"]) / rest["tokens"]
    print(f"Target: <= {calls:.2f} calls and <= {tokens:.0f} input tokens a message, semantic "
          f"<= {TARGET_SHARE:.0f} %. Every step but consolidation: {rest['calls']:.2f} calls, "
          f"{rest['tokens']:.0f} tokens, semantic {share:.1f} %; left for consolidation: "
          f"{calls - rest['calls']:.2f} calls and {tokens - rest['tokens']:.0f} tokens a "
          f"message\n")


def report(usage: dict, est: dict, seconds: float, n_messages: int, insights: tuple[int, int],
           args) -> None:
    print(f"{args.conv}: {n_messages} messages, w={args.window}, tau={args.tau}, "
          f"consolidation={args.consolidation}, semantic order={args.semantic_order}, "
          f"cold start={args.cold_start}, variant={args.variant}, embedder={args.embedder}, "
          f"responder episodes of {args.group} messages; pipeline {seconds:.1f} s\n")
    head = (f"{'prompt':<20}{'stage':<12}{'calls':>6}{'req':>6}{'in ~chars/4':>13}"
            f"{'in wordpiece':>14}{'out (server)':>14}{'in/call':>9}{'sys/call':>10}")
    print(head)
    print("-" * len(head))
    order = sorted(est, key=lambda p: list(STAGE_OF).index(p))
    stage_in: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for p in order:
        u, e = usage.get(p, {}), est[p]
        stage = STAGE_OF[p]
        for key in ("chars4", "wordpiece"):
            stage_in[stage][key] += e[key]
        stage_in[stage]["out"] += u.get("output_tokens", 0)
        stage_in[stage]["calls"] += u.get("calls", 0)
        print(f"{p:<20}{stage:<12}{u.get('calls', 0):>6}{e['requests']:>6}{e['chars4']:>13,}"
              f"{e['wordpiece']:>14,}{u.get('output_tokens', 0):>14,}"
              f"{e['chars4'] // max(1, e['requests']):>9,}"
              f"{e['system'] // max(1, e['requests']):>10,}")
    total = {k: sum(s[k] for s in stage_in.values()) for k in ("chars4", "wordpiece", "out", "calls")}
    print("-" * len(head))
    print(f"{'total':<32}{total['calls']:>6}{sum(e['requests'] for e in est.values()):>6}"
          f"{total['chars4']:>13,}{total['wordpiece']:>14,}{total['out']:>14,}\n")

    per = PAPER_TABLE_3["messages"]
    print(f"Per message of conversation, beside the paper's Table 3: "
          f"{total['calls'] / n_messages:.2f} calls (paper {PAPER_TABLE_3['calls'] / per:.2f}, "
          f"{total['calls'] / n_messages / (PAPER_TABLE_3['calls'] / per):.2f}x), "
          f"{total['chars4'] / n_messages:,.0f} input tokens "
          f"(paper {PAPER_TABLE_3['input tokens'] / per:,.0f}, "
          f"{total['chars4'] / n_messages / (PAPER_TABLE_3['input tokens'] / per):.2f}x)")
    # what drives the consolidation calls: how many insights the responder distils
    insights, asked = insights
    calls = sum(usage.get(p, {}).get("calls", 0) for p in ("consolidate", "consolidate_episode"))
    print(f"Insights distilled: {insights} ({insights / n_messages:.2f} a message), "
          f"{asked} of them consolidated by a model ({asked / max(1, insights):.0%}) in "
          f"{calls} calls\n")
    print("Share of input tokens by stage, beside the paper's Table 9 (all construction tokens):")
    head2 = f"{'stage':<13}{'calls':>7}{'in ~chars/4':>13}{'in wordpiece':>14}{'in+out':>9}{'paper':>8}"
    print(head2)
    print("-" * len(head2))
    for stage, paper in PAPER_TABLE_9.items():
        s = stage_in.get(stage, defaultdict(int))
        both = s["chars4"] + s["out"]
        print(f"{stage:<13}{s['calls']:>7}{pct(s['chars4'], total['chars4']):>13}"
              f"{pct(s['wordpiece'], total['wordpiece']):>14}"
              f"{pct(both, total['chars4'] + total['out']):>9}{paper:>7}%")
    print()
    report_steps(per_step(usage, est, n_messages))
    print("Output tokens are the test responder's, not a model's: only the input columns "
          "reflect real prompt sizes.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=LOCOMO)
    ap.add_argument("--conv", default="conv-30")
    ap.add_argument("--embedder", choices=["minilm", "hash"], default="minilm")
    ap.add_argument("--window", type=int, default=20)
    ap.add_argument("--tau", type=float, default=None,
                    help="τ (default: the embedder's, as the product uses)")
    add_semantic_options(ap)
    ap.add_argument("--variant", choices=["nemori", "nemori-s"], default="nemori")
    ap.add_argument("--group", type=int, default=6, help="messages per episode (default 6)")
    ap.add_argument("--against-always", action="store_true",
                    help="run again with --consolidation always and compare the stored memories")
    args = ap.parse_args()
    if args.tau is None:
        args.tau = default_tau(args.embedder if args.embedder == "minilm" else "hash")
    *figures, kept = measure(args)
    report(*figures, args)
    if args.against_always:
        compare(kept, measure(argparse.Namespace(**{**vars(args), "consolidation": "always"}))[-1])


if __name__ == "__main__":
    main()
