"""The ASGI layer in front of every route: authentication, then the rate limit.

The key is checked first, so a bad key always gets its 401 (counted against the client
address's Starter bucket, never turned into a 429). Every response, errors included,
carries the three `X-RateLimit-*` headers.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from email.utils import formatdate

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from channelkit._spec import PLAN_LIMITS
from channelkit.errors import error_body
from channelkit.service.db import Database
from channelkit.service.ratelimit import FixedWindowLimiter
from channelkit.service.workspace import Principal, authenticate

PRINCIPAL = "channelkit.principal"
_PUBLIC = ("/v1/openapi.json", "/v1/admin/")
_TWO_KEYS = "send one Authorization header, not several"


class Gate:
    """ASGI middleware: puts the request's `Principal` in `scope[PRINCIPAL]` or answers 401/429.

    app = Gate(router, db, FixedWindowLimiter(60.0), clock=time.time)
    """

    def __init__(
        self, app: ASGIApp, db: Database, limiter: FixedWindowLimiter, clock: Callable[[], float]
    ) -> None:
        self.app = app
        self.db = db
        self.limiter = limiter
        self.clock = clock

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path: str = scope["path"]
        needs_key = path.startswith("/v1/") and not path.startswith(_PUBLIC)
        problem, principal = self._identify(scope)
        now = self.clock()
        if principal is not None:
            quota = self.limiter.hit(
                ("key", principal.key_seq), limit=PLAN_LIMITS[principal.plan], now=now
            )
        else:
            client = scope.get("client")
            address = client[0] if client else "unknown"
            quota = self.limiter.hit(
                ("address", address),
                limit=PLAN_LIMITS["starter"],
                now=now,
                refusable=not (needs_key and problem is not None),
            )
        # Date and X-RateLimit-Reset follow the service's clock together (it moves with
        # advance_clock), so a client that reads the service's time from Date, as the
        # publishing lead-time check does, also reads the reset instant right.
        shift = self.db.clock_offset
        extra = [
            *quota.headers(shift=shift),
            (b"date", formatdate(now + shift, usegmt=True).encode()),
        ]
        if needs_key and problem is not None:
            status = 400 if problem == _TWO_KEYS else 401
            await _send_error(send, status, problem, extra)
            return
        if not quota.allowed:
            message = (
                f"rate limit of {quota.limit} requests per window exceeded; "
                f"retry after {quota.retry_after} s"
            )
            await _send_error(send, 429, message, extra)
            return
        scope[PRINCIPAL] = principal

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)

    def _identify(self, scope: Scope) -> tuple[str | None, Principal | None]:
        """(problem, principal): exactly one of them is None."""
        headers = [value for name, value in scope["headers"] if name == b"authorization"]
        if len(headers) > 1:
            # a proxy that reads another of them would act for another key than we do
            return _TWO_KEYS, None
        if not headers:
            return "missing Authorization header; send 'Authorization: Bearer <API_KEY>'", None
        scheme, _, token = headers[0].decode("latin-1").strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return "Authorization header must be 'Bearer <API_KEY>'", None
        with self.db.lock:
            principal = authenticate(self.db.con, token.strip())
        if principal is None:
            return "API key is invalid or has been revoked", None
        return None, principal


async def _send_error(
    send: Send, status: int, message: str, extra: list[tuple[bytes, bytes]]
) -> None:
    param = "Authorization" if status == 400 else None
    body = json.dumps(error_body(status, message, param)).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        *extra,
    ]
    if status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="channelkit"'))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
