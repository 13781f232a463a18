"""Fault injection for clients' tests: `--faults "500=0.05,drop=0.02,..." --fault-seed N`.

Each request to the interface draws once from a generator seeded with the fault seed, so a
client that sends the same requests in the same order meets the same faults. The admin
endpoints and the OpenAPI document are never hit.

Kinds: `500` and `503` answer that error without doing anything; `slow` delays the real
answer; `drop` closes the connection before doing anything; `truncate` does the work and
cuts the body short; `lost_create` commits a POST and then drops the connection.
"""

from __future__ import annotations

import asyncio
import json
import logging
import random

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from channelkit._constants import SERVICE_FAULT_RETRY_AFTER_SECONDS, SERVICE_FAULT_SLOW_SECONDS
from channelkit.errors import error_body

KINDS = ("500", "503", "slow", "drop", "truncate", "lost_create")
_EXEMPT = ("/v1/admin/", "/v1/openapi.json")


def parse_faults(spec: str) -> dict[str, float]:
    """`"500=0.05,drop=0.02"` -> `{"500": 0.05, "drop": 0.02}`, or ValueError saying why."""
    rates: dict[str, float] = {}
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        kind, sep, value = part.partition("=")
        kind = kind.strip()
        if not sep:
            raise ValueError(f"fault {part!r} needs a rate, e.g. '{kind}=0.05'")
        if kind not in KINDS:
            raise ValueError(f"unknown fault {kind!r}; choose from {', '.join(KINDS)}")
        if kind in rates:
            raise ValueError(f"fault {kind!r} given twice")
        try:
            rate = float(value)
        except ValueError:
            raise ValueError(f"fault {kind!r}: rate {value.strip()!r} is not a number") from None
        if not 0.0 <= rate <= 1.0:
            raise ValueError(f"fault {kind!r}: rate {rate} is not between 0 and 1")
        rates[kind] = rate
    if sum(rates.values()) > 1.0 + 1e-9:
        raise ValueError(f"fault rates add up to {sum(rates.values()):g}, more than 1")
    return rates


class FaultInjector:
    """ASGI middleware misbehaving on purpose, reproducibly.

    app = FaultInjector(router, parse_faults("503=0.1,drop=0.05"), seed=7)
    """

    def __init__(self, app: ASGIApp, rates: dict[str, float], seed: int) -> None:
        self.app = app
        self.rates = rates
        self.random = random.Random(seed)

    def _draw(self) -> str | None:
        roll = self.random.random()
        for kind in KINDS:
            roll -= self.rates.get(kind, 0.0)
            if roll < 0:
                return kind
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(_EXEMPT):
            await self.app(scope, receive, send)
            return
        kind = self._draw()
        if kind in ("500", "503"):
            status = int(kind)
            body = json.dumps(error_body(status, "injected fault; retry later")).encode()
            headers = [(b"content-type", b"application/json")]
            if status == 503:
                headers.append((b"retry-after", str(SERVICE_FAULT_RETRY_AFTER_SECONDS).encode()))
            await send({"type": "http.response.start", "status": status, "headers": headers})
            await send({"type": "http.response.body", "body": body})
            return
        if kind == "drop" or (kind == "lost_create" and scope["method"] == "POST"):
            if kind == "lost_create":
                await self._collect(scope, receive)  # the write happens and commits
            else:
                # read the request first: closing on unread data makes the kernel reset
                # the connection, and the client should see a cut answer, not a reset
                await _drain(receive)
            await _hang_up(send, 0, b"")
            return
        if kind == "slow":
            await asyncio.sleep(SERVICE_FAULT_SLOW_SECONDS)
        if kind != "truncate":
            await self.app(scope, receive, send)
            return
        status, headers, body = await self._collect(scope, receive)
        await _hang_up(send, status, body, headers)

    async def _collect(
        self, scope: Scope, receive: Receive
    ) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
        messages: list[Message] = []

        async def capture(message: Message) -> None:
            messages.append(message)

        await self.app(scope, receive, capture)
        start = next(m for m in messages if m["type"] == "http.response.start")
        body = b"".join(m.get("body", b"") for m in messages if m["type"] == "http.response.body")
        return int(start["status"]), list(start.get("headers", [])), body


async def _drain(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            return


async def _hang_up(
    send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]] | None = None
) -> None:
    """Start a response promising `body`, send half of it, and return: the server then
    closes the connection mid-response, which the client sees as a dropped connection."""
    headers = [(k, v) for k, v in headers or [] if k.lower() != b"content-length"]
    promised = max(len(body), 64)
    headers.append((b"content-length", str(promised).encode()))
    await send({"type": "http.response.start", "status": status or 200, "headers": headers})
    if body:
        await send(
            {"type": "http.response.body", "body": body[: len(body) // 2], "more_body": True}
        )


class QuietHangUps(logging.Filter):
    """Keeps uvicorn from logging an error for every connection dropped on purpose."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "without completing response" not in record.getMessage()
