# GENERATED from _async_client.py: edit that file, not this one, then run
# `python -m channelkit.client._unasync --write`
# (tests/client/test_unasync.py fails when this file is stale).
"""`channelkit.Client` and its resources: the sending, awaited or blocking.

Edit `_async_client.py` only: the blocking `_client.py` is generated from it by
`python -m channelkit.client._unasync --write` (docs/client.md). Everything deciding what
to send and when lives in `_base.py` and `_operations.py`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Generic, TypeVar

import httpx

from channelkit._spec import PAGE_LIMIT_MAX
from channelkit.client import _operations as ops
from channelkit.client._base import (
    Call,
    ClientCore,
    ClientStats,
    Done,
    RateLimit,
    RequestSpec,
    Verify,
    WaitEvent,
)
from channelkit.client._operations import ModelT
from channelkit.client._pacing import WaitReason
from channelkit.client._pagination import CursorWalk, PageLike, RawPage
from channelkit.client._params import (
    NOT_GIVEN,
    NotGiven,
    Timestamp,
    check_limit,
    json_body,
    query_params,
)
from channelkit.client.models import (
    Channel,
    ChannelAnalyticsRow,
    Page,
    Post,
    PostAnalyticsRow,
)
from channelkit.errors import RequestInfo

PageT = TypeVar("PageT", bound=PageLike)


class Client:
    """A client of the Publishing and Channel Service; share one per process.

        import channelkit as ck

        with ck.Client(base_url="http://127.0.0.1:8000/v1", api_key="...") as client:
            for post in client.posts.list(channel_id="chan_1", tag="hr"):
                print(post.title)
            client.posts.create(channel_id="chan_1", title="Hi", body="Hello **all**")

    Without arguments the base URL and key come from `CHANNELKIT_BASE_URL` and
    `CHANNELKIT_API_KEY`. Requests are paced by the rate-limit headers (one budget shared
    by every thread using the client), failed requests retried when that is safe (a
    service that refuses connections for up to `connection_retry_budget` seconds, as in a
    restart), and every POST carries an `Idempotency-Key` so that a retried create creates
    once. `on_wait` is called before every sleep, with a `WaitEvent` (for progress bars).
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float | httpx.Timeout | None = None,
        max_retries: int | None = None,
        max_rate_limit_wait: float | None = None,
        connection_retry_budget: float | None = None,
        on_wait: Callable[[WaitEvent], None] | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._core = ClientCore(
            base_url,
            api_key,
            timeout=timeout,
            max_retries=max_retries,
            max_rate_limit_wait=max_rate_limit_wait,
            connection_retry_budget=connection_retry_budget,
            on_wait=on_wait,
        )
        self._http = httpx.Client(
            base_url=self._core.url,
            auth=self._core.auth,
            headers=self._core.headers,
            timeout=self._core.timeout,
            limits=self._core.limits,
            verify=self._core.verify,
            transport=transport,
        )
        self.posts = Posts(self)
        self.channels = Channels(self)
        self.analytics = Analytics(self)

    @property
    def base_url(self) -> str:
        """The service's URL as it may be shown or stored (any user:password redacted)."""
        return self._core.base_url

    @property
    def stats(self) -> ClientStats:
        """A snapshot of the request, retry and wait counters."""
        return self._core.stats

    @property
    def rate_limit(self) -> RateLimit | None:
        """The rate-limit headers of the latest response (None before the first)."""
        return self._core.rate_limit

    def server_time(self) -> datetime:
        """The service's clock now, as estimated from its `Date` headers (aware, UTC).

        Before the first response it is the local clock. The estimate errs early by up
        to a few seconds (`Date` has whole seconds): add a margin to deadlines.
        """
        return self._core.server_time()

    @property
    def connection_retry_budget(self) -> float:
        """Seconds a refused or reset connection is retried before the call fails."""
        return self._core.connection_retry_budget

    @property
    def on_wait(self) -> Callable[[WaitEvent], None] | None:
        return self._core.on_wait

    @on_wait.setter
    def on_wait(self, hook: Callable[[WaitEvent], None] | None) -> None:
        self._core.on_wait = hook

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        json: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        max_retries: int | None = None,
    ) -> Any:
        """Any endpoint, paced and retried like the rest; returns the decoded JSON body."""
        spec = RequestSpec(
            method.upper(),
            path,
            params=query_params(params or {}),
            json=None if json is None else json_body(json, keep_none=True),
            idempotency_key=idempotency_key,
            max_retries=max_retries,
        )
        return self._execute(spec)

    def raw_pages(
        self,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        cursor: str | None = None,
        limit: int = PAGE_LIMIT_MAX,
    ) -> Iterator[RawPage]:
        """Every page of a listing, items left as decoded JSON (no per-item models)."""
        check_limit(limit, PAGE_LIMIT_MAX)
        base = query_params(params or {})
        info = RequestInfo("GET", path)
        return self._walk(path, base, cursor, limit, lambda at: ops.raw_page_decoder(at, info))

    def _walk(
        self,
        path: str,
        base: dict[str, str],
        cursor: str | None,
        limit: int,
        decoder: Callable[[str | None], Callable[[bytes], PageT]],
    ) -> Generator[PageT, None, None]:
        """Pages from `cursor` on; `decoder(cursor)` turns each body into a page."""
        walk = CursorWalk(cursor, path)
        while not walk.done:
            query = ops.list_page(base, limit, walk.cursor)
            spec = RequestSpec("GET", path, params=query, decode=decoder(walk.cursor))
            page = self._execute(spec)
            walk.advance(page)
            yield page

    def _execute(self, spec: RequestSpec) -> Any:
        done = self._send(spec)
        return done.value

    def _send(self, spec: RequestSpec) -> Done:
        return self._run(self._core.start(spec))

    def _run(self, call: Call) -> Done:
        request = call.build(self._http)
        while True:
            self._pace(call.spec.path)
            call.mark_sent()
            try:
                response = self._http.send(request)
            except httpx.RequestError as exc:
                step = call.on_error(exc)
            except BaseException:
                self._core.release()
                raise
            else:
                step = call.on_response(response)
            if isinstance(step, Done):
                return step
            if isinstance(step, Verify):
                current = self._send(step.spec)
                return Done(step.outcome(current.value), current.etag)
            if step.delay > 0:
                self._sleep(step.delay, step.reason, call.spec.path)

    def _pace(self, path: str) -> None:
        while not (grant := self._core.reserve()).granted:
            self._sleep(grant.wait, grant.reason, path)

    def _sleep(self, seconds: float, reason: WaitReason, path: str) -> None:
        self._core.note_wait(seconds, reason, path)
        with self._core.waiting():
            time.sleep(seconds)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return self._core.redacted_repr(type(self).__name__)


class Paginator(Generic[ModelT]):
    """A listing: iterate for every item of every page, or take `first_page()`.

    for post in client.posts.list(tag="hr"):  # all pages, lazily
        ...
    page = client.posts.list(limit=50).first_page()  # one request
    """

    def __init__(
        self,
        client: Client,
        path: str,
        params: dict[str, str],
        model: type[ModelT],
        *,
        limit: int,
        cursor: str | None,
    ) -> None:
        self._client = client
        self._path = path
        self._params = params
        self._model = model
        self._limit = check_limit(limit, PAGE_LIMIT_MAX)
        self._cursor = cursor

    def __repr__(self) -> str:
        query = ops.list_page(self._params, self._limit, self._cursor)
        shown = ", ".join(f"{k}={v!r}" for k, v in query.items())
        return f"<{type(self).__name__} of {self._model.__name__}: GET {self._path} {shown}>"

    def pages(self) -> Generator[Page[ModelT], None, None]:
        decode = ops.page_decoder(self._model, f"GET {self._path}")
        return self._client._walk(
            self._path, self._params, self._cursor, self._limit, lambda _: decode
        )

    def first_page(self) -> Page[ModelT]:
        pages = self.pages()
        try:
            return next(pages)
        finally:
            pages.close()

    def __iter__(self) -> Iterator[ModelT]:
        for page in self.pages():
            for item in page.data:  # noqa: UP028 (an async generator cannot `yield from`)
                yield item


class Posts:
    """`client.posts`: create, list, retrieve, update and delete posts.

    Single posts carry their version, `post.etag`: pass it as `if_match` to update or
    delete only if nobody changed the post meanwhile (else `ConflictError`, param If-Match).
    """

    def __init__(self, client: Client) -> None:
        self._client = client

    def create(
        self,
        *,
        channel_id: str,
        title: str,
        body: str,
        priority: str | None = None,
        tags: Sequence[str] | None = None,
        scheduled_at: Timestamp | None = None,
        cover_image_url: str | None = None,
        extra_body: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        max_retries: int | None = None,
    ) -> Post:
        """Publish now, or at `scheduled_at` (aware datetime, date or RFC 3339 string).

        Exactly once: retries reuse one `Idempotency-Key` (yours, if you pass one).
        """
        spec = ops.create(
            ops.POSTS,
            locals(),  # the contract's create fields, by name
            extra_body=extra_body,
            idempotency_key=idempotency_key,
            max_retries=max_retries,
        )
        return ops.parse_resource(Post, self._client._send(spec), "POST /posts")

    def list(
        self,
        *,
        channel_id: str | None = None,
        author_id: str | None = None,
        tag: str | None = None,
        priority: str | None = None,
        published_after: Timestamp | None = None,
        published_before: Timestamp | None = None,
        limit: int = PAGE_LIMIT_MAX,
        cursor: str | None = None,
    ) -> Paginator[Post]:
        """Posts matching every filter given; `limit` is the page size."""
        params = ops.post_filters(
            channel_id=channel_id,
            author_id=author_id,
            tag=tag,
            priority=priority,
            published_after=published_after,
            published_before=published_before,
        )
        return Paginator(self._client, ops.POSTS, params, Post, limit=limit, cursor=cursor)

    def retrieve(self, post_id: str, *, max_retries: int | None = None) -> Post:
        spec = ops.retrieve(ops.POSTS, "post_id", post_id, max_retries)
        return ops.parse_resource(Post, self._client._send(spec), f"GET {spec.path}")

    def update(
        self,
        post_id: str,
        *,
        channel_id: str | NotGiven = NOT_GIVEN,
        title: str | NotGiven = NOT_GIVEN,
        body: str | NotGiven = NOT_GIVEN,
        priority: str | NotGiven = NOT_GIVEN,
        tags: Sequence[str] | NotGiven = NOT_GIVEN,
        scheduled_at: Timestamp | NotGiven = NOT_GIVEN,
        cover_image_url: str | None | NotGiven = NOT_GIVEN,
        status: str | NotGiven = NOT_GIVEN,
        extra_body: Mapping[str, Any] | None = None,
        max_retries: int | None = None,
        if_match: str | None = None,
    ) -> Post:
        """Change the fields given; one left out stays as it is, and `None` clears a field
        that can be cleared (`cover_image_url=None` removes the cover).

        `if_match=post.etag`: only if the post is still as read (else `ConflictError`).
        """
        spec = ops.update(
            ops.POSTS,
            "post_id",
            post_id,
            locals(),  # the contract's update fields, by name
            extra_body=extra_body,
            max_retries=max_retries,
            if_match=if_match,
        )
        return ops.parse_resource(Post, self._client._send(spec), f"PATCH {spec.path}")

    def delete(
        self, post_id: str, *, max_retries: int | None = None, if_match: str | None = None
    ) -> None:
        spec = ops.delete(ops.POSTS, "post_id", post_id, max_retries, if_match)
        self._client._execute(spec)


class Channels:
    """`client.channels`: create, list, retrieve, update and delete channels.

    Like posts, single channels carry `channel.etag` for `if_match` on update and delete.
    """

    def __init__(self, client: Client) -> None:
        self._client = client

    def create(
        self,
        *,
        name: str,
        slug: str | None = None,
        description: str | None = None,
        visibility: str | None = None,
        is_default: bool | None = None,
        extra_body: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
        max_retries: int | None = None,
    ) -> Channel:
        spec = ops.create(
            ops.CHANNELS,
            locals(),  # the contract's create fields, by name
            extra_body=extra_body,
            idempotency_key=idempotency_key,
            max_retries=max_retries,
        )
        return ops.parse_resource(Channel, self._client._send(spec), "POST /channels")

    def list(
        self,
        *,
        visibility: str | None = None,
        limit: int = PAGE_LIMIT_MAX,
        cursor: str | None = None,
    ) -> Paginator[Channel]:
        params = query_params({"visibility": visibility})
        return Paginator(
            self._client,
            ops.CHANNELS,
            params,
            Channel,
            limit=limit,
            cursor=cursor,
        )

    def retrieve(self, channel_id: str, *, max_retries: int | None = None) -> Channel:
        spec = ops.retrieve(ops.CHANNELS, "channel_id", channel_id, max_retries)
        return ops.parse_resource(Channel, self._client._send(spec), f"GET {spec.path}")

    def update(
        self,
        channel_id: str,
        *,
        name: str | NotGiven = NOT_GIVEN,
        slug: str | NotGiven = NOT_GIVEN,
        description: str | NotGiven = NOT_GIVEN,
        visibility: str | NotGiven = NOT_GIVEN,
        is_default: bool | NotGiven = NOT_GIVEN,
        is_archived: bool | NotGiven = NOT_GIVEN,
        extra_body: Mapping[str, Any] | None = None,
        max_retries: int | None = None,
        if_match: str | None = None,
    ) -> Channel:
        """Change the fields given; one left out stays as it is."""
        spec = ops.update(
            ops.CHANNELS,
            "channel_id",
            channel_id,
            locals(),  # the contract's update fields, by name
            extra_body=extra_body,
            max_retries=max_retries,
            if_match=if_match,
        )
        return ops.parse_resource(Channel, self._client._send(spec), f"PATCH {spec.path}")

    def delete(
        self, channel_id: str, *, max_retries: int | None = None, if_match: str | None = None
    ) -> None:
        spec = ops.delete(ops.CHANNELS, "channel_id", channel_id, max_retries, if_match)
        self._client._execute(spec)


class Analytics:
    """`client.analytics`: daily engagement rows (UTC days; `start` inclusive, `end` not)."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def posts(
        self,
        *,
        start: Timestamp | None = None,
        end: Timestamp | None = None,
        channel_id: str | None = None,
        post_id: str | None = None,
        limit: int = PAGE_LIMIT_MAX,
        cursor: str | None = None,
    ) -> Paginator[PostAnalyticsRow]:
        params = ops.analytics_filters(start=start, end=end, channel_id=channel_id, post_id=post_id)
        return Paginator(
            self._client, ops.ANALYTICS_POSTS, params, PostAnalyticsRow, limit=limit, cursor=cursor
        )

    def channels(
        self,
        *,
        start: Timestamp | None = None,
        end: Timestamp | None = None,
        channel_id: str | None = None,
        limit: int = PAGE_LIMIT_MAX,
        cursor: str | None = None,
    ) -> Paginator[ChannelAnalyticsRow]:
        params = ops.analytics_filters(start=start, end=end, channel_id=channel_id)
        return Paginator(
            self._client,
            ops.ANALYTICS_CHANNELS,
            params,
            ChannelAnalyticsRow,
            limit=limit,
            cursor=cursor,
        )
