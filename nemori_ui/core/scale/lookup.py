"""The home's embedding and reply caches, read by the tasks through a Ray actor beside the
driver.

A sequential evaluation embeds a conversation's messages once and every later variant reads
them from the home's cache; the points of a sequential sweep reuse each other's vectors and
replies the same way. A task starts with an empty store of its own, so it asks the actor,
which runs on the driver's node and reads the home's database read-only, for the vectors and
replies it does not have. The driver lands each finished task's rows in the home, so a task
started later finds what the earlier ones made. Which texts a task embeds and which prompts it
sends is only known as it runs, so this is a lookup, not a shipment. The driver still writes
alone: the actor never writes.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np


class HomeCaches:
    """The actor's body: vectors by (namespace, key) and replies by key from the home's
    database, read-only."""

    def __init__(self, db_path: str):
        self.conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, check_same_thread=False)

    def get_many(self, namespace: str, keys: list[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for start in range(0, len(keys), 500):    # SQLite caps the parameters of a statement
            chunk = keys[start:start + 500]
            rows = self.conn.execute(
                f"SELECT key, vector FROM vector_cache WHERE namespace = ? AND key IN "
                f"({','.join('?' * len(chunk))})", (namespace, *chunk)).fetchall()
            found.update({k: v for k, v in rows})
        return found

    def get_reply(self, key: str) -> str | None:
        row = self.conn.execute("SELECT entry FROM llm_cache WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None


def start_home_caches(ray, db_path: str):
    """The actor on this (the driver's) node; None when the driver is not on a node of the
    cluster (a Ray Client connection), where tasks then embed what they need themselves."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    try:
        node = ray.get_runtime_context().get_node_id()
        actor = ray.remote(num_cpus=0)(HomeCaches).options(
            scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote(db_path)
        ray.get(actor.get_many.remote("", []), timeout=60)
        return actor
    except (ray.exceptions.RayError, RuntimeError, ValueError):
        return None


class ReadThroughVectors:
    """A task's vector cache: its own store first, then the home's through the actor. What
    came from the home is remembered, so it is not returned to the driver as new."""

    def __init__(self, local, home=None):
        self.local = local
        self.home = home
        self.borrowed: set[str] = set()

    def get_many(self, namespace: str, keys: list[str]) -> dict[str, np.ndarray]:
        found = self.local.get_many(namespace, keys)
        missing = [k for k in keys if k not in found]
        if missing and self.home is not None:
            import ray
            fetched = {k: np.frombuffer(v, dtype=np.float32)
                       for k, v in ray.get(self.home.get_many.remote(namespace, missing)).items()}
            if fetched:
                self.local.put_many(namespace, fetched)
                self.borrowed.update(fetched)
                found.update(fetched)
        return found

    def put_many(self, namespace: str, items: dict[str, np.ndarray]) -> None:
        self.local.put_many(namespace, items)


class ReadThroughReplies:
    """A task's reply cache: its own store first, then the home's through the actor. A reply
    found in the home answers the call as a cached one, as it would one after another; it is
    kept in the task's store (asked once) and remembered, so it is not returned as new."""

    def __init__(self, local, home=None, borrowed: set[str] | None = None):
        self.local = local
        self.home = home
        self.borrowed = borrowed if borrowed is not None else set()

    def get(self, key: str) -> dict | None:
        found = self.local.get(key)
        if found is None and self.home is not None:
            import ray
            text = ray.get(self.home.get_reply.remote(key))
            if text is not None:
                found = json.loads(text)
                self.local.put(key, found)
                self.borrowed.add(key)
        return found

    def put(self, key: str, entry: dict) -> None:
        self.local.put(key, entry)
