"""MiniLM load time and throughput on short sentences.

    python benchmarks/bench_embed.py [--n 1000] [--batch-size 16] [--threads N] [--repeat 3]
                                     [--messages ../shared/data/locomo/locomo-dev.json]
                                     [--fixed-batches]

With --messages, a transcript's messages are embedded in calls of 20, as a run's windows are
(their lengths vary, unlike the generated sentences'), and the time per message is printed.

Targets on a 2-core machine: load < 1 s, >= 300 sentences/s.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a source checkout

SUBJECTS = ["Caroline", "Melanie", "My sister", "The team", "Our neighbour", "Jon", "Gina"]
VERBS = ["visited", "talked about", "painted", "booked", "cancelled", "recommended", "moved to"]
OBJECTS = ["the museum", "a pottery class", "the new job", "Paris in May", "the support group",
           "a camping trip", "her adoption plans", "the dance studio", "a sunset by the lake"]
TAILS = ["yesterday.", "last week.", "on Friday.", "with the kids.", "after work.", "again."]


def sentences(n: int, seed: int = 0) -> list[str]:
    # Distinct short chat-like sentences (8-12 tokens), like transcript messages.
    rng = random.Random(seed)
    return [f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} "
            f"{rng.choice(TAILS)} ({i})" for i in range(n)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--batch-size", type=int, default=None, help="default: the product's")
    ap.add_argument("--messages", default=None, help="a transcript whose messages to embed")
    ap.add_argument("--fixed-batches", action="store_true",
                    help="batches of --batch-size whatever their padding (the earlier way)")
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    t0 = time.perf_counter()
    from nemori_ui.core.embed import minilm
    from nemori_ui.core.embed.minilm import MiniLMEmbedder
    t1 = time.perf_counter()
    if args.fixed_batches:
        minilm.batches = lambda lengths, order, most: (order[i:i + most]
                                                       for i in range(0, len(order), most))
    emb = MiniLMEmbedder(threads=args.threads,
                         **({"batch_size": args.batch_size} if args.batch_size else {}))
    t2 = time.perf_counter()
    if args.messages:
        window_calls(emb, args.messages, args.n, args.repeat)
        return
    texts = sentences(args.n)

    rates = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        vecs = emb.embed(texts)
        rates.append(len(texts) / (time.perf_counter() - start))
    assert vecs.shape == (args.n, emb.dim)

    print(f"cpus={os.cpu_count()} threads={args.threads or os.cpu_count()} "
          f"batch_size={emb.batch_size} sentences={args.n}")
    print(f"import (onnxruntime, tokenizers): {t1 - t0:.3f} s")
    print(f"load (tokenizer + ONNX session):  {t2 - t1:.3f} s")
    print(f"throughput first call:            {rates[0]:.0f} sentences/s")
    print(f"{f'throughput best of {args.repeat}:':<34}{max(rates):.0f} sentences/s")


def window_calls(emb, path: str, n: int, repeat: int) -> None:
    from nemori_ui.core.transcripts import load_transcript
    texts = [m.text for c in load_transcript(path).conversations for m in c.messages][:n]
    calls = [texts[i:i + 20] for i in range(0, len(texts), 20)]
    emb.embed(texts[:8])
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for call in calls:
            emb.embed(call)
        best = min(best, time.perf_counter() - start)
    print(f"threads={emb_threads(emb)} batch_size={emb.batch_size}: {len(texts)} messages of "
          f"{path} in calls of 20, best of {repeat}: {best / len(texts) * 1000:.2f} ms a message")


def emb_threads(emb) -> int:
    return emb._session.get_session_options().intra_op_num_threads


if __name__ == "__main__":
    main()
