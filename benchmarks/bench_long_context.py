"""A measured long-context run: LongMemEval_S-sized instances built from the LoCoMo dev
sessions, evaluated offline one after another and fanned out over Ray workers.

    python benchmarks/bench_long_context.py [--instances 8] [--workers 2] [--tokens 115000]
                                            [--sessions 50] [--skip-fanout]

An instance is a LongMemEval-shaped conversation (user / assistant turns in dated sessions)
of about `--tokens` tokens in about `--sessions` sessions: the dev sessions of conv-26 and
conv-30, the first speaker as the user and the other as the assistant, taken in order and
again (a year later each pass) until the instance is long enough, three dev sessions to one
built session. Each instance carries one question whose evidence is in its first session.
Every message of instance i ends with " (i)", so no two instances share a text and no
embedding is reused from another instance: each costs what a conversation of its own would.

Printed: the tokens and messages of an instance; the first instance alone (wall time, peak
resident memory of the process); then all instances one after another and fanned out over
`--workers` on a local Ray (each in a fresh home, Ray's start included), and the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from nemori_ui.core.clients import RunEnvironment  # noqa: E402
from nemori_ui.core.config import PipelineConfig  # noqa: E402
from nemori_ui.core.eval.harness import EvalOptions, evaluate  # noqa: E402
from nemori_ui.core.retrieval import count_tokens  # noqa: E402
from nemori_ui.core.scale import executor_for  # noqa: E402
from nemori_ui.core.store import open_store  # noqa: E402
from nemori_ui.core.transcripts import load_transcript  # noqa: E402

LOCOMO = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
DEV_PER_SESSION = 3


def dev_sessions() -> list[list[tuple[datetime, str, str]]]:
    """Every dev session as (time, role, text) turns, conv-26's then conv-30's."""
    out = []
    for conv in load_transcript(LOCOMO).conversations:
        speakers = list(dict.fromkeys(m.speaker for m in conv.messages))
        by_session: dict[int, list] = {}
        for m in conv.messages:
            role = "user" if m.speaker == speakers[0] else "assistant"
            by_session.setdefault(m.session, []).append((m.timestamp, role, m.text))
        out.extend(by_session[s] for s in sorted(by_session))
    return out


def instance(i: int, sessions: list, tokens: int) -> dict:
    """One LongMemEval-shaped item of at least `tokens` tokens."""
    built, dates, total, n = [], [], 0, 0
    while total < tokens:
        group = [sessions[(n + k) % len(sessions)] for k in range(DEV_PER_SESSION)]
        shift = timedelta(days=365 * (n // len(sessions)))
        turns = [{"role": role, "content": f"{text} ({i})"} for s in group for _, role, text in s]
        start = (group[0][0][0] or datetime(2023, 1, 1)) + shift
        built.append(turns)
        dates.append(start.strftime("%Y/%m/%d (%a) %H:%M"))
        total += sum(count_tokens(t["content"]) for t in turns)
        n += DEV_PER_SESSION
    first = built[0][0]["content"].removesuffix(f" ({i})")
    return {"question_id": f"long-{i}", "question_type": "single-session-user",
            "question": f"What did the user say first? ({i})", "answer": first,
            "question_date": dates[-1], "haystack_session_ids": [f"s{i}-{k}" for k in
                                                                range(len(built))],
            "haystack_dates": dates, "haystack_sessions": built,
            "answer_session_ids": [f"s{i}-0"]}


def evaluate_all(path: Path, workers: int) -> float:
    home = tempfile.mkdtemp(prefix=f"nemori-bench-long-{workers}-")
    started = time.perf_counter()
    evaluate(open_store(home), load_transcript(path), PipelineConfig(),
             EvalOptions(benchmark="longmemeval", variant="nemori"), source=str(path),
             env=RunEnvironment(executor=executor_for(workers)))
    return time.perf_counter() - started


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--instances", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--tokens", type=int, default=115_000)
    ap.add_argument("--skip-fanout", action="store_true", help="the first instance alone")
    args = ap.parse_args()
    sessions = dev_sessions()
    items = [instance(i, sessions, args.tokens) for i in range(args.instances)]
    folder = Path(tempfile.mkdtemp(prefix="nemori-bench-long-data-"))
    one, every = folder / "one.json", folder / "all.json"
    one.write_text(json.dumps(items[:1]))
    every.write_text(json.dumps(items))
    turns = sum(len(s) for s in items[0]["haystack_sessions"])
    print(f"an instance: {len(items[0]['haystack_sessions'])} sessions, {turns:,} messages, "
          f"~{sum(count_tokens(t['content']) for s in items[0]['haystack_sessions'] for t in s):,}"
          f" tokens; {load()}")
    alone = evaluate_all(one, 1)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"one instance offline: {alone:.1f} s ({turns / alone * 60:,.0f} messages a minute), "
          f"peak resident memory {peak:,.0f} MB; {load()}")
    if args.skip_fanout:
        return
    sequential = evaluate_all(every, 1)
    print(f"{args.instances} instances one after another: {sequential:.1f} s; {load()}")
    fanned = evaluate_all(every, args.workers)
    print(f"{args.instances} instances over {args.workers} workers (Ray's start included): "
          f"{fanned:.1f} s, {fanned / sequential:.2f}x the sequential time; {load()}")


if __name__ == "__main__":
    main()
