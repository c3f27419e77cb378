"""No credential reaches disk or a page, even when a server echoes the key back inside its
replies, or when the base URL carries user:password."""

from __future__ import annotations

import json
import subprocess
import sys

from streamlit.testing.v1 import AppTest

from nemori_ui.core.config import PipelineConfig
from nemori_ui.core.llm import LLMGateway, MemoryResponseCache, OpenAIChatBackend
from nemori_ui.core.llm.redact import Redactor, redact_patterns, strip_url_credentials
from nemori_ui.core.store import open_store, runs
from tests.conftest import ROOT
from tests.llm_responder import prompt_of, respond
from tests.test_security import APP, TRANSCRIPT, export_all, leaks, run_in_process, strings

KEY = "sk-proj-EchoedBack-93b1f0c2d7e4a658"


def echoing(body: dict) -> dict:
    """A careless server: the key it was sent comes back inside the model's text."""
    reply = respond(body)
    name = prompt_of(body)
    if name == "narrate":
        reply["narrative"] += f" (request authorised with {KEY})"
    if name == "partition":
        for e in reply["episodes"]:
            e["topic"] += f" Bearer {KEY}"
    if name == "distill":
        for i in reply["insights"]:
            i["text"] += f" key={KEY}"
    return reply


def test_a_key_echoed_in_replies_is_stored_and_shown_nowhere(openai_server, isolated_home,
                                                              tmp_path, monkeypatch):
    openai_server.responder = echoing
    openai_server.api_key = KEY
    config = PipelineConfig(backend="openai", model="test-model", base_url=openai_server.url,
                            window=6)
    said = run_in_process(config, isolated_home, {"api_key": KEY})
    assert said == "", said
    exports = tmp_path / "exports"
    export_all(isolated_home, exports)
    monkeypatch.setenv("NEMORI_HOME", str(isolated_home))
    shown = []
    for page in ("calls", "episodes", "knowledge", "partitions"):
        at = AppTest.from_file(APP, default_timeout=120)
        at.run()
        at.switch_page(f"pages/{page}.py").run()
        assert not at.exception, [e.value for e in at.exception]
        shown.append("\n".join(strings(at._tree)))
    assert not leaks(KEY, [isolated_home, exports], shown)
    # the replies did come back with the key in them, and were kept, masked
    store = open_store(isolated_home)
    [info] = runs.list_runs(store)
    narratives = [r[0] for r in store.query("SELECT narrative FROM episodes")]
    store.close()
    assert info.status == "done" and any("request authorised with ***" in n for n in narratives)


def test_the_response_cache_keeps_no_echoed_key(openai_server):
    openai_server.responder = lambda body: {"answer": f"your key is {KEY}"}
    cache = MemoryResponseCache()
    from pydantic import BaseModel

    class Reply(BaseModel):
        answer: str

    gw = LLMGateway(OpenAIChatBackend("m", api_key=KEY, base_url=openai_server.url), cache)
    result = gw.complete("p", [{"role": "user", "content": "q"}], Reply)
    assert result.value.answer == "your key is ***"
    entry = cache.get(result.record.cache_key)
    assert KEY[-12:] not in json.dumps(entry) and KEY[-12:] not in result.record.model_dump_json()


def test_credentials_in_the_base_url_are_used_but_never_stored(openai_server, isolated_home,
                                                               tmp_path):
    secret = "pa55-UrlSecret-4e7a"
    openai_server.responder = respond
    host = openai_server.url.split("://", 1)[1]
    url = f"http://nemori:{secret}@{host}"
    transcript = tmp_path / "chat.txt"
    transcript.write_text(TRANSCRIPT)
    said = []
    for args in (["run", str(transcript), "--backend", "openai", "--model", "test-model",
                  "--base-url", url, "--window", "6"], ["runs", "--json"]):
        out = subprocess.run([sys.executable, "-m", "nemori_ui", *args, "--home",
                              str(isolated_home)], cwd=ROOT, capture_output=True, text=True,
                             timeout=300)
        assert out.returncode == 0, out.stderr
        said += [out.stdout, out.stderr]
    assert openai_server.chat_requests, "the server was never reached"
    exports = tmp_path / "exports"
    export_all(isolated_home, exports)
    assert not leaks(secret, [isolated_home, exports], said)
    store = open_store(isolated_home)
    [info] = runs.list_runs(store)
    store.close()
    assert info.config.base_url == openai_server.url


def test_redaction_rules():
    r = Redactor(["my-own-token-1234"])
    assert r.text("a my-own-token-1234 b") == "a *** b"
    assert redact_patterns("Authorization: Bearer abc.def") == "Authorization: Bearer ***"
    assert redact_patterns("see https://u:p4ss@h.example/v1 now") == "see https://***@h.example/v1 now"
    assert redact_patterns("GET /x?api_key=zzz&y=1") == "GET /x?api_key=***&y=1"
    assert redact_patterns("sk-abcdefghijkl") == "sk-ab***"
    assert r.value({"a": ["my-own-token-1234", 3]}) == {"a": ["***", 3]}
    assert strip_url_credentials("http://u:p@h:8080/v1") == "http://h:8080/v1"
    assert strip_url_credentials("http://h/v1") == "http://h/v1"
