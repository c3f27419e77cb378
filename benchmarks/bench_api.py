"""The Python API as an agent uses it: messages added one at a time, a search now and then,
and several writers on one run (offline engine, w = 20).

    python benchmarks/bench_api.py [--messages 10000] [--threads 2x500] [--processes 4x250]
                                   [--parts foreground,background,sharing]

Prints, for `--messages` added one at a time to one `Memory`:
- the latency of an add that closes no window (p50, p95), and the p50 of all adds over the
  first and the last 1,000 (their ratio says whether adds slow down as the memory grows);
- the same run again with `background=True`: how long a window-closing add blocks;
- search latency (p50, p95) over the full memory, query embedding included, and the CPU
  time of a search;
then, for threads on one `Memory` and processes each opening the run: messages stored,
errors seen by callers, duplicates, and whether every message is in exactly one episode.
The messages are `tests.memory_writers.message`: short lines on six subjects, a new session
every 40 messages.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from nemori_ui import Memory  # noqa: E402
from tests.memory_writers import check_run, message, processes, threads  # noqa: E402

W = 20
QUERIES = ["When does the bakery shift start?", "How far did we cycle?", "What did the vet say "
           "about Miso?", "When is the piano recital?", "How much is the removal van?",
           "What ate the lettuce?", "Where is the new flat?", "What scales to practise?"]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def fill(n: int, *, background: bool) -> tuple[dict, Memory]:
    memory = Memory(home=tempfile.mkdtemp(prefix="bench-api-"), window=W,
                    background=background)
    closing, other, every = [], [], []
    for i in range(n):
        started = time.perf_counter()
        memory.add(message("U", i))
        ms = (time.perf_counter() - started) * 1000
        every.append(ms)
        (closing if (i + 1) % W == 0 else other).append(ms)
    return {"other": other, "closing": closing, "every": every}, memory


def searches(memory: Memory, count: int = 200) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of each search (CPU of every thread of the process: on a
    busy machine it says what a search costs when the wall time says how long it waited)."""
    times, cpu = [], []
    for i in range(count):
        started, used = time.perf_counter(), time.process_time()
        memory.search(f"{QUERIES[i % len(QUERIES)]} ({i})")
        times.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - used) * 1000)
    return times, cpu


def sharers(label: str, run: callable, expected: int) -> None:
    started = time.perf_counter()
    seen, home, run_id = run()
    errors = sum(len(s["errors"]) for s in seen)
    ids = [i for s in seen for i in s["ids"]]
    report = check_run(home, run_id)
    print(f"{label}: {report['messages']} stored of {expected} added in "
          f"{time.perf_counter() - started:.0f} s; {errors} errors reached callers; "
          f"{len(ids) - len(set(ids))} ids given twice; {report['duplicate_texts']} duplicates; "
          f"ids and positions in order: {report['ids_in_order'] and report['idx_in_order']}; "
          f"every message in one partition group: {report['grouped_once']}, in one active "
          f"episode: {report['in_one_active_episode']}")


def with_threads(count: int, n: int):
    home = Path(tempfile.mkdtemp(prefix="bench-api-threads-"))
    with Memory(home=home, window=W) as memory:
        seen = threads(memory, count, n)
        memory.flush()
        return seen, home, memory.run_id


def with_processes(count: int, n: int):
    home = Path(tempfile.mkdtemp(prefix="bench-api-procs-"))
    with Memory(home=home, window=W) as memory:
        run_id = memory.run_id
    seen = processes(home, run_id, count, n, timeout_s=3600)
    with Memory(home=home, run_id=run_id) as memory:
        memory.flush()
    return seen, home, run_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--threads", default="2x500")
    parser.add_argument("--processes", default="4x250")
    parser.add_argument("--parts", default="foreground,background,sharing",
                        help="which measurements to make (comma-separated)")
    args = parser.parse_args()
    parts = set(args.parts.split(","))
    n, block = args.messages, min(1000, args.messages // 2)

    if "foreground" in parts:
        foreground(n, block)
    if "background" in parts:
        background(n)
    if "sharing" in parts:
        sharing(args.threads, args.processes)


def foreground(n: int, block: int) -> None:
    started = time.perf_counter()
    fg, memory = fill(n, background=False)
    took = time.perf_counter() - started
    print(f"{n} messages one at a time, w={W}, offline engine, foreground: {took:.0f} s")
    print(f"  add closing no window: p50 {statistics.median(fg['other']):.1f} ms, "
          f"p95 {pct(fg['other'], 0.95):.1f} ms")
    first, last = statistics.median(fg["every"][:block]), statistics.median(fg["every"][-block:])
    print(f"  every add, p50 of the first {block}: {first:.1f} ms, of the last {block}: "
          f"{last:.1f} ms (ratio {last / first:.2f}); non-closing only: "
          f"{statistics.median(fg['other'][:block]):.1f} / "
          f"{statistics.median(fg['other'][-block:]):.1f} ms")
    print(f"  window-closing add (processes the window): p50 "
          f"{statistics.median(fg['closing']):.0f} ms, p95 {pct(fg['closing'], 0.95):.0f} ms")
    found, cpu = searches(memory)
    print(f"  search over {n} messages ({len(memory.get_all(kind='episode'))} episodes, "
          f"{len(memory.get_all(kind='semantic'))} memories): p50 "
          f"{statistics.median(found):.1f} ms, p95 {pct(found, 0.95):.1f} ms; CPU p50 "
          f"{statistics.median(cpu):.1f} ms, p95 {pct(cpu, 0.95):.1f} ms")
    memory.close()


def background(n: int) -> None:
    started = time.perf_counter()
    bg, memory = fill(n, background=True)
    added = time.perf_counter() - started
    memory.wait()
    print(f"same, background=True: adds took {added:.0f} s, processing caught up "
          f"{time.perf_counter() - started - added:.0f} s later")
    print(f"  window-closing add: p50 {statistics.median(bg['closing']):.1f} ms, "
          f"p95 {pct(bg['closing'], 0.95):.1f} ms, max {max(bg['closing']):.1f} ms; other "
          f"adds p95 {pct(bg['other'], 0.95):.1f} ms")
    memory.close()


def sharing(threads_arg: str, processes_arg: str) -> None:
    t_count, t_n = (int(x) for x in threads_arg.split("x"))
    sharers(f"{t_count} threads x {t_n} adds on one Memory",
            lambda: with_threads(t_count, t_n), t_count * t_n)
    p_count, p_n = (int(x) for x in processes_arg.split("x"))
    sharers(f"{p_count} processes x {p_n} adds on one run",
            lambda: with_processes(p_count, p_n), p_count * p_n)


if __name__ == "__main__":
    main()
