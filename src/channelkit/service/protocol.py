"""uvicorn's httptools protocol, guarded against clients that hold the service without a key.

httptools keeps every header byte until the head ends, uvicorn starts no timer before a
first response, and counts connections without capping them. So, per connection: a head
larger than `SERVICE_MAX_HEADER_BYTES` is answered 431 as soon as it is, a request not
complete `SERVICE_REQUEST_TIMEOUT_SECONDS` after it could start is closed, and beyond
`SERVICE_MAX_CONNECTIONS` open ones a new connection is answered 503 and closed.

Each such answer ends in a lingering close: the service sends its answer and a FIN, then
reads and drops what the client still sends for up to `SERVICE_LINGER_SECONDS`. Closing a
socket with unread bytes makes the kernel send a reset, which can destroy the answer before
the client has read it: the client would see "connection reset" instead of the 431.
"""

from __future__ import annotations

import asyncio
import json
import logging

from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

from channelkit._constants import (
    LOGGER_NAME,
    SERVICE_LINGER_SECONDS,
    SERVICE_MAX_CONNECTIONS,
    SERVICE_MAX_HEADER_BYTES,
    SERVICE_REQUEST_TIMEOUT_SECONDS,
)
from channelkit.errors import error_body

log = logging.getLogger(f"{LOGGER_NAME}.service")


def _error_response(status: int, message: str) -> bytes:
    """A whole error response in the spec's format, announcing the close."""
    body = json.dumps(error_body(400 if status != 503 else 500, message)).encode()
    return (
        STATUS_LINE[status]
        + b"content-type: application/json\r\ncontent-length: "
        + str(len(body)).encode()
        + b"\r\nconnection: close\r\n\r\n"
        + body
    )


class GuardedHttpProtocol(HttpToolsProtocol):
    """`uvicorn.Config(app, http=GuardedHttpProtocol)`: the limits above, per connection."""

    max_header_bytes = SERVICE_MAX_HEADER_BYTES
    request_timeout = SERVICE_REQUEST_TIMEOUT_SECONDS
    max_connections = SERVICE_MAX_CONNECTIONS

    _head_bytes = 0
    _in_head = True
    _refused = False
    _lingering = False
    _deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        if len(self.connections) >= self.max_connections:
            self._refused = True
            self.transport = transport
            log.warning("refused a connection: %d already open", len(self.connections))
            self._answer(503, "too many open connections; retry later")
            return
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._refused:
            return
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused or self._lingering or self.transport.is_closing():
            return  # lingering: what the client still sends is read and dropped
        if self._in_head:
            self._head_bytes += len(data)
            if self._deadline is None:  # a keep-alive connection starts its next request
                self._arm()
        super().data_received(data)
        # counted after parsing so that a body sent with the head is not counted as head;
        # httptools then holds at most the limit plus one read (256 KiB)
        if self._in_head and self._head_bytes > self.max_header_bytes:
            if not self.transport.is_closing():
                log.warning(
                    "refused a request whose headers exceed %d bytes", self.max_header_bytes
                )
                self._answer(
                    431,
                    f"request line and headers larger than {self.max_header_bytes} bytes",
                )

    def eof_received(self) -> bool | None:
        if self._refused or self._lingering:
            self.transport.close()  # the client has read the answer and closed its side
            return None
        return super().eof_received()

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._disarm()
        self._in_head, self._head_bytes = True, 0
        super().on_message_complete()

    def _answer(self, status: int, message: str) -> None:
        """Send an error response, then close once the client has read it (lingering)."""
        self._disarm()
        self._lingering = True
        self.transport.write(_error_response(status, message))
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(SERVICE_LINGER_SECONDS, self.transport.close)

    def _arm(self) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(self.request_timeout, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self._lingering or self.transport.is_closing():
            return
        log.warning(
            "closed a connection from %s: no complete request within %g s",
            self.client[0] if self.client else "?",
            self.request_timeout,
        )
        if self._in_head:
            self._answer(408, f"no complete request within {self.request_timeout:g} s")
        else:  # the application is reading the body: it sees a disconnect
            self.transport.close()
