"""The API an agent builder expects, against a real store: get, get_all with filters, update,
delete, history, filtered search with typed hits, user and agent scopes, AsyncMemory,
background processing, and an `InputError` naming the argument for every misuse."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from nemori_ui import AsyncMemory, Memory
from nemori_ui.core.errors import InputError
from nemori_ui.core.memory_models import EpisodeHit, MemoryHit, MessageHit
from nemori_ui.core.retrieval import load_memory, retrieve
from nemori_ui.core.store import open_store, records
from nemori_ui.core.transcripts import load_transcript
from tests.conftest import SAMPLE

W = 8


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    """A memory of the sample's first 32 messages (4 windows), closed and reopened per test."""
    home = tmp_path_factory.mktemp("filled")
    messages = load_transcript(SAMPLE).conversations[0].messages[:32]
    with Memory(home=home, window=W) as memory:
        memory.add([{"speaker": m.speaker, "text": m.text, "timestamp": m.timestamp}
                    for m in messages])
        return home, memory.run_id


@pytest.fixture
def memory(filled, tmp_path):
    import shutil
    home = tmp_path / "copy"
    shutil.copytree(filled[0], home)
    with Memory(home=home, run_id=filled[1]) as opened:
        yield opened


def test_search_is_the_runs_own_retrieval_with_typed_hits(memory):
    found = memory.search("Where does Maya work?", k=3, m=4)
    assert all(isinstance(h, EpisodeHit) for h in found.episodes)
    assert all(isinstance(h, MemoryHit) for h in found.semantic)
    assert all(isinstance(h, MessageHit) for h in found.raw)
    assert found.pending == 0 and found.processing is False
    # the memory held in place answers as the memory loaded from the store does
    state, messages = load_memory(memory.store, memory.run_id, memory.clients.embedder,
                                  memory.config)
    vec = memory.clients.embedder.embed(["Where does Maya work?"])[0]
    stored = retrieve("Where does Maya work?", vec, state, messages,
                      memory.config.model_copy(update={"k": 3}), m=4)
    assert [(h.id, h.score) for h in found.episodes] == [(e["id"], e["score"])
                                                         for e in stored.episodes]
    assert [h.id for h in found.semantic] == [m["id"] for m in stored.semantic]
    assert found.context == stored.context


def test_search_filters_by_speaker_time_and_kind(memory):
    everything = memory.search("work", k=10)
    speakers = {m.speaker for m in memory.get_all(kind="message")}
    assert len(speakers) == 2
    one = sorted(speakers)[0]
    only = memory.search("work", k=10, speaker=one)
    assert only.raw and all(r.speaker == one for r in only.raw)
    assert all(one in {memory.get(i).speaker for i in h.message_ids} for h in only.episodes)
    assert memory.search("work", kind="semantic").episodes == []
    assert memory.search("work", kind="episode").semantic == []
    assert memory.search("work", filters={"kind": "message"}).raw
    last = max(m.timestamp for m in memory.get_all(kind="message"))
    late = memory.search("work", k=10, since=last)
    assert len(late.episodes) <= len(everything.episodes)
    assert all(h.end >= last for h in late.episodes)
    assert memory.search("work", until=datetime(1999, 1, 1)).episodes == []


def test_get_update_delete_and_history(memory):
    m1 = memory.get("m0001")
    assert (m1.kind, m1.speaker) == ("message", memory.get_all(kind="message")[0].speaker)
    assert memory.get("sm9999") is None and memory.get("ep9999") is None
    memories = memory.get_all(kind="semantic")
    assert memories and all(i.kind == "semantic" and i.status == "active" for i in memories)
    target = memories[0]

    new = memory.update(target.id, "Maya works at Finch Labs as a senior data engineer.")
    assert new.supersedes == [target.id] and new.origin == "update"
    assert memory.get(target.id).status == "superseded"
    assert memory.get(target.id).superseded_by == new.id
    found = memory.search("senior data engineer", kind="semantic")
    assert found.semantic[0].id == new.id
    assert target.id not in {h.id for h in memory.search("Finch Labs", m=50).semantic}
    assert [i.id for i in memory.history(target.id)] == [
        *[i.id for i in memory.history(target.id)][:-2], target.id, new.id]

    gone = memory.delete(new.id)
    assert gone.status == "deleted"
    assert new.id not in {h.id for h in memory.search("senior data engineer", m=50).semantic}
    assert [i.status for i in memory.history(target.id)][-2:] == ["superseded", "deleted"]
    assert new.id not in {i.id for i in memory.get_all(kind="semantic")}
    assert new.id in {i.id for i in memory.get_all(kind="semantic", include_superseded=True)}

    episode = memory.get_all(kind="episode")[0]
    rewritten = memory.update(episode.id, "Maya told Jonas about her first day at work.")
    assert memory.search("first day at work", k=1).episodes[0].id == rewritten.id
    memory.delete(rewritten.id)
    assert rewritten.id not in {h.id for h in memory.search("first day", k=50).episodes}

    # what was changed is stored: a new object of the same run sees it
    store = open_store(memory.store.path.parent)
    stored = {m.id: m.status for m in records.load_memories(store, memory.run_id)}
    store.close()
    assert (stored[target.id], stored[new.id]) == ("superseded", "deleted")
    with Memory(home=memory.store.path.parent, run_id=memory.run_id) as again:
        assert again.get(new.id).status == "deleted"
        assert again.get(rewritten.id).status == "deleted"


def test_messages_cannot_be_rewritten_or_deleted_nor_old_versions_updated(memory):
    with pytest.raises(InputError, match="is a message") as caught:
        memory.update("m0001", "changed")
    assert caught.value.field == "id"
    with pytest.raises(InputError, match="is a message"):
        memory.delete("m0001")
    target = memory.get_all(kind="semantic")[0]
    memory.update(target.id, "A new text.")
    with pytest.raises(InputError, match="superseded"):
        memory.update(target.id, "Again.")
    with pytest.raises(InputError, match="holds no sm9999"):
        memory.delete("sm9999")


@pytest.mark.parametrize("call, field", [
    (lambda m: m.add(42), "messages"),
    (lambda m: m.add("hello"), "messages"),
    (lambda m: m.add({"speaker": "Ann", "text": "hi", "id": {"a": 1}}), "messages[0].id"),
    (lambda m: m.search(123), "query"),
    (lambda m: m.search("   "), "query"),
    (lambda m: m.search("x", k=0), "k"),
    (lambda m: m.search("x", k=-1), "k"),
    (lambda m: m.search("x", k=2.5), "k"),
    (lambda m: m.search("x", m=0), "m"),
    (lambda m: m.search("x", filters={"speker": "Ann"}), "filters.speker"),
    (lambda m: m.search("x", kind="thought"), "filters.kind"),
    (lambda m: m.search("x", filters="Ann"), "filters"),
    (lambda m: m.get_all(since="not a time"), "filters.since"),
    (lambda m: m.get(7), "id"),
    (lambda m: m.get("x0001"), "id"),
    (lambda m: m.update("sm0001", 5), "text"),
    (lambda m: m.answer(None), "question"),
])
def test_every_misuse_names_its_argument(tmp_path, call, field):
    with Memory(home=tmp_path, window=W) as memory:
        with pytest.raises(InputError) as caught:
            call(memory)
        assert caught.value.field == field, str(caught.value)


@pytest.mark.parametrize("kwargs, field", [
    ({"windw": 10}, "windw"),
    ({"window": 1}, "window"),
    ({"run_id": "nope"}, "run_id"),
    ({"home": 5}, "home"),
    ({"wait_s": 0}, "wait_s"),
    ({"user_id": ""}, "user_id"),
])
def test_bad_settings_are_refused_not_ignored(tmp_path, kwargs, field):
    with pytest.raises(InputError) as caught:
        Memory(**{"home": tmp_path, **kwargs})
    assert caught.value.field == field, str(caught.value)
    if field == "windw":
        assert "did you mean 'window'" in str(caught.value)


def test_home_expands_the_user_folder_and_environment_variables(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("AGENT_MEM", "mem")
    monkeypatch.chdir(tmp_path)
    with Memory(home="~/$AGENT_MEM/a") as memory:
        assert memory.store.path == tmp_path / "mem" / "a" / "nemori.db"
    assert not (tmp_path / "~").exists() and not (tmp_path / "$AGENT_MEM").exists()


def test_user_and_agent_scopes_open_their_own_run(tmp_path):
    with Memory(home=tmp_path, user_id="alice", window=W) as alice:
        alice.add({"speaker": "alice", "text": "I keep bees on the roof."})
        alice_run = alice.run_id
    with Memory(home=tmp_path, user_id="bob", window=W) as bob:
        assert bob.run_id != alice_run and bob.pending == 0
    with Memory(home=tmp_path, user_id="alice", agent_id="helper", window=W) as other:
        assert other.run_id not in (alice_run, bob.run_id)
    with Memory(home=tmp_path, user_id="alice") as again:
        assert again.run_id == alice_run and again.pending == 1
        assert again.config.window == W
    with pytest.raises(InputError) as caught:
        Memory(home=tmp_path, run_id=alice_run, user_id="bob")
    assert caught.value.field == "user_id"


def test_background_adds_return_before_the_window_is_processed(tmp_path):
    messages = load_transcript(SAMPLE).conversations[0].messages[:20]
    with Memory(home=tmp_path, window=W, background=True) as memory:
        for m in messages[:W]:
            added = memory.add({"speaker": m.speaker, "text": m.text})
        assert added.windows_processed == 0           # the worker has it
        assert memory.wait() is True
        assert memory.unprocessed == 0 and memory.search("job").episodes
        for m in messages[W:]:
            memory.add({"speaker": m.speaker, "text": m.text})
        flushed = memory.flush()
        assert (flushed.pending, flushed.unprocessed) == (0, 0)
        assert len(memory.get_all(kind="message")) == 20
        covered = sorted(i for e in memory.get_all(kind="episode") for i in e.message_ids)
        assert covered == [f"m{i:04d}" for i in range(1, 21)]


def test_async_memory_has_the_same_methods(tmp_path):
    async def agent():
        async with await AsyncMemory.open(home=tmp_path, window=W) as memory:
            added = await memory.add([{"speaker": "Ann", "text": f"Line {i} about the garden."}
                                      for i in range(W + 2)])
            assert added.windows_processed == 1 and memory.pending == 2
            found = await memory.search("garden")
            first = found.episodes[0].id
            assert (await memory.get(first)).kind == "episode"
            assert await memory.get_all(kind="episode")
            new = await memory.update(first, "Ann talked about her garden.")
            assert [i.id for i in await memory.history(first)][-1] == new.id
            assert (await memory.delete(new.id)).status == "deleted"
            assert (await memory.flush()).pending == 0
            assert (await memory.answer("What did Ann talk about?")).answer
    asyncio.run(agent())
    for name in ("add", "flush", "wait", "search", "answer", "get", "get_all", "update",
                 "delete", "history", "close"):
        assert asyncio.iscoroutinefunction(getattr(AsyncMemory, name)), name
        assert getattr(AsyncMemory, name).__doc__ == getattr(Memory, name).__doc__


def test_the_memory_kept_in_place_searches_as_the_stored_one(tmp_path):
    """Windows processed one after another in the same object (episodes integrated, lines
    added and dropped in place) leave the memory a fresh load of the run gives."""
    messages = load_transcript(SAMPLE).conversations[0].messages
    with Memory(home=tmp_path, window=W) as memory:
        for i in range(0, len(messages), 3):
            memory.add([{"speaker": m.speaker, "text": m.text, "timestamp": m.timestamp}
                        for m in messages[i:i + 3]])
        memory.flush()
        state, by_id = load_memory(memory.store, memory.run_id, memory.clients.embedder,
                                   memory.config)
        assert any(e.status == "superseded" for e in state.episodes.values())   # integrated
        for question in ("Where does Maya work?", "What does Maya drink?", "Who is Ana?"):
            vec = memory.clients.embedder.embed([question])[0]
            stored = retrieve(question, vec, state, by_id, memory.config)
            held = memory.search(question)
            assert [(h.id, h.score) for h in held.episodes] == [
                (e["id"], e["score"]) for e in stored.episodes], question
            assert held.context == stored.context


@pytest.mark.parametrize("name", ["overview", "episodes", "knowledge", "timeline", "ask"])
def test_the_app_renders_a_memory_a_caller_edited(memory, monkeypatch, name):
    from streamlit.testing.v1 import AppTest
    from tests.conftest import ROOT
    fact = memory.get_all(kind="semantic")[0]
    memory.delete(memory.update(fact.id, "Maya bakes bread.").id)
    episode = memory.get_all(kind="episode")[0]
    memory.update(episode.id, "Maya and Jonas talked about work.")
    monkeypatch.setenv("NEMORI_HOME", str(memory.store.path.parent))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(f"pages/{name}.py")
    at.session_state["run_id"] = memory.run_id
    at.run()
    assert not at.exception, at.exception
