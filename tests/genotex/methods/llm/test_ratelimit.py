"""The shared rate limiter: requests and tokens per minute, and 429 pauses for every worker."""

from __future__ import annotations

import threading
import time

from genotex.methods.llm.client import ChatClient, EndpointSettings
from genotex.methods.llm.ratelimit import RateLimiter, RateLimits, estimate_tokens
from genotex.testing.fake_llm import FakeLLM
from utils.io.http import RetryPolicy

MESSAGES = [{"role": "user", "content": "hello"}]


class FakeTime:
    """A clock that moves only when someone sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps = []

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 3))
        self.now += seconds


def test_requests_per_minute():
    t = FakeTime()
    limiter = RateLimiter(RateLimits(rpm=3), clock=t.clock, sleep=t.sleep)
    starts = []
    for _ in range(7):
        limiter.acquire()
        starts.append(t.now - 1000.0)
    # three at once, then each waits for the oldest of the window to be a minute old
    assert starts == [0, 0, 0, 60, 60, 60, 120]


def test_tokens_per_minute_count_the_estimate_then_the_usage():
    t = FakeTime()
    limiter = RateLimiter(RateLimits(tpm=1000), clock=t.clock, sleep=t.sleep)
    first = limiter.acquire(600)
    t.now += 1
    first.settle(100)                    # the answer used far less than estimated
    limiter.acquire(800)                 # 100 + 800 fits
    assert t.sleeps == []
    # 900 + 500 does not fit, nor 800 + 500 once the first expires: wait for both
    limiter.acquire(500)
    assert t.now - 1000.0 == 61.0
    # a request larger than the whole budget passes alone, once the window is empty
    limiter.acquire(5000)
    assert t.now - 1000.0 == 121.0


def test_the_estimate_is_characters_over_four_plus_the_answer_budget():
    assert estimate_tokens(4000) == 1000
    assert estimate_tokens(4000, max_tokens=512) == 1512


def test_a_pause_holds_every_other_thread():
    t = FakeTime()
    limiter = RateLimiter(clock=t.clock, sleep=t.sleep)
    limiter.pause(30)
    limiter.acquire()                     # the thread that was told to wait waits on its own
    assert t.sleeps == []
    waited = []

    def other() -> None:
        limiter.acquire()
        waited.append(t.now - 1000.0)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert waited == [30.0]


def test_limits_are_shared_by_the_workers_of_a_cluster():
    assert RateLimits(rpm=60, tpm=90_000).share(4) == RateLimits(15, 22_500)
    assert not RateLimits().active and RateLimits(rpm=1).active


def test_a_429_pauses_the_other_tasks_of_the_run():
    """Two tasks share a client: one gets 429 with Retry-After 1; the other's next request
    (sent while the first waits) starts only once the pause is over."""
    with FakeLLM(lambda body: "ok") as server:
        server.retry_after = "1"
        retry = RetryPolicy(max_attempts=3, backoff_base=0.01, backoff_max=0.05,
                            max_retry_after=5.0, timeout=10.0)
        client = ChatClient(EndpointSettings(server.base_url, "fake-model", retry))
        server.fail("429")
        first = threading.Thread(target=lambda: client.chat(MESSAGES))
        first.start()
        while not server.times:           # the 429 has been answered
            time.sleep(0.01)
        time.sleep(0.2)
        client.chat(MESSAGES)
        first.join()
    got_429 = server.times[0]
    # the second task's request waited out the pause the first task's 429 set (without
    # the shared pause it would have reached the server about 0.2 s after the 429);
    # lower bounds only: a loaded machine makes these gaps longer, never shorter
    assert len(server.times) == 3
    assert server.times[1] - got_429 >= 0.95 and server.times[2] - got_429 >= 0.95
