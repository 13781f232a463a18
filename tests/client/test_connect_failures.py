"""Connections that fail, over real sockets: a wrong address fails fast with its reason; only
a refused or reset connection to a host that resolves is retried for the patience budget,
and the waiting the stats report is real time."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import channelkit as ck
from channelkit.service import LocalService

KEY = "ck_test"  # never reaches a service
FAST = 2.0  # seconds within which a hopeless address must fail (issue 23.5)


def _call(kind: str, base_url: str, **options: Any) -> Callable[[], Any]:
    """One `posts.retrieve` through `Client` or `AsyncClient`, with a long budget."""
    options.setdefault("connection_retry_budget", 60)

    def sync() -> Any:
        with ck.Client(base_url, KEY, **options) as client:
            return client.posts.retrieve("post_1")

    async def run_async() -> Any:
        async with ck.AsyncClient(base_url, KEY, **options) as client:
            return await client.posts.retrieve("post_1")

    return sync if kind == "sync" else lambda: asyncio.run(run_async())


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 where nothing listens (connections are refused)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    sock.close()
    yield port


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_host_that_does_not_resolve_fails_at_once_naming_it(kind: str) -> None:
    started = time.monotonic()
    with pytest.raises(ck.APIConnectionError) as caught:
        _call(kind, "http://channelkit.invalid/v1")()
    assert time.monotonic() - started < FAST
    assert "the host 'channelkit.invalid' does not resolve" in str(caught.value)
    assert "check the base URL" in str(caught.value)


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_https_against_the_plain_http_port_says_so_at_once(
    kind: str, service: LocalService
) -> None:
    url = service.base_url.replace("http://", "https://")
    started = time.monotonic()
    with pytest.raises(ck.APIConnectionError, match="speaks plain HTTP, use http://"):
        _call(kind, url)()
    assert time.monotonic() - started < FAST


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_refused_connection_is_retried_for_the_budget(kind: str, closed_port: int) -> None:
    started = time.monotonic()
    with pytest.raises(ck.APIConnectionError, match="connection_retry_budget is 1.5 s"):
        _call(kind, f"http://127.0.0.1:{closed_port}/v1", connection_retry_budget=1.5)()
    assert time.monotonic() - started >= 1.5


def test_waiting_of_threads_at_once_is_counted_once(closed_port: int) -> None:
    """Four threads wait out the same refused minute (here 1.5 s): the stats count the
    time something waited, never more than the run lasted."""
    with ck.Client(
        f"http://127.0.0.1:{closed_port}/v1", KEY, connection_retry_budget=1.5
    ) as client:
        failures: list[BaseException] = []

        def one() -> None:
            try:
                client.posts.retrieve("post_1")
            except ck.APIConnectionError as exc:
                failures.append(exc)

        threads = [threading.Thread(target=one) for _ in range(4)]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started
        assert len(failures) == 4
        waited = client.stats.wait_seconds
    assert 1.0 < waited <= elapsed
