"""Embedders: MiniLM offline (real model, no network), the cache, and OpenAI against a real
local HTTP server."""

from __future__ import annotations

import base64
import hashlib
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Sequence

import numpy as np
import openai
import pytest

from nemori_ui.core.embed import (CachedEmbedder, Embedder, MemoryVectorCache, MiniLMEmbedder,
                                  OpenAIEmbedder, VectorCache, load_minilm, text_key)
from nemori_ui.core.embed.minilm import batches

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


# ---- MiniLM ------------------------------------------------------------------------------
def test_minilm_shape_dtype_and_unit_norms(minilm):
    assert isinstance(minilm, Embedder)
    assert (minilm.name, minilm.dim) == ("minilm-int8", 384)
    v = minilm.embed(["Hello there.", "", "Ünïcödé and emoji 🎉 text", "x"])
    assert v.shape == (4, 384) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    empty = minilm.embed([])
    assert empty.shape == (0, 384) and empty.dtype == np.float32


def test_minilm_same_text_gives_identical_vectors(minilm):
    a = minilm.embed(["Caroline went to the LGBTQ support group on 7 May 2023."])
    b = minilm.embed(["Caroline went to the LGBTQ support group on 7 May 2023."])
    assert np.array_equal(a, b)


def test_minilm_paraphrase_close_unrelated_far(minilm):
    cat, cat2, tax = minilm.embed(["The cat sat on the mat.", "A cat was sitting on the mat.",
                                   "Quarterly tax filings are due at the end of April."])
    assert cos(cat, cat2) > 0.7
    assert cos(cat, tax) < 0.3


def test_minilm_long_input_is_truncated(minilm):
    long = "word " * 5000
    v = minilm.embed([long, "short"])
    assert v.shape == (2, 384) and np.all(np.isfinite(v))
    # Everything past 256 tokens is cut, so a different tail changes nothing.
    w = minilm.embed(["word " * 4000 + "completely different ending about volcanoes"])
    assert np.allclose(v[0], w[0], atol=1e-6)


def test_minilm_batch_equals_single(minilm):
    texts = ["Short.", "A somewhat longer sentence about going hiking in the Alps.",
             "Melanie painted a sunrise over the lake last summer with her kids.", "Ok"]
    batch = minilm.embed(texts)
    single = np.stack([minilm.embed([t])[0] for t in texts])
    assert np.abs(batch - single).max() < 1e-5
    small_batches = MiniLMEmbedder(batch_size=2, threads=1).embed(texts)
    assert np.abs(batch - small_batches).max() < 1e-5


def test_a_batch_closes_before_padding_outgrows_its_tokens():
    lengths = np.array([3, 4, 4, 5, 12, 13, 40, 6, 5])
    order = np.argsort(lengths, kind="stable")
    cut = list(batches(lengths, order, most=3))
    assert sorted(i for b in cut for i in b) == list(range(len(lengths)))
    assert all(len(b) <= 3 for b in cut)
    for b in cut:
        # every batch but a lone text pads at most a fifth beyond the tokens it holds
        held = lengths[b]
        assert len(b) == 1 or held.max() * len(b) <= 1.2 * held.sum()
    # the long text is never padded with short ones, nor they to it
    assert [6] in [list(b) for b in cut]


def test_load_minilm_is_shared_and_resettable():
    a = load_minilm()
    assert load_minilm() is a
    load_minilm.cache_clear()
    assert load_minilm() is not a


NO_NETWORK_CODE = """
import socket
def refuse(*a, **k):
    raise OSError("network disabled by test")
socket.socket.connect = refuse
socket.socket.connect_ex = refuse
socket.create_connection = refuse
socket.getaddrinfo = refuse
try:
    socket.create_connection(("127.0.0.1", 9))
except OSError:
    pass
else:
    raise SystemExit("guard not active")
from nemori_ui.core.embed import MiniLMEmbedder
v = MiniLMEmbedder().embed(["offline works", "still offline"])
print(v.shape, round(float((v[0] * v[0]).sum()), 4))
"""


def _netns_available() -> bool:
    try:
        return subprocess.run(["unshare", "-n", "true"], capture_output=True,
                              timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


@pytest.mark.parametrize("isolation", ["socket-guard", "netns"])
def test_minilm_needs_no_network(isolation):
    # A fresh interpreter in which every Python-level connection raises, installed before any
    # of our imports. Where the kernel allows it, the same also runs in an empty network
    # namespace, which catches native code (onnxruntime, tokenizers) too.
    cmd = [sys.executable, "-c", NO_NETWORK_CODE]
    if isolation == "netns":
        if not _netns_available():
            pytest.skip("unshare -n is not permitted here")
        cmd = ["unshare", "-n", *cmd]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "(2, 384) 1.0"


# ---- cache -------------------------------------------------------------------------------
class CountingEmbedder:
    """A typed fake: deterministic unit vectors, and a record of every batch it saw."""

    name = "counting"
    dim = 4

    def __init__(self) -> None:
        self.batches: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        out = np.array([[len(t) + 1, t.count("a"), 1, 0] for t in texts], dtype=np.float32)
        return out.reshape(-1, 4) / np.linalg.norm(out, axis=1, keepdims=True).reshape(-1, 1)


def test_cached_embedder_embeds_repeats_once():
    inner = CountingEmbedder()
    emb = CachedEmbedder(inner)
    assert isinstance(emb, Embedder) and isinstance(emb.cache, VectorCache)
    first = emb.embed(["banana", "apple", "banana", "cherry"])
    assert inner.batches == [["banana", "apple", "cherry"]]  # one call, deduplicated
    assert np.array_equal(first[0], first[2])
    assert (emb.misses, emb.hits) == (3, 1)
    again = emb.embed(["cherry", "banana", "date"])
    assert inner.batches[1] == ["date"]  # only the new text
    assert np.array_equal(again[0], first[3]) and np.array_equal(again[1], first[0])
    assert (emb.misses, emb.hits) == (4, 3)
    emb.embed(["apple", "cherry"])
    assert len(inner.batches) == 2  # everything cached: no call at all
    assert emb.embed([]).shape == (0, 4)
    assert (emb.name, emb.dim) == ("counting", 4)


def test_cache_is_shared_by_namespace_and_keyed_by_content():
    cache = MemoryVectorCache()
    one, two = CountingEmbedder(), CountingEmbedder()
    CachedEmbedder(one, cache).embed(["same text"])
    CachedEmbedder(two, cache).embed(["same text"])
    assert two.batches == []  # same name: the second embedder reuses the first one's vector
    assert text_key("same text") == hashlib.sha256(b"same text").hexdigest()
    assert set(cache.get_many("counting", [text_key("same text"), "x"])) == {text_key("same text")}
    assert cache.get_many("other", [text_key("same text")]) == {}


# ---- OpenAI against a local server -------------------------------------------------------
def fake_vector(text: str, dim: int) -> list[float]:
    seed = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little")
    return (np.random.default_rng(seed).standard_normal(dim) * 3).astype(np.float32).tolist()


class EmbeddingServer:
    """POST /v1/embeddings on 127.0.0.1, answering with hash-seeded (non-unit) vectors.
    ``fail`` is a queue of (status, body[, headers]) answers to give before succeeding."""

    def __init__(self, dim: int = 1536) -> None:
        self.dim, self.requests, self.fail = dim, [], []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append((self.path, body))
                if self.path != "/v1/embeddings":
                    return self._send(404, {"error": {"message": "not found"}})
                if server.fail:
                    return self._send(*server.fail.pop(0))
                if any(t == "" for t in body["input"]):
                    return self._send(400, {"error": {"message": "empty input"}})
                as_b64 = body.get("encoding_format") == "base64"
                data = []
                for i, text in enumerate(body["input"]):
                    vec = fake_vector(text, server.dim)
                    emb = (base64.b64encode(np.asarray(vec, np.float32).tobytes()).decode()
                           if as_b64 else vec)
                    data.append({"object": "embedding", "index": i, "embedding": emb})
                data.reverse()  # the client must order by "index", not by position
                self._send(200, {"object": "list", "data": data, "model": body["model"],
                                 "usage": {"prompt_tokens": 1, "total_tokens": 1}})

            def _send(self, status, payload, headers=()):
                raw = json.dumps(payload).encode()
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()

    def embedding_requests(self) -> list[list[str]]:
        return [b["input"] for p, b in self.requests if p == "/v1/embeddings"]


@pytest.fixture
def server():
    s = EmbeddingServer()
    yield s
    s.httpd.shutdown()
    s.httpd.server_close()


def make_embedder(server, **kw) -> OpenAIEmbedder:
    client = openai.OpenAI(base_url=server.url, api_key="test", timeout=10)
    return OpenAIEmbedder(client, backoff=0.01, **kw)


def test_openai_embeds_in_batches_with_unit_rows(server):
    emb = make_embedder(server, batch_size=2)
    assert (emb.name, emb.dim) == ("openai:text-embedding-3-small", 1536)
    texts = ["alpha", "beta", "", "gamma", "alpha"]
    v = emb.embed(texts)
    assert v.shape == (5, 1536) and v.dtype == np.float32
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    assert server.embedding_requests() == [["alpha", "beta"], [" ", "gamma"], ["alpha"]]
    expected = np.asarray(fake_vector("gamma", 1536))
    assert np.allclose(v[3], expected / np.linalg.norm(expected), atol=1e-6)
    assert np.array_equal(v[0], v[4])
    assert emb.embed([]).shape == (0, 1536)


def test_openai_retries_rate_limit_then_succeeds(server):
    server.fail = [(429, {"error": {"message": "slow down", "type": "rate_limit"}})]
    emb = make_embedder(server)
    v = emb.embed(["one", "two"])
    assert v.shape == (2, 1536)
    assert emb.calls == 2 and len(server.embedding_requests()) == 2


def test_openai_honours_retry_after(server):
    server.fail = [(429, {"error": {"message": "wait"}}, [("Retry-After", "0.25")])]
    waits = []
    emb = make_embedder(server, sleep=waits.append)
    assert emb.embed(["x"]).shape == (1, 1536)
    assert waits == [0.25]


def test_openai_retries_server_error_but_not_bad_request(server):
    server.fail = [(503, {"error": {"message": "overloaded"}})]
    assert make_embedder(server).embed(["x"]).shape == (1, 1536)
    server.requests.clear()
    server.fail = [(400, {"error": {"message": "bad input"}})]
    with pytest.raises(openai.BadRequestError):
        make_embedder(server).embed(["x"])
    assert len(server.embedding_requests()) == 1  # a client error is not retried


def test_openai_gives_up_after_retries(server):
    server.fail = [(429, {"error": {"message": "slow down"}})] * 3
    with pytest.raises(openai.RateLimitError):
        make_embedder(server, retries=2).embed(["x"])
    assert len(server.embedding_requests()) == 3


def test_openai_unknown_model_learns_its_dimension(server):
    server.dim = 768
    emb = make_embedder(server, model="nomic-embed-text")
    assert emb.name == "openai:nomic-embed-text"
    assert emb.dim == 768  # one probe request
    assert emb.embed(["a"]).shape == (1, 768)
    cached = CachedEmbedder(emb)
    cached.embed(["a", "a"])
    assert cached.misses == 1
