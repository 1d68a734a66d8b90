"""The OpenAI-compatible client against the scripted server: retries, Retry-After, secrets."""

from __future__ import annotations

import pytest

from download.fetch import RetryPolicy
from genotex.methods.llm.client import (ChatClient, DeadlineError, EndpointSettings,
                                        LLMError, redact)
from tests.fake_llm_server import FakeLLM

KEY = "sk-live-abcdefghijklmnop"
MESSAGES = [{"role": "user", "content": "hello there"}]


def make_client(server, sleeps, attempts=4, timeout=5.0, **kwargs):
    retry = RetryPolicy(max_attempts=attempts, backoff_base=0.5, backoff_max=4.0,
                        max_retry_after=30.0, timeout=timeout)
    return ChatClient(EndpointSettings(server.base_url, "m1", retry, **kwargs), KEY,
                      sleep=sleeps.append)


def test_reply_tokens_and_request_shape():
    with FakeLLM(lambda body: "fine, thanks") as server:
        reply = make_client(server, [], temperature=0.0, max_tokens=99).chat(MESSAGES,
                                                                            model="m2")
    assert (reply.text, reply.model, reply.attempts) == ("fine, thanks", "m2", 1)
    assert (reply.input_tokens, reply.output_tokens) == (len("hello there") // 4,
                                                         len("fine, thanks") // 4)
    body, headers = server.requests[0], server.headers[0]
    assert body == {"model": "m2", "messages": MESSAGES, "temperature": 0.0, "max_tokens": 99}
    assert headers["Authorization"] == f"Bearer {KEY}"


def test_429_waits_what_retry_after_says():
    sleeps = []
    with FakeLLM(lambda body: "ok") as server:
        server.retry_after = "7"
        server.fail("429", "429")
        reply = make_client(server, sleeps).chat(MESSAGES)
    assert reply.text == "ok" and reply.attempts == 3
    assert sleeps == [7.0, 7.0]


def test_retry_after_is_capped():
    sleeps = []
    with FakeLLM(lambda body: "ok") as server:
        server.retry_after = "3600"
        server.fail("429")
        make_client(server, sleeps).chat(MESSAGES)
    assert sleeps == [30.0]


def test_5xx_backs_off_exponentially():
    sleeps = []
    with FakeLLM(lambda body: "ok") as server:
        server.fail("500", "500", "500")
        assert make_client(server, sleeps).chat(MESSAGES).attempts == 4
    # equal jitter: attempt k waits between half and all of 0.5 * 2**(k-1)
    for k, delay in enumerate(sleeps, 1):
        ceiling = 0.5 * 2 ** (k - 1)
        assert ceiling / 2 <= delay <= ceiling


def test_a_stalled_answer_times_out_and_is_retried():
    sleeps = []
    with FakeLLM(lambda body: "late but fine") as server:
        server.stall = 2.0
        server.fail("stall")
        reply = make_client(server, sleeps, timeout=0.5).chat(MESSAGES)
    assert reply.text == "late but fine" and reply.attempts == 2 and len(sleeps) == 1


def test_retries_run_out():
    with FakeLLM(lambda body: "ok") as server:
        server.fail("500", "500")
        with pytest.raises(LLMError, match="gave up after 2 attempts: HTTP 500"):
            make_client(server, [], attempts=2).chat(MESSAGES)


def test_permanent_errors_are_not_retried_and_never_show_the_key():
    with FakeLLM(lambda body: "ok") as server:
        server.fail("echo-key")
        client = make_client(server, [])
        with pytest.raises(LLMError) as caught:
            client.chat(MESSAGES)
    assert len(server.requests) == 1
    assert "HTTP 401" in str(caught.value) and "[redacted]" in str(caught.value)
    assert KEY not in str(caught.value) and KEY not in repr(client)


def test_the_deadline_stops_retrying():
    clock = iter([0.0, 0.0, 0.5, 9.0, 9.0]).__next__
    with FakeLLM(lambda body: "ok") as server:
        server.retry_after = "5"
        server.fail("429")
        retry = RetryPolicy(max_attempts=4, timeout=5.0)
        client = ChatClient(EndpointSettings(server.base_url, "m", retry), KEY,
                            sleep=lambda s: None, clock=clock)
        with pytest.raises(DeadlineError):
            client.chat(MESSAGES, deadline=3.0)


def test_a_refused_connection_is_retried_then_reported():
    retry = RetryPolicy(max_attempts=2, backoff_base=0.01, timeout=1.0)
    client = ChatClient(EndpointSettings("http://127.0.0.1:9/v1", "m", retry), KEY,
                        sleep=lambda s: None)
    with pytest.raises(LLMError, match="connection failed"):
        client.chat(MESSAGES)


def test_redact():
    assert redact("a KEY b KEY", ["KEY", ""]) == "a [redacted] b [redacted]"
