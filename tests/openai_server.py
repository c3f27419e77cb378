"""A real local HTTP server speaking the OpenAI API, scripted per test.

Tests drive the real `openai` SDK against it, so retries, timeouts, dropped connections and
error mapping are exercised over real sockets rather than by patching SDK internals.

    def test_x(openai_server):
        openai_server.responder = lambda req: {"answer": "42"}   # str | dict | ServerReply
        openai_server.fault("429", "timeout")                     # consumed before the responder
        client = openai.OpenAI(api_key="k", base_url=openai_server.url, max_retries=0)

    openai_server.fault_rate(0.2, ["429", "drop"], seed=7)   # then faults at a rate
    openai_server.delay, openai_server.token_delay = 0.1, 0.002  # a model's latency
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import random
import socket
import struct
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Literal, Sequence

import pytest

FaultKind = Literal["429", "500", "timeout", "invalid_json", "schema_violation", "empty_choices", "drop"]
Endpoint = Literal["chat", "embeddings"]


@dataclass
class ServerReply:
    """Full control over one answer; a responder may also return plain text or a dict."""
    content: str | None = None
    status: int = 200
    body: dict | None = None               # replaces the whole JSON body (errors, odd shapes)
    headers: dict[str, str] = field(default_factory=dict)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    include_usage: bool = True
    finish_reason: str = "stop"
    raw: str | None = None                 # sent as it is (an HTML page, say), not as JSON
    content_type: str = "text/html"


@dataclass
class Fault:
    kind: FaultKind
    retry_after: float | None = 0.0        # 429: Retry-After header value, None for no header
    sleep: float | None = None             # timeout: how long to stall (default server.timeout_sleep)
    content: str | None = None             # invalid_json / schema_violation: the content sent


@dataclass
class RecordedRequest:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    at: float
    fault: FaultKind | None = None         # the fault this request met, if any

    @property
    def response_format(self) -> dict | None:
        return self.body.get("response_format")

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", [])


def fake_embedding(text: str, dim: int = 1536) -> list[float]:
    """Deterministic pseudo-random unit vector seeded by the text."""
    rng = random.Random(hashlib.sha256(text.encode("utf-8")).digest())
    vec = [rng.gauss(0.0, 1.0) for _ in range(dim)]
    norm = math.sqrt(sum(v * v for v in vec)) or 1.0
    return [v / norm for v in vec]


def _estimate(text: str) -> int:
    return max(1, len(text) // 4)


class OpenAIServer:
    def __init__(self, *, embedding_dim: int = 1536, timeout_sleep: float = 1.0,
                 api_key: str | None = None, port: int = 0):
        self.embedding_dim = embedding_dim
        self.timeout_sleep = timeout_sleep
        self.port = port                       # 0: any free port
        self.api_key = api_key                 # when set, other keys get an OpenAI-style 401
        # when set, the exact Authorization header required (a proxy's "Basic ..."); others
        # get a 401 that quotes the credentials they sent, as a careless server does
        self.authorization: str | None = None
        self.answered = 0                      # chat completions whose reply was written out
        self.delay = 0.0                       # stall before every answer (concurrency tests)
        self.token_delay = 0.0                 # and per completion token of a chat reply
        self.responder: Callable[[dict], str | dict | ServerReply] | None = None
        self.embedder: Callable[[str], list[float]] | None = None
        self.errors: list[str] = []            # exceptions raised by a responder
        self.models: list[str] | None = None   # listed at GET /v1/models; None: 404
        self.in_flight = 0
        self.max_in_flight = 0
        self._faults: dict[str, deque[Fault]] = {"chat": deque(), "embeddings": deque()}
        self._rates: dict[str, tuple[float, tuple[FaultKind, ...], int]] = {}
        self._sent: Counter[str] = Counter()   # how often each request body came in
        self._requests: list[RecordedRequest] = []
        self._lock = threading.Lock()
        self._ids = 0
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting -------------------------------------------------------------------------

    def fault(self, *faults: FaultKind | Fault, endpoint: Endpoint = "chat") -> OpenAIServer:
        with self._lock:
            for f in faults:
                self._faults[endpoint].append(f if isinstance(f, Fault) else Fault(f))
        return self

    def fault_rate(self, rate: float, kinds: Sequence[FaultKind], *, seed: int = 0,
                   endpoint: Endpoint = "chat") -> OpenAIServer:
        """Meet each later request (scripted faults first) with one of `kinds` at `rate`.

        The draw depends only on the seed, the body and how often that body came before: the
        same faults whatever order concurrent requests arrive in, and a retry draws afresh.
        """
        with self._lock:
            self._rates[endpoint] = (rate, tuple(kinds), seed)
        return self

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def injected(self) -> Counter[str]:
        """Faults served so far, scripted or drawn, by kind."""
        return Counter(r.fault for r in self.requests if r.fault)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    @property
    def embedding_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/embeddings")]

    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> OpenAIServer:
        handler = type("Handler", (_Handler,), {"owner": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", self.port), handler)
        self._httpd.daemon_threads = True   # a stalled "timeout" answer must not block stop()
        # A short poll interval keeps stop() (and so each test's teardown) fast.
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,),
                                        name="openai-test-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> OpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- answering (called from handler threads) -------------------------------------------

    def _record(self, path: str, headers: dict[str, str], body: dict) -> RecordedRequest:
        with self._lock:
            self._requests.append(RecordedRequest(path, headers, body, time.monotonic()))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self._ids += 1
            return self._requests[-1]

    def _done(self) -> None:
        with self._lock:
            self.in_flight -= 1

    def _next_fault(self, endpoint: str, body: dict | None = None) -> Fault | None:
        with self._lock:
            fault = self._faults[endpoint].popleft() if self._faults[endpoint] else None
            if fault is None and endpoint in self._rates:
                rate, kinds, seed = self._rates[endpoint]
                digest = hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
                self._sent[digest] += 1
                rng = random.Random(f"{seed}:{digest}:{self._sent[digest]}")
                if rng.random() < rate:
                    fault = Fault(rng.choice(kinds))
            return fault

    def _chat(self, body: dict) -> ServerReply:
        if self.responder is None:
            return ServerReply(content="{}")
        reply = self.responder(body)
        if isinstance(reply, ServerReply):
            return reply
        if isinstance(reply, (dict, list)):
            return ServerReply(content=json.dumps(reply))
        return ServerReply(content=str(reply))

    def _chat_body(self, req: dict, reply: ServerReply) -> dict:
        content = reply.content or ""
        prompt = sum(len(str(m.get("content") or "")) for m in req.get("messages", []))
        body: dict[str, Any] = {
            "id": f"chatcmpl-{self._ids:06d}", "object": "chat.completion",
            "created": int(time.time()), "model": req.get("model", "test-model"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                         "finish_reason": reply.finish_reason}],
        }
        if reply.include_usage:
            pt = reply.prompt_tokens if reply.prompt_tokens is not None else max(1, prompt // 4)
            ct = reply.completion_tokens if reply.completion_tokens is not None else _estimate(content)
            body["usage"] = {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
        return body

    def _embeddings_body(self, req: dict) -> dict:
        inputs = req.get("input", [])
        if isinstance(inputs, str) or (inputs and isinstance(inputs[0], int)):
            inputs = [inputs]
        dim = int(req.get("dimensions") or self.embedding_dim)
        data, tokens = [], 0
        for i, item in enumerate(inputs):
            text = item if isinstance(item, str) else " ".join(map(str, item))
            vec = self.embedder(text) if self.embedder else fake_embedding(text, dim)
            tokens += _estimate(text)
            if req.get("encoding_format") == "base64":
                emb: Any = base64.b64encode(struct.pack(f"<{len(vec)}f", *vec)).decode("ascii")
            else:
                emb = vec
            data.append({"object": "embedding", "index": i, "embedding": emb})
        return {"object": "list", "data": data, "model": req.get("model", "test-embedding"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


def _error(message: str, type_: str, code: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


class _Handler(BaseHTTPRequestHandler):
    owner: OpenAIServer
    protocol_version = "HTTP/1.1"   # keep-alive, like the real API
    disable_nagle_algorithm = True  # headers and body go out in two writes: avoid 40 ms stalls

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        pass

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        models = self.owner.models
        if self.path.rstrip("/").endswith("/models") and models is not None:
            return self._send(200, {"object": "list", "data": [
                {"id": m, "object": "model", "created": 0, "owned_by": "test"} for m in models]})
        return self._send(404, _error(f"unknown path {self.path}", "invalid_request_error"))

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        owner = self.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        endpoint = "embeddings" if self.path.rstrip("/").endswith("/embeddings") else "chat"
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.recorded = owner._record(self.path, headers, body)
        try:
            self._answer(owner, endpoint, body)
        except (BrokenPipeError, ConnectionResetError):
            pass   # the client gave up (timeout test): nobody is listening any more
        finally:
            owner._done()

    def _answer(self, owner: OpenAIServer, endpoint: str, body: dict) -> None:
        if not (self.path.rstrip("/").endswith("/chat/completions") or endpoint == "embeddings"):
            return self._send(404, _error(f"unknown path {self.path}", "invalid_request_error"))
        wanted = owner.authorization or (None if owner.api_key is None else f"Bearer {owner.api_key}")
        if wanted is not None and self.headers.get("Authorization") != wanted:
            # A careless server echoing the credentials it was sent, whatever their scheme:
            # the client must still never record them.
            sent = (self.headers.get("Authorization") or "").split(" ", 1)[-1]
            return self._send(401, _error(f"Incorrect API key provided: {sent}.",
                                          "invalid_request_error", "invalid_api_key"))
        if owner.delay:
            time.sleep(owner.delay)
        fault = owner._next_fault(endpoint, body)
        if fault is not None:
            self.recorded.fault = fault.kind
            if fault.kind == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
                return None
            if fault.kind == "429":
                headers = {} if fault.retry_after is None else {"Retry-After": f"{fault.retry_after:g}"}
                return self._send(429, _error("Rate limit reached for requests", "requests",
                                              "rate_limit_exceeded"), headers)
            if fault.kind == "500":
                return self._send(500, _error("The server had an error while processing your request.",
                                              "server_error"))
            if fault.kind == "timeout":
                time.sleep(fault.sleep if fault.sleep is not None else owner.timeout_sleep)
        if endpoint == "embeddings":
            return self._send(200, owner._embeddings_body(body))
        if fault is not None and fault.kind == "empty_choices":
            reply_body = owner._chat_body(body, ServerReply(content=""))
            reply_body["choices"] = []
            return self._send(200, reply_body)
        if fault is not None and fault.kind == "invalid_json":
            reply = ServerReply(content=fault.content or "Sure! Here is the answer: {not valid json")
        elif fault is not None and fault.kind == "schema_violation":
            reply = ServerReply(content=fault.content or '{"unexpected": "not the requested schema"}')
        else:
            try:
                reply = owner._chat(body)
            except Exception as exc:  # noqa: BLE001 - surface test bugs without a retry storm
                owner.errors.append(f"{type(exc).__name__}: {exc}")
                return self._send(400, _error(f"responder raised {exc!r}", "test_error"))
        if reply.raw is not None:
            data = reply.raw.encode("utf-8")
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return None
        if reply.body is not None or reply.status != 200:
            return self._send(reply.status, reply.body or {}, reply.headers)
        answer = owner._chat_body(body, reply)
        if owner.token_delay:
            # a model writes its reply token by token: the longer the reply, the longer the wait
            time.sleep(owner.token_delay * _estimate(reply.content or ""))
        self._send(200, answer, reply.headers)
        with owner._lock:
            owner.answered += 1
        return None

    def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", f"req_{id(payload):x}")
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


@pytest.fixture
def openai_server():
    """A started `OpenAIServer` on 127.0.0.1 and a free port; stopped after the test."""
    server = OpenAIServer().start()
    try:
        yield server
    finally:
        server.stop()
