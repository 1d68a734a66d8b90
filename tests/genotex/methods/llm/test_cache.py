"""Kept exchanges: keys, crash-safe appends, sessions, replay and its misses."""

from __future__ import annotations

import json
import threading

import pytest

from genotex.methods.llm.cache import (ExchangeCache, ReplayMiss, read_task_file, request_document,
                                       request_key, task_file_name)
from genotex.methods.llm.client import (ChatClient, ChatReply, ChatRequest, EndpointSettings,
                                        LLMError, ToolCall)
from genotex.methods.llm.exchange import Exchange
from genotex.methods.runlog import MemoryLog
from genotex.testing.fake_llm import FakeLLM
from utils.io.http import RetryPolicy

SETTINGS = EndpointSettings("http://127.0.0.1:9/v1", "m")
SYSTEM = {"role": "system", "content": "ROLE: Statistician\nYou analyse."}
KEY = "sk-cache-test-SECRET-0123"


def request(text: str, **kwargs) -> ChatRequest:
    return ChatRequest([SYSTEM, {"role": "user", "content": f"REQUEST: code\nTASK: T\n\n{text}"}],
                       **kwargs)


def reply(text: str) -> ChatReply:
    return ChatReply(text, "m", 10, 5, 1, 0.5, reasoning="hmm", finish_reason="stop",
                     tool_calls=(ToolCall("python", '{"code": "x"}'),))


def test_the_key_covers_model_messages_and_parameters():
    base = request_key(request_document(request("a"), SETTINGS))
    assert base == request_key(request_document(request("a"), SETTINGS))
    assert base != request_key(request_document(request("b"), SETTINGS))
    assert base != request_key(request_document(request("a", model="other"), SETTINGS))
    assert base != request_key(request_document(request("a", schema={"name": "s", "schema": {}}),
                                                SETTINGS))
    for changed in ({"temperature": 0.7}, {"max_tokens": 10}, {"seed": 3},
                    {"extra_body": {"top_k": 5}}):
        other = EndpointSettings("http://127.0.0.1:9/v1", "m", **changed)
        assert base != request_key(request_document(request("a"), other)), changed
    # where the server is and how patiently it is asked do not matter
    elsewhere = EndpointSettings("http://10.0.0.1:8000/v1", "m", RetryPolicy(max_attempts=9))
    assert base == request_key(request_document(request("a"), elsewhere))


def test_the_run_folder_path_does_not_change_the_key(tmp_path):
    a = request_document(request(f"saved {tmp_path / 'a'}/prediction/x.csv"), SETTINGS,
                         tmp_path / "a")
    b = request_document(request(f"saved {tmp_path / 'b'}/prediction/x.csv"), SETTINGS,
                         tmp_path / "b")
    assert request_key(a) == request_key(b)


def test_record_then_replay(tmp_path):
    original = ExchangeCache(tmp_path / "run", "s1", [KEY])
    task = original.task("Trait/GSE1")
    first = request("a")
    task.record("Statistician", first, task.document(first, SETTINGS), reply=reply("one"))
    task.record("Statistician", first, task.document(first, SETTINGS), reply=reply("two"))
    failing = request("b")
    task.record("Statistician", failing, task.document(failing, SETTINGS),
                error=LLMError("gave up after 6 attempts"))
    # system prompts are kept once, by reference
    prompts = list((tmp_path / "run" / "exchanges" / "prompts").iterdir())
    assert [p.read_text() for p in prompts] == [SYSTEM["content"]]
    replay = ExchangeCache(tmp_path / "copy", "s2",
                           replay_from=tmp_path / "run" / "exchanges").task("Trait/GSE1")
    assert replay.replaying
    # the same request asked twice gets the two answers, in order, with every field
    assert replay.replay("Statistician", replay.document(first, SETTINGS)) == reply("one")
    assert replay.replay("Statistician", replay.document(first, SETTINGS)).text == "two"
    with pytest.raises(LLMError, match="gave up after 6 attempts"):
        replay.replay("Statistician", replay.document(failing, SETTINGS))


def test_a_miss_names_the_request_and_where_it_departs(tmp_path):
    original = ExchangeCache(tmp_path / "run", "s1").task("Trait/GSE1")
    asked = request("print(df.shape)")
    original.record("Statistician", asked, original.document(asked, SETTINGS), reply=reply("x"))
    source = tmp_path / "run" / "exchanges"
    replay = ExchangeCache(tmp_path / "copy", "s2", replay_from=source).task("Trait/GSE1")
    other = request("print(df.head())")
    with pytest.raises(ReplayMiss) as caught:
        replay.replay("Statistician", replay.document(other, SETTINGS))
    message = str(caught.value)
    assert "request 1 of task Trait/GSE1" in message and "REQUEST: code" in message
    assert "message 2 (user) differs at character" in message and "df.head" in message
    unknown = ExchangeCache(tmp_path / "copy", "s2", replay_from=source).task("Other/GSE9")
    with pytest.raises(ReplayMiss, match="the original run has no exchange of this task"):
        unknown.replay("Statistician", unknown.document(asked, SETTINGS))


def test_a_torn_last_line_is_ignored_and_a_later_session_supersedes(tmp_path):
    cache = ExchangeCache(tmp_path, "s1")
    task = cache.task("T")
    asked = request("a")
    task.record("R", asked, task.document(asked, SETTINGS), reply=reply("first session"))
    later = ExchangeCache(tmp_path, "s2").task("T")        # the task redone by a resumed run
    later.record("R", asked, later.document(asked, SETTINGS), reply=reply("second session"))
    path = tmp_path / "exchanges" / task_file_name("T")
    with path.open("a") as handle:
        handle.write('{"key": "abc", "reply": {"te')            # a crash mid-line
    entries = read_task_file(path)
    assert [e["reply"]["text"] for e in entries] == ["second session"]
    begins = [json.loads(line)["begin"] for line in path.read_text().splitlines()[:-1]
              if "begin" in line]
    assert begins == ["s1", "s2"]


def test_concurrent_tasks_write_safely(tmp_path):
    cache = ExchangeCache(tmp_path, "s1")

    def work(n: int) -> None:
        task = cache.task(f"T{n}")
        for i in range(20):
            asked = request(f"{n}-{i}")
            task.record("R", asked, task.document(asked, SETTINGS), reply=reply(f"{n}-{i}"))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for n in range(8):
        entries = read_task_file(tmp_path / "exchanges" / task_file_name(f"T{n}"))
        assert [e["reply"]["text"] for e in entries] == [f"{n}-{i}" for i in range(20)]


def test_the_key_never_reaches_the_kept_exchanges(tmp_path):
    cache = ExchangeCache(tmp_path, "s1", [KEY])
    task = cache.task("T")
    asked = ChatRequest([{"role": "system", "content": f"system {KEY}"},
                         {"role": "user", "content": f"echo {KEY}"}])
    task.record("R", asked, task.document(asked, SETTINGS), reply=reply(f"the key is {KEY}"))
    for path in (tmp_path / "exchanges").rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text()
    # sent to a worker process without the secrets
    import pickle

    assert KEY.encode() not in pickle.dumps(cache)


def test_an_exchange_replays_without_the_network(tmp_path):
    """Through :class:`Exchange`: recorded against the scripted server, replayed offline."""
    with FakeLLM(lambda body: '["TNF"]') as server:
        chat = ChatClient(EndpointSettings(server.base_url, "fake-model"))
        recording = Exchange(chat, MemoryLog(), "T", {},
                             exchanges=ExchangeCache(tmp_path / "a", "s1").task("T"))
        recorded = recording.send("Geneticist", request("genes?"))
    offline = ChatClient(EndpointSettings(server.base_url, "fake-model"), offline=True)
    replaying = Exchange(offline, MemoryLog(), "T", {}, exchanges=ExchangeCache(
        tmp_path / "b", "s2", replay_from=tmp_path / "a" / "exchanges").task("T"))
    assert replaying.send("Geneticist", request("genes?")) == recorded
    assert replaying.usage.input_tokens == recorded.input_tokens
    # the replayed run keeps its own exchanges (it can be replayed in turn)
    assert read_task_file(tmp_path / "b" / "exchanges" / task_file_name("T"))[0]["reply"][
        "text"] == '["TNF"]'
    with pytest.raises(LLMError, match="not contacted"):
        offline.chat([{"role": "user", "content": "hi"}])


def test_a_replay_follows_the_original_clients_step_down(tmp_path):
    """The original server refused json_schema: its client stepped down to json_object,
    which changes the later requests (the JSON shape note). The replay must follow."""
    schema = {"name": "plan", "schema": {"type": "object"}, "example": {"action": "next"}}
    asked = [request("plan?", schema=schema), request("plan again?", schema=schema)]
    with FakeLLM(lambda body: '{"action": "next"}') as server:
        server.structured = "refuse"
        chat = ChatClient(EndpointSettings(server.base_url, "fake-model"))
        recording = Exchange(chat, MemoryLog(), "T", {},
                             exchanges=ExchangeCache(tmp_path / "a", "s1").task("T"))
        for item in asked:
            recording.send("Statistician", item)
    assert chat.structured == "off"
    offline = ChatClient(EndpointSettings(server.base_url, "fake-model"), offline=True)
    replaying = Exchange(offline, MemoryLog(), "T", {}, exchanges=ExchangeCache(
        tmp_path / "b", "s2", replay_from=tmp_path / "a" / "exchanges").task("T"))
    for item in asked:
        assert replaying.send("Statistician", item).text == '{"action": "next"}'
    assert offline.structured == "off"
