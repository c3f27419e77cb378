"""The home's embedding cache, read by the tasks through a Ray actor beside the driver.

A sequential evaluation embeds a conversation's messages once and every later variant reads
them from the home's cache; a task starts with an empty store of its own. So tasks ask the
actor, which runs on the driver's node and reads the home's database read-only, for the
vectors they do not have. Which texts a task embeds is only known as it runs, so this is a
lookup, not a shipment. The driver still writes alone: the actor never writes.
"""

from __future__ import annotations

import sqlite3

import numpy as np


class HomeVectors:
    """The actor's body: vectors by (namespace, key) from the home's database, read-only."""

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


def start_home_vectors(ray, db_path: str):
    """The actor on this (the driver's) node; None when the driver is not on a node of the
    cluster (a Ray Client connection), where tasks then embed what they need themselves."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy
    try:
        node = ray.get_runtime_context().get_node_id()
        actor = ray.remote(num_cpus=0)(HomeVectors).options(
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
