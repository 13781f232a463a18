"""The ASGI application: the contract's operations under /v1, in the spec's error format.

Each operation of `channelkit._spec.OPERATIONS` is served by the module-level handler
named in `HANDLERS`; `create_app` only wires them to one database.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Route
from starlette.types import ASGIApp

from channelkit import _spec
from channelkit._constants import LOGGER_NAME, SERVICE_MAX_REQUEST_BYTES
from channelkit.errors import ServiceHTTPError, error_body
from channelkit.service import analytics, channels, idempotency, posts
from channelkit.service.cursor import CursorCodec
from channelkit.service.db import Database
from channelkit.service.faults import FaultInjector, HeaderFaults
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
from channelkit.service.params import QueryParams
from channelkit.service.ratelimit import FixedWindowLimiter
from channelkit.service.timefmt import format_instant
from channelkit.service.workspace import Principal

log = logging.getLogger(f"{LOGGER_NAME}.service")


@dataclass(frozen=True)
class Settings:
    """How one service instance behaves beyond its data.

    Settings(rate_window=2.0, admin=True, faults={"503": 0.1}, fault_seed=7)
    """

    rate_window: float = _spec.RATE_WINDOW_SECONDS
    admin: bool = False
    faults: dict[str, float] = field(default_factory=dict)
    fault_seed: int = 0


@dataclass(frozen=True)
class Context:
    """What every handler works with: the database and the cursor codec."""

    db: Database
    codec: CursorCodec


def _dumps(payload: Any) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def json_response(status: int, payload: Any) -> Response:
    return Response(_dumps(payload), status_code=status, media_type="application/json")


def etag_of(body: bytes) -> str:
    """A strong validator of a representation: equal bodies, equal tags."""
    return '"' + hashlib.sha256(body).hexdigest()[:32] + '"'


def _item_response(status: int, body: bytes) -> Response:
    response = Response(body, status, media_type="application/json")
    response.headers[_spec.ETAG_HEADER] = etag_of(body)
    return response


def _page(items: list[dict[str, Any]], cursor: str | None) -> Response:
    return json_response(
        200, {"data": items, "next_cursor": cursor, "has_more": cursor is not None}
    )


def _raw_page(items: list[str], cursor: str | None) -> Response:
    """A page whose items are JSON texts already."""
    tail = _dumps({"next_cursor": cursor, "has_more": cursor is not None})
    body = b'{"data":[' + ",".join(items).encode() + b"]," + tail[1:]
    return Response(body, 200, media_type="application/json")


async def _read_body(request: Request) -> bytes:
    content_type = request.headers.get("content-type", "application/json")
    if content_type.split(";")[0].strip().lower() not in ("application/json", ""):
        raise ServiceHTTPError(400, f"Content-Type must be application/json, not {content_type!r}")
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > SERVICE_MAX_REQUEST_BYTES:
        raise ServiceHTTPError(400, f"request body larger than {SERVICE_MAX_REQUEST_BYTES} bytes")
    chunks, size = [], 0
    async for chunk in request.stream():  # stop reading as soon as it is too much
        size += len(chunk)
        if size > SERVICE_MAX_REQUEST_BYTES:
            raise ServiceHTTPError(
                400, f"request body larger than {SERVICE_MAX_REQUEST_BYTES} bytes"
            )
        chunks.append(chunk)
    return b"".join(chunks)


@contextmanager
def _settled_read(db: Database) -> Iterator[tuple[sqlite3.Connection, float]]:
    """A read transaction in which no scheduled post is overdue: due posts are published
    first, in a write transaction of their own (reads never write)."""
    with db.lock:
        now = db.now()
        if posts.any_due(db.con, now):
            with db.transaction() as con:
                posts.publish_due(con, now)
        with db.reading() as con:
            yield con, now


def _filter(q: QueryParams, name: str) -> str | int | None:
    """One query parameter, checked as the contract's kind for it says."""
    kind = _spec.QUERY_PARAMETERS[name][0]
    if kind == "instant":
        return q.instant(name)
    if kind == "priority":
        return q.choice(name, _spec.PRIORITIES)
    return q.text(name)


def _position(ctx: Context, q: QueryParams, kind: str) -> list[int] | None:
    cursor = q.text("cursor")
    return None if cursor is None else ctx.codec.decode(cursor, kind, q.filters())


def _token(ctx: Context, q: QueryParams, kind: str, last: list[int] | None) -> str | None:
    return None if last is None else ctx.codec.encode(kind, q.filters(), last)


# --- reads ----------------------------------------------------------------------------------
async def list_posts(
    ctx: Context, op: _spec.Operation, request: Request, who: Principal
) -> Response:
    q = QueryParams(request.query_params.multi_items(), op.query)
    filters = {
        name: value for name in _spec.POST_FILTERS if (value := _filter(q, name)) is not None
    }
    limit, position = q.limit(), _position(ctx, q, "posts")
    with _settled_read(ctx.db) as (con, now):
        before = None if position is None else position[0]
        items, last = posts.list_posts(con, who, filters, before_seq=before, limit=limit, now=now)
    return _raw_page(items, _token(ctx, q, "posts", None if last is None else [last]))


async def list_channels(
    ctx: Context, op: _spec.Operation, request: Request, who: Principal
) -> Response:
    q = QueryParams(request.query_params.multi_items(), op.query)
    visibility = q.choice("visibility", _spec.VISIBILITIES)
    limit, position = q.limit(), _position(ctx, q, "channels")
    with ctx.db.reading() as con:
        items, last = channels.list_channels(
            con, who, visibility=visibility, after_seq=None if position is None else position[0],
            limit=limit, now=ctx.db.now(),
        )  # fmt: skip
    return _page(items, _token(ctx, q, "channels", None if last is None else [last]))


async def get_post(ctx: Context, op: _spec.Operation, request: Request, who: Principal) -> Response:
    with _settled_read(ctx.db) as (con, now):
        post = posts.get_post(con, who, request.path_params["id"], now)
    return _item_response(200, _dumps(post))


async def get_channel(
    ctx: Context, op: _spec.Operation, request: Request, who: Principal
) -> Response:
    with ctx.db.reading() as con:
        channel = channels.get_channel(con, who, request.path_params["id"], ctx.db.now())
    return _item_response(200, _dumps(channel))


def _day_range(q: QueryParams) -> tuple[int | None, int | None]:
    start, end = q.day("start"), q.day("end", round_up=True)
    if start is not None and end is not None and end <= start:
        raise ServiceHTTPError(400, "end: must be after start (end is exclusive)", param="end")
    return start, end


async def post_analytics(
    ctx: Context, op: _spec.Operation, request: Request, who: Principal
) -> Response:
    q = QueryParams(request.query_params.multi_items(), op.query)
    start, end = _day_range(q)
    post_id, channel_id, limit = q.text("post_id"), q.text("channel_id"), q.limit()
    after = _position(ctx, q, "post-days")
    with _settled_read(ctx.db) as (con, now):
        items, last = analytics.post_rows(
            con, who, post_id=post_id, channel_id=channel_id, start=start, end=end,
            after=after, limit=limit, now=now,
        )  # fmt: skip
    return _page(items, _token(ctx, q, "post-days", last))


async def channel_analytics(
    ctx: Context, op: _spec.Operation, request: Request, who: Principal
) -> Response:
    q = QueryParams(request.query_params.multi_items(), op.query)
    start, end = _day_range(q)
    channel_id, limit = q.text("channel_id"), q.limit()
    after = _position(ctx, q, "channel-days")
    with _settled_read(ctx.db) as (con, now):
        items, last = analytics.channel_rows(
            con, who, channel_id=channel_id, start=start, end=end, after=after,
            limit=limit, now=now,
        )  # fmt: skip
    return _page(items, _token(ctx, q, "channel-days", last))


# --- writes ---------------------------------------------------------------------------------
# (connection, principal, item id or None, raw body, now) -> the resource, or None (204)
Write = Callable[[sqlite3.Connection, Principal, str, bytes, float], dict[str, Any] | None]

WRITES: dict[str, Write] = {
    "createPost": lambda con, who, _, raw, now: posts.create_post(
        con, who, parse_body(PostCreate, raw), now
    ),
    "updatePost": lambda con, who, item, raw, now: posts.update_post(
        con, who, item, parse_body(PostUpdate, raw), now
    ),
    "deletePost": lambda con, who, item, raw, now: posts.delete_post(con, who, item),
    "createChannel": lambda con, who, _, raw, now: channels.create_channel(
        con, who, parse_body(ChannelCreate, raw), now
    ),
    "updateChannel": lambda con, who, item, raw, now: channels.update_channel(
        con, who, item, parse_body(ChannelUpdate, raw), now
    ),
    "deleteChannel": lambda con, who, item, raw, now: channels.delete_channel(con, who, item),
}

# resource -> its current representation, as a GET would show it (for If-Match)
CURRENT: dict[str, Callable[[sqlite3.Connection, Principal, str, float], dict[str, Any]]] = {
    "posts": posts.get_post,
    "channels": channels.get_channel,
}


def _check_if_match(
    con: sqlite3.Connection, op: _spec.Operation, who: Principal, item: str, header: str, now: float
) -> None:
    """409 unless the resource's current ETag is among `header`'s (strong comparison)."""
    assert op.item is not None
    current = etag_of(_dumps(CURRENT[op.item](con, who, item, now)))
    tags = [tag.strip() for tag in header.split(",")]
    if "*" not in tags and current not in tags:
        raise ServiceHTTPError(
            409,
            f"{_spec.IF_MATCH_HEADER}: the {op.item[:-1]} changed since you read it"
            f" (its ETag is now {current}); read it again and reapply your change",
            param=_spec.IF_MATCH_HEADER,
        )


async def write(ctx: Context, op: _spec.Operation, request: Request, who: Principal) -> Response:
    """Run a write in one transaction; POSTs honour Idempotency-Key, PATCH and DELETE
    If-Match, inside it."""
    key = None
    if op.method == "POST":
        key = idempotency.check_key(request.headers.get(idempotency.HEADER))
    raw = await _read_body(request) if op.method != "DELETE" else b""
    print_ = idempotency.request_meaning(op.method, request.url.path, raw)
    item = request.path_params.get("id", "")
    if_match = request.headers.get(_spec.IF_MATCH_HEADER)
    with ctx.db.transaction() as con:
        now = ctx.db.now()
        posts.publish_due(con, now)
        if key is not None:
            stored = idempotency.replay(con, who, key, print_, now)
            if stored is not None:
                response = _item_response(stored[0], stored[1])
                response.headers[_spec.IDEMPOTENT_REPLAYED_HEADER] = "true"
                return response
        if if_match is not None and op.method in ("PATCH", "DELETE"):
            _check_if_match(con, op, who, item, if_match, now)
        result = WRITES[op.id](con, who, item, raw, now)
        body = b"" if result is None else _dumps(result)
        if key is not None:
            made = None if result is None else result.get("id")
            idempotency.remember(con, who, key, print_, op.status, body, made, now)
    if result is None:
        return Response(status_code=op.status)
    return _item_response(op.status, body)


Handler = Callable[[Context, _spec.Operation, Request, Principal], Awaitable[Response]]

HANDLERS: dict[str, Handler] = {
    "listPosts": list_posts,
    "createPost": write,
    "getPost": get_post,
    "updatePost": write,
    "deletePost": write,
    "listChannels": list_channels,
    "createChannel": write,
    "getChannel": get_channel,
    "updateChannel": write,
    "deleteChannel": write,
    "listPostAnalytics": post_analytics,
    "listChannelAnalytics": channel_analytics,
}


def _endpoint(ctx: Context, op: _spec.Operation) -> Callable[[Request], Awaitable[Response]]:
    """Check the key's scope, run the operation's handler, and turn every failure into
    the error body."""
    handler = HANDLERS[op.id]

    async def endpoint(request: Request) -> Response:
        try:
            principal: Principal = request.scope[PRINCIPAL]
            if op.scope not in principal.scopes:
                raise ServiceHTTPError(403, f"this API key lacks the {op.scope!r} scope")
            return await handler(ctx, op, request, principal)
        except ServiceHTTPError as exc:
            return json_response(exc.status, exc.body())
        except ClientDisconnect:  # nobody is left to answer; nothing was written
            log.warning("client disconnected before sending the whole body of %s %s",
                        request.method, request.url.path)  # fmt: skip
            return Response(status_code=400)
        except Exception:
            log.exception("unexpected error in %s %s", request.method, request.url.path)
            return json_response(500, error_body(500, "internal error; retry later"))

    return endpoint


# --- unauthenticated ------------------------------------------------------------------------
async def serve_openapi(request: Request) -> Response:
    document = openapi_document()
    document["servers"] = [{"url": str(request.base_url).rstrip("/") + _spec.API_VERSION_SEGMENT}]
    return json_response(200, document)


def _clock(db: Database) -> Callable[[Request], Awaitable[Response]]:
    async def clock(request: Request) -> Response:
        try:
            if request.method == "POST":
                data = parse_body(ClockAdvance, await _read_body(request))
                db.advance_clock(data.seconds)
            return json_response(200, {"now": format_instant(int(db.now()))})
        except ServiceHTTPError as exc:
            return json_response(exc.status, exc.body())

    return clock


def _http_error(routes: list[BaseRoute]) -> Callable[[Request, Exception], Awaitable[Response]]:
    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 405:
            message = f"method {request.method} is not allowed on {request.url.path}"
            allowed = {
                method
                for route in routes
                if isinstance(route, Route) and route.matches(request.scope)[0] != Match.NONE
                for method in route.methods or ()
            }
            response = json_response(405, error_body(400, message))
            response.headers["Allow"] = ", ".join(sorted(allowed))
            return response
        if exc.status_code == 404:
            return json_response(404, error_body(404, f"no such endpoint: {request.url.path}"))
        return json_response(exc.status_code, error_body(400, str(exc.detail)))

    return http_error


def create_app(db: Database, settings: Settings | None = None) -> ASGIApp:
    """The service as an ASGI app over `db`.

    app = create_app(Database.open(":memory:"), Settings(rate_window=2.0))
    uvicorn.run(app, port=8000)
    """
    settings = settings or Settings()
    ctx = Context(db, CursorCodec(db.secret))
    prefix = _spec.API_VERSION_SEGMENT
    routes: list[BaseRoute] = [Route(f"{prefix}/openapi.json", serve_openapi, methods=["GET"])]
    routes += [
        Route(prefix + op.path, _endpoint(ctx, op), methods=[op.method]) for op in _spec.OPERATIONS
    ]
    if settings.admin:
        routes.append(Route(f"{prefix}/admin/clock", _clock(db), methods=["GET", "POST"]))
    router = Starlette(routes=routes, exception_handlers={HTTPException: _http_error(routes)})
    app: ASGIApp = router
    if settings.faults:
        app = FaultInjector(router, settings.faults, settings.fault_seed)
    app = Gate(app, db, FixedWindowLimiter(settings.rate_window), clock=time.time)
    return HeaderFaults(app) if settings.faults else app
