"""Clients without a key that try to hold the service, over real sockets: oversized heads,
requests never completed, too many connections, a body cut short."""

from __future__ import annotations

import logging
import select
import socket
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest

from channelkit.service import LocalService
from channelkit.service.protocol import GuardedHttpProtocol


def _address(service: LocalService) -> tuple[str, int]:
    url = urlsplit(service.base_url)
    assert url.hostname is not None and url.port is not None
    return url.hostname, url.port


def _connect(service: LocalService) -> socket.socket:
    sock = socket.create_connection(_address(service), timeout=10)
    return sock


def _read_all(sock: socket.socket) -> bytes:
    """Everything the service sends until it closes the connection."""
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.fixture
def short_timeout(monkeypatch: pytest.MonkeyPatch) -> Iterator[float]:
    monkeypatch.setattr(GuardedHttpProtocol, "request_timeout", 0.5)
    yield 0.5


def test_an_oversized_head_is_refused_while_it_is_still_coming(service: LocalService) -> None:
    """uvicorn alone buffered a 100 MB header to the end; now the answer comes as soon as
    the head passes the limit."""
    sock = _connect(service)
    sock.sendall(b"GET /v1/posts HTTP/1.1\r\nHost: x\r\nX-Big: ")
    sent, answered = 0, False
    try:
        while sent < 50_000_000 and not answered:
            sock.sendall(b"a" * 16384)
            sent += 16384
            answered = bool(select.select([sock], [], [], 0)[0])
    except (BrokenPipeError, ConnectionResetError):
        answered = True
    answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:100]
    assert b'"invalid_request"' in answer and b"larger than 65536 bytes" in answer
    assert sent < 8_000_000  # what the kernel buffers on both sides hold, not the service
    sock.close()
    # the service goes on serving
    other = _connect(service)
    other.sendall(b"GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert _read_all(other).startswith(b"HTTP/1.1 200 ")


def test_a_large_but_allowed_head_with_its_body_passes(
    service: LocalService, admin_key: str
) -> None:
    """The head is counted apart from the body sent in the same packets."""
    body = b'{"name": "Big", "description": "' + b"x" * 900_000 + b'"}'
    sock = _connect(service)
    sock.sendall(
        b"POST /v1/channels HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"p" * 60_000 + b"\r\n"
        b"Authorization: Bearer " + admin_key.encode() + b"\r\n"
        b"Content-Type: application/json\r\nConnection: close\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body
    )
    answer = _read_all(sock)
    # refused for its description (at most 1000 characters), not for its size
    assert answer.startswith(b"HTTP/1.1 400 ") and b'"param":"description"' in answer


@pytest.mark.parametrize(
    "sent",
    [b"", b"GET /v1/posts HTTP/1.1\r\nHost: x\r\n", b"GET /v1/po"],
    ids=["nothing", "head-unfinished", "request-line-unfinished"],
)
def test_a_request_never_completed_is_closed_after_the_timeout(
    short_timeout: float, service: LocalService, sent: bytes
) -> None:
    sock = _connect(service)
    sock.sendall(sent)
    started = time.monotonic()
    answer = _read_all(sock)  # returns only when the service closes
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:100]
    assert time.monotonic() - started < 10  # the socket's own timeout would raise instead


def test_a_keep_alive_connection_gets_a_new_deadline_per_request(
    short_timeout: float, service: LocalService
) -> None:
    sock = _connect(service)
    request = b"GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\n\r\n"
    for _ in range(3):  # each well within its deadline, together longer than one
        time.sleep(short_timeout / 2)
        sock.sendall(request)
        head = sock.recv(65536)
        assert head.startswith(b"HTTP/1.1 200 ")
        length = int(head.split(b"content-length: ")[1].split(b"\r\n")[0])
        got = len(head.split(b"\r\n\r\n", 1)[1])
        while got < length:
            got += len(sock.recv(65536))
    sock.close()


def test_open_connections_are_capped(
    monkeypatch: pytest.MonkeyPatch, service: LocalService
) -> None:
    monkeypatch.setattr(GuardedHttpProtocol, "max_connections", 20)
    idle = [_connect(service) for _ in range(20)]
    time.sleep(0.2)  # let the service accept them all
    extra = _connect(service)
    answer = _read_all(extra)
    assert answer.startswith(b"HTTP/1.1 503 "), answer[:100]
    assert b"too many open connections" in answer
    for sock in idle[:5]:
        sock.close()
    time.sleep(0.2)
    again = _connect(service)
    again.sendall(b"GET /v1/openapi.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert _read_all(again).startswith(b"HTTP/1.1 200 ")
    for sock in [*idle[5:], extra, again]:
        sock.close()


def test_a_client_leaving_mid_body_is_one_log_line(
    service: LocalService, admin_key: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    sock = _connect(service)
    sock.sendall(
        b"POST /v1/channels HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Authorization: Bearer " + admin_key.encode() + b"\r\nContent-Length: 1000\r\n\r\n"
        b'{"name": "'
    )
    time.sleep(0.2)
    sock.close()
    deadline = time.monotonic() + 5
    while not caplog.records and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)  # anything logged after the first line
    lines = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert [r.getMessage() for r in lines] == [
        "client disconnected before sending the whole body of POST /v1/channels"
    ]
    assert lines[0].exc_info is None
    assert admin_key not in caplog.text
