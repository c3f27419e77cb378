"""The persistent caches behind the LLM gateway and the embedders, shared by every run."""

from __future__ import annotations

import json

import numpy as np

from .db import Store, now_iso


class SqliteResponseCache:
    """LLM replies by request key: a re-run with the same inputs makes no call."""

    def __init__(self, store: Store):
        self.store = store

    def get(self, key: str) -> dict | None:
        rows = self.store.query("SELECT entry FROM llm_cache WHERE key = ?", (key,))
        return json.loads(rows[0]["entry"]) if rows else None

    def put(self, key: str, entry: dict) -> None:
        with self.store.tx() as conn:
            conn.execute("INSERT OR REPLACE INTO llm_cache VALUES (?, ?, ?)",
                         (key, json.dumps(entry), now_iso()))


class SqliteVectorCache:
    """Embeddings by (embedder, text hash): no text is embedded twice."""

    def __init__(self, store: Store):
        self.store = store

    def get_many(self, namespace: str, keys: list[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):  # SQLite caps bound parameters per statement
            chunk = keys[start:start + 500]
            marks = ",".join("?" * len(chunk))
            rows = self.store.query(
                f"SELECT key, vector FROM vector_cache WHERE namespace = ? AND key IN ({marks})",
                (namespace, *chunk))
            for row in rows:
                found[row["key"]] = np.frombuffer(row["vector"], dtype=np.float32)
        return found

    def put_many(self, namespace: str, items: dict[str, np.ndarray]) -> None:
        if not items:
            return
        with self.store.tx() as conn:
            conn.executemany(
                "INSERT OR REPLACE INTO vector_cache VALUES (?, ?, ?)",
                [(namespace, key, np.asarray(vec, dtype=np.float32).tobytes())
                 for key, vec in items.items()])
