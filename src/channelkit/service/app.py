"""The ASGI application: routes of the interface under /v1, in the spec's error format."""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Match, Route
from starlette.types import ASGIApp

from channelkit._constants import LOGGER_NAME, SERVICE_MAX_REQUEST_BYTES
from channelkit._spec import PRIORITIES, RATE_WINDOW_SECONDS, VISIBILITIES
from channelkit.service import analytics, channels, idempotency, posts
from channelkit.service.cursor import CursorCodec
from channelkit.service.db import Database
from channelkit.service.errors import ApiError, error_body
from channelkit.service.faults import FaultInjector
from channelkit.service.gate import PRINCIPAL, Gate
from channelkit.service.models import (
    ChannelCreate,
    ChannelUpdate,
    ClockAdvance,
    PostCreate,
    PostUpdate,
    parse_body,
)
from channelkit.service.openapi import openapi_document
from channelkit.service.params import Query
from channelkit.service.ratelimit import FixedWindowLimiter
from channelkit.service.timefmt import format_instant
from channelkit.service.workspace import Principal

log = logging.getLogger(f"{LOGGER_NAME}.service")


@dataclass(frozen=True)
class Settings:
    """How one service instance behaves beyond its data.

    Settings(rate_window=2.0, admin=True, faults={"503": 0.1}, fault_seed=7)
    """

    rate_window: float = RATE_WINDOW_SECONDS
    admin: bool = False
    faults: dict[str, float] = field(default_factory=dict)
    fault_seed: int = 0


def json_response(status: int, payload: Any) -> Response:
    return Response(_dumps(payload), status_code=status, media_type="application/json")


def _dumps(payload: Any) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def _page(items: list[dict[str, Any]], cursor: str | None) -> dict[str, Any]:
    return {"data": items, "next_cursor": cursor, "has_more": cursor is not None}


def _raw_page(items: list[str], cursor: str | None) -> Response:
    """A page whose items are JSON texts already."""
    tail = _dumps({"next_cursor": cursor, "has_more": cursor is not None})
    body = b'{"data":[' + ",".join(items).encode() + b"]," + tail[1:]
    return Response(body, 200, media_type="application/json")


Handler = Callable[[Request, Principal], Awaitable[Response]]


def _guarded(scope: str, handler: Handler) -> Callable[[Request], Awaitable[Response]]:
    """Check the key's scope, run the handler, and turn every failure into the error body."""

    async def endpoint(request: Request) -> Response:
        try:
            principal: Principal = request.scope[PRINCIPAL]
            if scope not in principal.scopes:
                raise ApiError(403, f"this API key lacks the {scope!r} scope")
            return await handler(request, principal)
        except ApiError as exc:
            return json_response(exc.status, exc.body())
        except Exception:
            log.exception("unexpected error in %s %s", request.method, request.url.path)
            return json_response(500, error_body(500, "internal error; retry later"))

    return endpoint


async def _read_body(request: Request) -> bytes:
    content_type = request.headers.get("content-type", "application/json")
    if content_type.split(";")[0].strip().lower() not in ("application/json", ""):
        raise ApiError(400, f"Content-Type must be application/json, not {content_type!r}")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > SERVICE_MAX_REQUEST_BYTES:
        raise ApiError(400, f"request body larger than {SERVICE_MAX_REQUEST_BYTES} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():  # stop reading as soon as it is too much
        size += len(chunk)
        if size > SERVICE_MAX_REQUEST_BYTES:
            raise ApiError(400, f"request body larger than {SERVICE_MAX_REQUEST_BYTES} bytes")
        chunks.append(chunk)
    return b"".join(chunks)


def create_app(db: Database, settings: Settings | None = None) -> ASGIApp:
    """The service as an ASGI app over `db`.

    app = create_app(Database.open(":memory:"), Settings(rate_window=2.0))
    uvicorn.run(app, port=8000)
    """
    settings = settings or Settings()
    codec = CursorCodec(db.secret)

    async def write(
        request: Request,
        principal: Principal,
        status: int,
        operation: Callable[[sqlite3.Connection, bytes, float], dict[str, Any] | None],
    ) -> Response:
        """Run a write in one transaction; POSTs honour Idempotency-Key inside it."""
        key = None
        if request.method == "POST":
            key = idempotency.check_key(request.headers.get(idempotency.HEADER))
        raw = await _read_body(request) if request.method != "DELETE" else b""
        print_ = idempotency.fingerprint(request.method, request.url.path, raw)
        with db.transaction() as con:
            now = db.now()
            posts.publish_due(con, now)
            if key is not None:
                stored = idempotency.replay(con, principal.key_seq, key, print_, now)
                if stored is not None:
                    response = Response(stored[1], stored[0], media_type="application/json")
                    response.headers["Idempotent-Replayed"] = "true"
                    return response
            result = operation(con, raw, now)
            body = b"" if result is None else _dumps(result)
            if key is not None:
                idempotency.remember(con, principal.key_seq, key, print_, status, body, now)
        if result is None:
            return Response(status_code=status)
        return Response(body, status, media_type="application/json")

    # --- posts -----------------------------------------------------------------------------
    async def list_posts(request: Request, principal: Principal) -> Response:
        q = Query(request.query_params.multi_items(), {*posts.FILTER_CLAUSES, "limit", "cursor"})
        filters: dict[str, Any] = {}
        for name in ("channel_id", "author_id", "tag"):
            if (value := q.text(name)) is not None:
                filters[name] = value
        if (priority := q.choice("priority", PRIORITIES)) is not None:
            filters["priority"] = priority
        for name in ("published_after", "published_before"):
            if (instant := q.instant(name)) is not None:
                filters[name] = instant
        limit = q.limit()
        cursor = q.text("cursor")
        position = None if cursor is None else codec.decode(cursor, "posts", q.filters())[0]
        with db.reading() as con:
            now = db.now()
            posts.publish_due(con, now)
            items, last = posts.list_posts(
                con, principal, filters, before_seq=position, limit=limit, now=now
            )
        token = None if last is None else codec.encode("posts", q.filters(), [last])
        return _raw_page(items, token)

    async def create_post(request: Request, principal: Principal) -> Response:
        def op(con: sqlite3.Connection, raw: bytes, now: float) -> dict[str, Any]:
            return posts.create_post(con, principal, parse_body(PostCreate, raw), now)

        return await write(request, principal, 201, op)

    async def get_post(request: Request, principal: Principal) -> Response:
        with db.reading() as con:
            now = db.now()
            posts.publish_due(con, now)
            post = posts.get_post(con, principal, request.path_params["id"], now)
        return json_response(200, post)

    async def update_post(request: Request, principal: Principal) -> Response:
        def op(con: sqlite3.Connection, raw: bytes, now: float) -> dict[str, Any]:
            data = parse_body(PostUpdate, raw)
            return posts.update_post(con, principal, request.path_params["id"], data, now)

        return await write(request, principal, 200, op)

    async def delete_post(request: Request, principal: Principal) -> Response:
        def op(con: sqlite3.Connection, raw: bytes, now: float) -> None:
            posts.delete_post(con, principal, request.path_params["id"])

        return await write(request, principal, 204, op)

    # --- channels --------------------------------------------------------------------------
    async def list_channels(request: Request, principal: Principal) -> Response:
        q = Query(request.query_params.multi_items(), {"visibility", "limit", "cursor"})
        visibility = q.choice("visibility", VISIBILITIES)
        limit = q.limit()
        cursor = q.text("cursor")
        position = None if cursor is None else codec.decode(cursor, "channels", q.filters())[0]
        with db.reading() as con:
            items, last = channels.list_channels(
                con, principal, visibility=visibility, after_seq=position, limit=limit, now=db.now()
            )
        token = None if last is None else codec.encode("channels", q.filters(), [last])
        return json_response(200, _page(items, token))

    async def create_channel(request: Request, principal: Principal) -> Response:
        def op(con: sqlite3.Connection, raw: bytes, now: float) -> dict[str, Any]:
            return channels.create_channel(con, principal, parse_body(ChannelCreate, raw), now)

        return await write(request, principal, 201, op)

    async def get_channel(request: Request, principal: Principal) -> Response:
        with db.reading() as con:
            channel = channels.get_channel(con, principal, request.path_params["id"], db.now())
        return json_response(200, channel)

    async def update_channel(request: Request, principal: Principal) -> Response:
        def op(con: sqlite3.Connection, raw: bytes, now: float) -> dict[str, Any]:
            data = parse_body(ChannelUpdate, raw)
            return channels.update_channel(con, principal, request.path_params["id"], data, now)

        return await write(request, principal, 200, op)

    async def delete_channel(request: Request, principal: Principal) -> Response:
        def op(con: sqlite3.Connection, raw: bytes, now: float) -> None:
            channels.delete_channel(con, principal, request.path_params["id"])

        return await write(request, principal, 204, op)

    # --- analytics -------------------------------------------------------------------------
    def _range(q: Query) -> tuple[int | None, int | None]:
        start, end = q.day("start"), q.day("end", round_up=True)
        if start is not None and end is not None and end <= start:
            raise ApiError(400, "end: must be after start (end is exclusive)", param="end")
        return start, end

    async def post_analytics(request: Request, principal: Principal) -> Response:
        names = {"post_id", "channel_id", "start", "end", "limit", "cursor"}
        q = Query(request.query_params.multi_items(), names)
        start, end = _range(q)
        post_id, channel_id, limit = q.text("post_id"), q.text("channel_id"), q.limit()
        cursor = q.text("cursor")
        after = None if cursor is None else codec.decode(cursor, "post-days", q.filters())
        with db.reading() as con:
            now = db.now()
            posts.publish_due(con, now)
            items, last = analytics.post_rows(
                con, principal, post_id=post_id, channel_id=channel_id, start=start, end=end,
                after=after, limit=limit, now=now,
            )  # fmt: skip
        token = None if last is None else codec.encode("post-days", q.filters(), last)
        return json_response(200, _page(items, token))

    async def channel_analytics(request: Request, principal: Principal) -> Response:
        q = Query(
            request.query_params.multi_items(), {"channel_id", "start", "end", "limit", "cursor"}
        )
        start, end = _range(q)
        channel_id, limit = q.text("channel_id"), q.limit()
        cursor = q.text("cursor")
        after = None if cursor is None else codec.decode(cursor, "channel-days", q.filters())
        with db.reading() as con:
            now = db.now()
            posts.publish_due(con, now)
            items, last = analytics.channel_rows(
                con, principal, channel_id=channel_id, start=start, end=end, after=after,
                limit=limit, now=now,
            )  # fmt: skip
        token = None if last is None else codec.encode("channel-days", q.filters(), last)
        return json_response(200, _page(items, token))

    # --- admin -----------------------------------------------------------------------------
    async def clock(request: Request) -> Response:
        try:
            if request.method == "POST":
                data = parse_body(ClockAdvance, await _read_body(request))
                db.advance_clock(data.seconds)
            return json_response(200, {"now": format_instant(int(db.now()))})
        except ApiError as exc:
            return json_response(exc.status, exc.body())

    async def openapi(request: Request) -> Response:
        document = openapi_document()
        document["servers"] = [{"url": str(request.base_url).rstrip("/") + "/v1"}]
        return json_response(200, document)

    routes = [
        Route("/v1/openapi.json", openapi, methods=["GET"]),
        Route("/v1/posts", _guarded("posts:read", list_posts), methods=["GET"]),
        Route("/v1/posts", _guarded("posts:write", create_post), methods=["POST"]),
        Route("/v1/posts/{id}", _guarded("posts:read", get_post), methods=["GET"]),
        Route("/v1/posts/{id}", _guarded("posts:write", update_post), methods=["PATCH"]),
        Route("/v1/posts/{id}", _guarded("posts:write", delete_post), methods=["DELETE"]),
        Route("/v1/channels", _guarded("channels:read", list_channels), methods=["GET"]),
        Route("/v1/channels", _guarded("channels:write", create_channel), methods=["POST"]),
        Route("/v1/channels/{id}", _guarded("channels:read", get_channel), methods=["GET"]),
        Route("/v1/channels/{id}", _guarded("channels:write", update_channel), methods=["PATCH"]),
        Route("/v1/channels/{id}", _guarded("channels:write", delete_channel), methods=["DELETE"]),
        Route("/v1/analytics/posts", _guarded("analytics:read", post_analytics), methods=["GET"]),
        Route(
            "/v1/analytics/channels",
            _guarded("analytics:read", channel_analytics),
            methods=["GET"],
        ),
    ]
    if settings.admin:
        routes.append(Route("/v1/admin/clock", clock, methods=["GET", "POST"]))

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 405:
            message = f"method {request.method} is not allowed on {request.url.path}"
            allowed = sorted(
                {
                    m
                    for r in routes
                    if r.matches(request.scope)[0] != Match.NONE
                    for m in r.methods or ()
                }
            )
            response = json_response(405, error_body(400, message))
            response.headers["Allow"] = ", ".join(allowed)
            return response
        if exc.status_code == 404:
            return json_response(404, error_body(404, f"no such endpoint: {request.url.path}"))
        return json_response(exc.status_code, error_body(400, str(exc.detail)))

    router = Starlette(routes=routes, exception_handlers={HTTPException: http_error})
    app: ASGIApp = router
    if settings.faults:
        app = FaultInjector(router, settings.faults, settings.fault_seed)
    return Gate(app, db, FixedWindowLimiter(settings.rate_window), clock=time.time)
