"""The OpenAI-compatible client against the scripted server: retries, Retry-After, secrets,
the failure table, the probe, structured output, tool calls and reasoning fields."""

from __future__ import annotations

import pytest

from genotex.methods.llm.client import (ChatClient, ChatRequest, DeadlineError,
                                        EndpointError, EndpointSettings, LLMError, redact)
from genotex.methods.llm.failures import (FAIL_TASK, RETRY, STATUS_TABLE, STOP_RUN,
                                          classify_status)
from genotex.testing.fake_llm import FakeLLM
from utils.io.http import RetryPolicy

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
    assert (reply.finish_reason, reply.truncated) == ("stop", False)
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


def test_permanent_errors_stop_the_run_at_once_and_never_show_the_key():
    with FakeLLM(lambda body: "ok") as server:
        server.fail("echo-key")
        client = make_client(server, [])
        with pytest.raises(EndpointError) as caught:
            client.chat(MESSAGES)
    assert len(server.requests) == 1
    message = str(caught.value)
    assert "HTTP 401" in message and "[redacted]" in message and server.base_url in message
    assert KEY not in message and KEY not in repr(client)


def test_an_unknown_model_stops_the_run():
    with FakeLLM(lambda body: "ok") as server:
        server.fail("404")
        with pytest.raises(EndpointError, match="model 'm1' not found"):
            make_client(server, []).chat(MESSAGES)
    assert len(server.requests) == 1


def test_the_status_table():
    assert [classify_status(s) for s in (401, 403, 404, 405)] == [STOP_RUN] * 4
    assert [classify_status(s) for s in (408, 429, 500, 502, 503, 504, 529)] == [RETRY] * 7
    assert [classify_status(s) for s in (400, 413, 422, 418)] == [FAIL_TASK] * 4
    assert classify_status(400, '{"error": "The model `x` does not exist."}') == STOP_RUN
    assert classify_status(429, '{"error": {"code": "insufficient_quota"}}') == STOP_RUN
    assert STATUS_TABLE[501] == STOP_RUN


def test_a_200_with_an_error_body_is_retried():
    sleeps = []
    with FakeLLM(lambda body: "fine") as server:
        server.fail("error-body")
        reply = make_client(server, sleeps).chat(MESSAGES)
    assert reply.text == "fine" and reply.attempts == 2 and len(sleeps) == 1


def test_a_refused_request_fails_the_task_only():
    with FakeLLM(lambda body: "ok") as server:
        server.structured = "refuse"          # 400 for any response_format: but no schema sent
        client = make_client(server, [])
        assert client.chat(MESSAGES).text == "ok"


def test_reasoning_fields_truncation_and_tool_calls_are_kept_apart():
    replies = iter([
        {"content": "Answer.", "reasoning_content": "draft ```python\nx = y\n```"},
        {"content": "Answer 2", "reasoning": "thinking"},
        {"content": "```python\nx = ", "finish_reason": "length"},
        {"content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
            "name": "python", "arguments": '{"code": "print(1)"}'}}]},
    ])
    with FakeLLM(lambda body: next(replies)) as server:
        client = make_client(server, [])
        first, second, third, fourth = (client.chat(MESSAGES) for _ in range(4))
    assert (first.text, first.reasoning) == ("Answer.", "draft ```python\nx = y\n```")
    assert second.reasoning == "thinking" and third.truncated
    assert fourth.text == "" and fourth.tool_calls[0].name == "python"
    assert "print(1)" in fourth.tool_calls[0].arguments


@pytest.mark.parametrize("server_mode, levels", [
    ("accept", ["json_schema", "json_schema"]),
    ("json_object", ["json_schema", "json_object", "json_object"]),
    ("refuse", ["json_schema", "json_object", None, None]),
])
def test_structured_output_steps_down_when_refused(server_mode, levels):
    schema = {"name": "plan", "schema": {"type": "object"}, "example": {}}
    with FakeLLM(lambda body: '{"action": "next"}') as server:
        server.structured = server_mode
        client = make_client(server, [])
        for _ in range(2):
            assert client.complete(ChatRequest(MESSAGES, schema=schema)).text.startswith("{")
    sent = [(r.get("response_format") or {}).get("type") for r in server.requests]
    assert sent == levels


def test_tools_are_dropped_when_refused():
    tool = {"type": "function", "function": {"name": "python", "parameters": {}}}
    with FakeLLM(lambda body: "```python\nx = 1\n```") as server:
        server.tools = False
        client = make_client(server, [])
        client.complete(ChatRequest(MESSAGES, tools=[tool]))
        client.complete(ChatRequest(MESSAGES, tools=[tool]))
    assert ["tools" in r for r in server.requests] == [True, False, False]


def test_the_key_is_never_sent_to_the_model_nor_returned():
    """Outgoing messages and incoming texts are redacted: the key stays in the header."""
    with FakeLLM(lambda body: f"I saw {KEY} in your prompt") as server:
        reply = make_client(server, []).chat([{"role": "user", "content": f"key={KEY}"}])
    assert server.requests[0]["messages"][0]["content"] == "key=[redacted]"
    assert KEY not in reply.text and "[redacted]" in reply.text
    assert server.headers[0]["Authorization"] == f"Bearer {KEY}"


def test_extra_body_is_sent_with_every_request():
    with FakeLLM(lambda body: "ok") as server:
        client = make_client(server, [], extra_body={"top_k": 20, "options": {"num_ctx": 8192}})
        client.chat(MESSAGES)
        client.complete(ChatRequest(MESSAGES, model="m3"))
    assert all(r["top_k"] == 20 and r["options"] == {"num_ctx": 8192} for r in server.requests)
    assert server.requests[1]["model"] == "m3"


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


def test_a_refused_connection_or_an_unknown_host_stops_the_run_at_once(refused_port):
    retry = RetryPolicy(max_attempts=6, backoff_base=0.01, timeout=5.0)
    sleeps = []
    for url, cause in ((f"http://127.0.0.1:{refused_port}/v1", "connection refused"),
                       ("http://no-such-model-server.invalid/v1", "does not resolve")):
        client = ChatClient(EndpointSettings(url, "m", retry), KEY, sleep=sleeps.append)
        with pytest.raises(EndpointError, match=cause) as caught:
            client.chat(MESSAGES)
        assert url in str(caught.value)
        with pytest.raises(EndpointError, match=cause):
            client.probe()
    assert sleeps == []                                  # no retry, no wait


def test_dropped_connections_are_retried_until_the_breaker_opens():
    sleeps = []
    with FakeLLM(lambda body: "ok") as server:
        server.fail("drop")
        client = make_client(server, sleeps, attempts=6, max_connection_failures=3)
        assert client.chat(MESSAGES).attempts == 2          # one drop: retried, fine
        server.fail("drop", "drop", "drop")
        with pytest.raises(EndpointError, match="failed 3 times in a row"):
            client.chat(MESSAGES)
    assert len(sleeps) == 1 + 2                            # the third failure stops at once


def test_the_circuit_breaker_stops_after_consecutive_connection_failures():
    client = ChatClient(EndpointSettings("http://127.0.0.1:9/v1", "m",
                                         max_connection_failures=3), KEY)
    assert not client.breaker.failure() and not client.breaker.failure()
    assert client.breaker.failure()                      # the third in a row opens it
    client.breaker.success()
    assert client.breaker.failures == 0


def test_the_probe_lists_models_or_asks_one_token():
    with FakeLLM(lambda body: "OK") as server:
        server.models = ["m0", "m1"]
        client = make_client(server, [])
        assert "listed" in client.probe() and server.requests == []
        server.models = ["another-model"]
        assert "answered" in client.probe()
        assert server.requests[-1]["max_tokens"] == 1
        server.models = None                             # no listing: the one-token request
        assert "answered" in client.probe()


def test_the_probe_catches_a_wrong_base_url_and_an_unknown_model():
    with FakeLLM(lambda body: "OK") as server:
        wrong = server.base_url[:-len("/v1")]            # the common mistake: no /v1
        client = ChatClient(EndpointSettings(wrong, "m1"), KEY)
        with pytest.raises(EndpointError, match="HTTP 404") as caught:
            client.probe()
        assert "/v1" in str(caught.value) and wrong in str(caught.value)
        server.models = ["other"]
        server.fail("404")
        with pytest.raises(EndpointError, match="not found"):
            make_client(server, []).probe()


def test_redact():
    assert redact("a KEY b KEY", ["KEY", ""]) == "a [redacted] b [redacted]"
