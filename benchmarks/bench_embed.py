"""MiniLM load time and throughput on short sentences.

    python benchmarks/bench_embed.py [--n 1000] [--batch-size 64] [--threads N] [--repeat 3]

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
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    t0 = time.perf_counter()
    from nemori_ui.core.embed.minilm import MiniLMEmbedder
    t1 = time.perf_counter()
    emb = MiniLMEmbedder(batch_size=args.batch_size, threads=args.threads)
    t2 = time.perf_counter()
    texts = sentences(args.n)

    rates = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        vecs = emb.embed(texts)
        rates.append(len(texts) / (time.perf_counter() - start))
    assert vecs.shape == (args.n, emb.dim)

    print(f"cpus={os.cpu_count()} threads={args.threads or os.cpu_count()} "
          f"batch_size={args.batch_size} sentences={args.n}")
    print(f"import (onnxruntime, tokenizers): {t1 - t0:.3f} s")
    print(f"load (tokenizer + ONNX session):  {t2 - t1:.3f} s")
    print(f"throughput first call:            {rates[0]:.0f} sentences/s")
    print(f"{f'throughput best of {args.repeat}:':<34}{max(rates):.0f} sentences/s")


if __name__ == "__main__":
    main()
