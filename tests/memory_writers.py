"""Several writers on one run, as agents sharing a memory are: threads of one process on one
`Memory`, and processes each with its own. Used by the tests (small) and by
`benchmarks/bench_api.py` (the sizes of the issue).

Run as a script, it is one writing process: `python -m tests.memory_writers HOME RUN PREFIX N`
adds N messages one at a time, and prints one JSON line of what it saw.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import traceback
from datetime import datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# a few lines on each of several subjects, so that the offline engine cuts episodes of a
# usual size (a run of one repeated sentence would be one endless episode)
TOPICS = [
    ["I started the new job at the bakery, the early shift begins at {n} am.",
     "The head baker showed me how to fold croissant dough {n} times.",
     "My feet hurt after standing for {n} hours at the ovens."],
    ["We cycled {n} km along the coast road on Saturday.",
     "The bike's back tyre went flat after {n} km, near the lighthouse.",
     "Next month we want to ride to the island, about {n} km away."],
    ["Miso the cat knocked {n} plants off the windowsill.",
     "The vet says Miso should lose {n} hundred grams.",
     "Miso sleeps on the piano for {n} hours every afternoon."],
    ["My piano teacher gave me {n} scales to practise for Friday.",
     "I played the Chopin nocturne {n} times until it sounded right.",
     "The recital is in {n} weeks and I am nervous about it."],
    ["We are moving flat in March, the new one is {n} minutes from the station.",
     "The removal van costs {n} pounds for the whole day.",
     "I packed {n} boxes of books last night."],
    ["The tomatoes in the garden are finally ripe, I picked {n} today.",
     "Slugs ate {n} of the lettuce seedlings again.",
     "I built a raised bed {n} centimetres high for the herbs."],
]


def message(prefix: str, i: int) -> dict:
    """The i-th message of a writer: a distinct text on the subject of its stretch of the
    conversation, a caller's id, and a time (a new session every 40 messages)."""
    topic = TOPICS[(i // 6) % len(TOPICS)]
    when = datetime(2024, 3, 1) + timedelta(days=2 * (i // 40), minutes=2 * (i % 40))
    return {"id": f"{prefix}-{i}", "speaker": prefix,
            "text": f"{topic[i % len(topic)].format(n=i % 97 + 2)} ({prefix}, note {i})",
            "timestamp": when.isoformat()}


def add_many(memory, prefix: str, n: int) -> dict:
    """Add n messages one at a time; what went wrong is counted, never raised."""
    errors, ids = [], []
    for i in range(n):
        try:
            added = memory.add(message(prefix, i))
            ids += added.message_ids
            if added.error:
                errors.append(added.error)
        except Exception:  # noqa: BLE001 - the caller counts them
            errors.append(traceback.format_exc(limit=3))
    return {"prefix": prefix, "ids": ids, "errors": errors}


def threads(memory, count: int, n: int) -> list[dict]:
    out: list[dict] = [None] * count
    workers = [threading.Thread(target=lambda j=j: out.__setitem__(j, add_many(
        memory, f"T{j}", n))) for j in range(count)]
    for t in workers:
        t.start()
    for t in workers:
        t.join()
    return out


def processes(home: Path, run_id: str, count: int, n: int, timeout_s: float = 600) -> list[dict]:
    children = [subprocess.Popen([sys.executable, "-m", "tests.memory_writers", str(home),
                                  run_id, f"P{j}", str(n)], cwd=ROOT, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for j in range(count)]
    out = []
    for child in children:
        stdout, stderr = child.communicate(timeout=timeout_s)
        if child.returncode:
            out.append({"prefix": "?", "ids": [], "errors": [stderr[-2000:]]})
        else:
            out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def check_run(home: Path, run_id: str) -> dict:
    """What the run holds: message count, duplicates, gaps, and how many times each message
    is in a partition group and in an active episode."""
    from nemori_ui.core.store import open_store, records
    store = open_store(home)
    try:
        messages = records.load_messages(store, run_id)
        rows = store.query("SELECT idx FROM messages WHERE run_id = ? ORDER BY idx", (run_id,))
        grouped = [mid for e in records.load_events(store, run_id, "partition")
                   for group in e.payload.groups for mid in group]
        active = [mid for e in records.load_episodes(store, run_id, with_vectors=False)
                  if e.status == "active" for mid in e.message_ids]
    finally:
        store.close()
    texts = [m.text for m in messages]
    ids = [m.id for m in messages]
    return {"messages": len(messages), "duplicate_texts": len(texts) - len(set(texts)),
            "ids_in_order": ids == [f"m{i:04d}" for i in range(1, len(ids) + 1)],
            "idx_in_order": [r[0] for r in rows] == list(range(len(rows))),
            "grouped_once": sorted(grouped) == sorted(ids),
            "in_one_active_episode": sorted(active) == sorted(ids)}


if __name__ == "__main__":
    from nemori_ui import Memory
    home, run_id, prefix, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    with Memory(home=home, run_id=run_id) as memory:
        print(json.dumps(add_many(memory, prefix, n)))
