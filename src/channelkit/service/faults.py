"""Fault injection for clients' tests: `--faults "500=0.05,drop=0.02,..." --fault-seed N`.

Each request to the interface draws once from a generator seeded with the fault seed, so a
client that sends the same requests in the same order meets the same faults. The admin
endpoints and the OpenAPI document are never hit.

Kinds: `500` and `503` answer that error without doing anything; `slow` delays the real
answer; `drop` closes the connection before doing anything; `truncate` does the work and
cuts the body short; `lost_create` commits a POST and then drops the connection.

Misbehaviours seen in real services (docs/api.md has the table): `repeat_cursor`,
`last_cursor` and `empty_page` distort a page of a listing; `429_zero`, `429_date` and
`429_bare` refuse with an odd or missing `Retry-After`; `reset_ahead` and `clock_ahead` report
the rate-limit reset from a clock 10 minutes fast; `html` answers 200 with a web page. The
rate-limit headers are the gate's, added outside this middleware: `HeaderFaults`, wrapped
around the gate, rewrites them for the kinds that misreport them.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import random
from dataclasses import dataclass
from email.utils import formatdate, parsedate_to_datetime
from urllib.parse import parse_qsl, urlencode

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from channelkit._constants import (
    SERVICE_FAULT_CLOCK_AHEAD_SECONDS,
    SERVICE_FAULT_RETRY_AFTER_SECONDS,
    SERVICE_FAULT_SLOW_SECONDS,
)
from channelkit.errors import error_body

# New kinds go last: a seed's draws for the older kinds stay what they were.
KINDS = (
    "500",
    "503",
    "slow",
    "drop",
    "truncate",
    "lost_create",
    "repeat_cursor",
    "last_cursor",
    "empty_page",
    "429_zero",
    "429_date",
    "429_bare",
    "reset_ahead",
    "clock_ahead",
    "html",
)
_PAGE_KINDS = ("repeat_cursor", "last_cursor", "empty_page")
_HEADER_KINDS = ("429_date", "429_bare", "reset_ahead", "clock_ahead")
_EXEMPT = ("/v1/admin/", "/v1/openapi.json")
_RATE_HEADERS = (b"x-ratelimit-", b"retry-after")
_HEADER_FAULT = "channelkit.header_fault"  # scope key: the kind HeaderFaults applies
# Cursors this middleware makes up: "ckfault<n>.<the real cursor, or nothing for page 1>".
_OWN_CURSOR = "ckfault"
_HTML = (
    b"<!DOCTYPE html>\n<html><head><title>Down for maintenance</title></head>"
    b"<body><h1>We'll be back soon</h1></body></html>\n"
)


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
        self._cursors = itertools.count(1)

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
        if kind in _HEADER_KINDS:
            scope[_HEADER_FAULT] = kind  # before the scope is copied below: HeaderFaults reads it
        scope, cursors = _own_cursor_undone(scope)
        canned = _canned(kind)
        if canned is not None:  # answered without doing anything
            await _answer(send, *canned)
            return
        if kind in _PAGE_KINDS:
            status, headers, body = await self._collect(scope, receive)
            if status == 200:
                body = self._distort_page(kind, body, cursors)
            headers = [(k, v) for k, v in headers if k.lower() != b"content-length"]
            await _answer(send, status, [*headers, (b"content-length", b"%d" % len(body))], body)
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

    def _distort_page(self, kind: str, body: bytes, cursors: _Cursors) -> bytes:
        """A listing's page as a misbehaving server would send it; other bodies unchanged."""
        try:
            page = json.loads(body)
        except ValueError:
            return body
        if not isinstance(page, dict) or not {"data", "next_cursor", "has_more"} <= page.keys():
            return body
        # A made-up cursor that leads back to this very request's page when followed.
        again = f"{_OWN_CURSOR}{next(self._cursors)}.{cursors.real or ''}"
        if kind == "repeat_cursor":
            if cursors.sent is None:
                return body  # the first page: no cursor yet to repeat
            page.update(next_cursor=cursors.sent, has_more=True)
        elif kind == "last_cursor":
            if page["has_more"]:
                return body
            page["next_cursor"] = again
        else:  # empty_page: nothing now, "more" behind a cursor that resumes right here
            page.update(data=[], next_cursor=again, has_more=True)
        return json.dumps(page).encode()

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


def _canned(kind: str | None) -> tuple[int, list[tuple[bytes, bytes]], bytes] | None:
    """The answer of a kind that does nothing but answer: status, headers, body."""
    json_type = (b"content-type", b"application/json")
    if kind in ("500", "503"):
        status = int(kind)
        headers = [json_type]
        if status == 503:
            headers.append((b"retry-after", str(SERVICE_FAULT_RETRY_AFTER_SECONDS).encode()))
        body = json.dumps(error_body(status, "injected fault; retry later")).encode()
        return status, headers, body
    if kind in ("429_zero", "429_date", "429_bare"):  # HeaderFaults adds the date, or strips
        headers = [json_type, (b"retry-after", b"0")] if kind == "429_zero" else [json_type]
        message = "injected fault: rate limited; retry later"
        return 429, headers, json.dumps(error_body(429, message)).encode()
    if kind == "html":
        return 200, [(b"content-type", b"text/html; charset=utf-8")], _HTML
    return None


async def _answer(send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


@dataclass(frozen=True)
class _Cursors:
    sent: str | None  # as the client sent it
    real: str | None  # the service's own, which a made-up one stands for


def _own_cursor_undone(scope: Scope) -> tuple[Scope, _Cursors]:
    """The request as the service must see it (a cursor made up here replaced by the real
    one it stands for), and its cursors."""
    query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
    sent = next((value for name, value in query if name == "cursor"), None)
    if sent is None or not sent.startswith(_OWN_CURSOR):
        return scope, _Cursors(sent, sent)
    real = sent.partition(".")[2]
    query = [(n, real if n == "cursor" else v) for n, v in query if n != "cursor" or real]
    rewritten = {**scope, "query_string": urlencode(query).encode("latin-1")}
    return rewritten, _Cursors(sent, real or None)


class HeaderFaults:
    """ASGI middleware around the gate: applies the faults that misreport its headers.

    app = HeaderFaults(Gate(FaultInjector(router, rates, seed), db, limiter, clock=time.time))
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def misreport(message: Message) -> None:
            kind = scope.get(_HEADER_FAULT)
            if kind is not None and message["type"] == "http.response.start":
                message["headers"] = _misreported(kind, list(message.get("headers", [])))
            await send(message)

        await self.app(scope, receive, misreport)


def _misreported(kind: str, headers: list[tuple[bytes, bytes]]) -> list[tuple[bytes, bytes]]:
    """The gate's headers as a server misbehaving in `kind`'s way would send them."""
    if kind == "429_bare":
        return [(k, v) for k, v in headers if not k.lower().startswith(_RATE_HEADERS)]
    date = next((v for k, v in headers if k.lower() == b"date"), None)
    if date is None:
        return headers
    now = parsedate_to_datetime(date.decode()).timestamp()
    if kind == "429_date":
        when = formatdate(now + SERVICE_FAULT_RETRY_AFTER_SECONDS, usegmt=True)
        return [*headers, (b"retry-after", when.encode())]
    ahead = SERVICE_FAULT_CLOCK_AHEAD_SECONDS  # reset_ahead, clock_ahead
    result = []
    for name, value in headers:
        if name.lower() == b"x-ratelimit-reset":
            value = str(int(value) + ahead).encode()
        elif name.lower() == b"date" and kind == "clock_ahead":
            value = formatdate(now + ahead, usegmt=True).encode()
        result.append((name, value))
    return result


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
