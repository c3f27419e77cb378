"""A base URL with user:password: the password is a secret in every form it takes on the wire
(as written, percent-encoded, inside the HTTP Basic token), the user name is not, so replies,
prompts and roles that say it are stored as they are."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest

from nemori_ui.core.llm import OpenAIChatBackend
from nemori_ui.core.llm.redact import MASK, Redactor, redact_patterns, url_secrets
from nemori_ui.core.store import open_store, records, runs
from tests.conftest import ROOT, SAMPLE
from tests.llm_responder import prompt_of, respond
from tests.test_security import export_all, leaks

PASSWORD = "PWSECRET99"


def token(user: str, password: str = PASSWORD) -> str:
    return base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.parametrize("user", ["alice", "Maya", "user"])
def test_the_user_name_of_the_url_is_no_secret(user):
    backend = OpenAIChatBackend("m", base_url=f"http://{user}:{PASSWORD}@127.0.0.1:9/v1")
    said = f'{user}: Quick update, "role": "user" ({user} told {user.lower()})'
    assert backend.redact(said) == said
    assert backend.redact(f"{user}:{PASSWORD} and {PASSWORD}") == f"{user}:{MASK} and {MASK}"


def test_every_wire_form_of_the_password_is_masked():
    url = "http://user:p%40ss%2Fword@host/v1"            # the password is "p@ss/word"
    r = Redactor(url_secrets(url))
    basic = token("user", "p@ss/word")
    for form in ("p%40ss%2Fword", "p@ss/word", basic, basic.rstrip("="), token("", "p@ss/word")):
        assert r.text(f"echo: {form}.") == f"echo: {MASK}.", form
    assert r.text("user said hello") == "user said hello"


def test_a_basic_header_is_masked_without_touching_the_word_basic():
    assert redact_patterns(f"Authorization: Basic {token('bob', 'hunter22')}") == \
        f"Authorization: Basic {MASK}"
    prose = "Basic informations about Basic cooking, basic Python and BASIC programming."
    assert redact_patterns(prose) == prose


def test_overlapping_secrets_are_masked_whole():
    # a shorter secret inside a longer one: the longer goes first, or its tail is left
    r = Redactor(["admin", "admin2024pw"])
    assert r.text("admin:admin2024pw") == f"{MASK}:{MASK}"
    backend = OpenAIChatBackend("m", api_key="admin", base_url="http://u:admin2024pw@127.0.0.1:9/v1")
    assert backend.redact("key admin, password admin2024pw") == f"key {MASK}, password {MASK}"


def test_the_url_password_goes_as_basic_auth_and_the_client_keeps_no_copy(openai_server):
    openai_server.authorization = f"Basic {token('user')}"
    openai_server.responder = lambda body: {"answer": "ok"}
    host = openai_server.url.split("://", 1)[1]
    backend = OpenAIChatBackend("m", base_url=f"http://user:{PASSWORD}@{host}")
    reply = backend.chat([{"role": "user", "content": "q"}], temperature=0,
                         response_format=None, timeout=10)
    assert json.loads(reply.text) == {"answer": "ok"}
    assert openai_server.requests[-1].headers["authorization"] == f"Basic {token('user')}"
    assert PASSWORD not in str(backend._client.base_url)
    assert backend.base_url.rstrip("/") == openai_server.url


def _echoing(user: str):
    """A careless server: the credentials it was sent come back inside the model's text, and
    the model speaks of the URL's user name."""
    def answer(body: dict) -> dict:
        reply = respond(body)
        if prompt_of(body) == "narrate":
            reply["narrative"] += f" {user} heard it (authorised with Basic {token(user)})."
        if prompt_of(body) == "distill":
            for item in reply["insights"]:
                item["text"] += f" [{token(user)}]"
        return reply
    return answer


def _command(url: str, home) -> list[list[str]]:
    return [[sys.executable, "-m", "nemori_ui", *args, "--home", str(home)] for args in (
        ["run", str(SAMPLE), "--backend", "openai", "--model", "test-model", "--base-url", url,
         "--window", "20", "--attempts", "1"], ["runs", "--json"])]


def _said(commands) -> list[str]:
    said = []
    for command in commands:
        out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
        said += [out.stdout, out.stderr]
    return said


def test_replies_keep_the_user_name_and_nothing_keeps_the_password(openai_server, isolated_home,
                                                                  tmp_path):
    user = "Maya"                     # a speaker of the sample: in every prompt and reply
    openai_server.authorization = f"Basic {token(user)}"
    openai_server.responder = _echoing(user)
    host = openai_server.url.split("://", 1)[1]
    said = _said(_command(f"http://{user}:{PASSWORD}@{host}", isolated_home))
    exports = tmp_path / "exports"
    export_all(isolated_home, exports)
    for secret in (PASSWORD, token(user)):
        assert not leaks(secret, [isolated_home, exports], said), secret
    store = open_store(isolated_home)
    [info] = runs.list_runs(store)
    narratives = [r[0] for r in store.query("SELECT narrative FROM episodes")]
    calls = records.load_calls(store, info.id)
    store.close()
    assert info.status == "done", said
    assert all(f"{user} heard it (authorised with Basic {MASK})" in n for n in narratives)
    prompts = [m for c in calls for m in c.messages]
    assert any(m["role"] == "user" and f"{user}: " in m["content"] for m in prompts)
    assert all(f"{user} heard it" in c.response_text for c in calls if c.prompt_name == "narrate")


def test_a_server_that_quotes_the_refused_basic_token_leaks_nothing(openai_server, isolated_home,
                                                                   tmp_path):
    openai_server.authorization = "Basic d3Jvbmc6d3Jvbmc="      # wants other credentials
    host = openai_server.url.split("://", 1)[1]
    said = _said(_command(f"http://user:{PASSWORD}@{host}", isolated_home))
    assert f"Incorrect API key provided: {MASK}" in said[1], said[1]   # it did echo: masked
    exports = tmp_path / "exports"
    export_all(isolated_home, exports)
    for secret in (PASSWORD, token("user")):
        assert not leaks(secret, [isolated_home, exports], said), secret
    store = open_store(isolated_home)
    [info] = runs.list_runs(store)
    store.close()
    assert info.status == "failed" and f"Incorrect API key provided: {MASK}" in info.error
