"""What the real service cannot be made to do on demand, through httpx.MockTransport:
a body cut at an exact byte, a reset in the past, malformed headers, clock skew, a
Retry-After of 0 or of a day, answers lost after the server acted.

Every test runs twice: against `Client`, and against `AsyncClient` behind the same
interface (`Blocking`), so the generated client and its source are held to one standard.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import time
from collections.abc import AsyncIterator, Callable, Iterator
from email.utils import formatdate
from typing import Any

import httpx
import pytest

import channelkit as ck
from channelkit.client import WaitEvent
from channelkit.errors import APIResponseValidationError, error_body
from client.conftest import Blocking

BASE = "http://service.test/v1"
KEY = "ck_test_secret_key_0123456789"
POST = {
    "id": "post_1",
    "channel_id": "chan_1",
    "title": "t",
    "body": "b",
    "status": "published",
    "published_at": "2026-11-21T09:30:00Z",
}

Handler = Callable[[httpx.Request], httpx.Response]


class CutStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A body that breaks off after `cut` bytes, as when the connection drops."""

    def __init__(self, data: bytes, cut: int) -> None:
        self.data, self.cut = data, cut

    def __iter__(self) -> Iterator[bytes]:
        yield self.data[: self.cut]
        raise httpx.RemoteProtocolError("peer closed connection without sending complete body")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield self.data[: self.cut]
        raise httpx.RemoteProtocolError("peer closed connection without sending complete body")


_KIND: list[str] = ["sync"]
_RUNNERS: list[asyncio.Runner] = []


@pytest.fixture(autouse=True, params=["sync", "async"])
def kind(request: pytest.FixtureRequest) -> Iterator[str]:
    """Which client `make` builds for this run of the test."""
    _KIND[0] = request.param
    yield request.param
    while _RUNNERS:
        _RUNNERS.pop().close()


def envelope(data: list[dict[str, Any]], next_cursor: str | None) -> dict[str, Any]:
    return {"data": data, "next_cursor": next_cursor, "has_more": next_cursor is not None}


def make(handler: Handler, **kwargs: Any) -> tuple[ck.Client, list[WaitEvent]]:
    """A client of the test's kind over `handler`, and the waits it reports."""
    events: list[WaitEvent] = []
    transport = httpx.MockTransport(handler)
    if _KIND[0] == "sync":
        return ck.Client(BASE, KEY, transport=transport, on_wait=events.append, **kwargs), events
    runner = asyncio.Runner()
    _RUNNERS.append(runner)
    client = ck.AsyncClient(BASE, KEY, transport=transport, on_wait=events.append, **kwargs)
    return Blocking(client, runner), events  # type: ignore[return-value]


def test_get_cut_at_an_exact_byte_is_retried() -> None:
    body = json.dumps(POST).encode()
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            headers = {"content-length": str(len(body)), "content-type": "application/json"}
            return httpx.Response(200, headers=headers, stream=CutStream(body, 17))
        return httpx.Response(200, json=POST)

    client, events = make(handler)
    assert client.posts.retrieve("post_1").id == "post_1"
    assert len(calls) == 2 and client.stats.retries == 1
    assert [e.reason for e in events] == ["connection"]  # a dropped connection


def test_get_with_a_non_json_body_is_retried_then_reported() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b'{"data": [')

    client, _ = make(handler, max_retries=1)
    with pytest.raises(ck.APIError, match=r"invalid response body: 200 response is not JSON"):
        client.posts.retrieve("post_1")
    assert client.stats.requests == 2


def test_lost_create_response_is_retried_with_the_same_key_and_creates_once() -> None:
    created: dict[str, dict[str, Any]] = {}
    keys: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        key = request.headers["idempotency-key"]
        keys.append(key)
        if key not in created:
            created[key] = {**POST, "id": f"post_{len(created) + 1}"}
            raise httpx.ReadTimeout("answer lost", request=request)  # acted, answer lost
        return httpx.Response(201, json=created[key])

    client, _ = make(handler)
    post = client.posts.create(channel_id="chan_1", title="t", body="b")
    assert post.id == "post_1" and len(created) == 1
    assert len(keys) == 2 and keys[0] == keys[1] and keys[0].startswith("ck-")
    # The next logical call gets a fresh key.
    client.posts.create(channel_id="chan_1", title="t", body="b")
    assert len(created) == 2


def test_caller_supplied_idempotency_key_is_sent() -> None:
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers["idempotency-key"])
        return httpx.Response(201, json=POST)

    client, _ = make(handler)
    client.posts.create(channel_id="c", title="t", body="b", idempotency_key="mine-1")
    assert seen == ["mine-1"]
    with pytest.raises(ck.ChannelkitError, match="idempotency_key: must be a string of 1 to 255"):
        client.posts.create(channel_id="c", title="t", body="b", idempotency_key="x" * 256)


def test_retry_after_zero_is_floored_not_a_busy_loop() -> None:
    calls: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        if len(calls) == 1:
            error = {"error": {"code": "rate_limited", "message": "slow", "param": None}}
            return httpx.Response(429, headers={"retry-after": "0"}, json=error)
        return httpx.Response(200, json=POST)

    client, events = make(handler)
    client.posts.retrieve("post_1")
    assert calls[1] - calls[0] >= 0.5
    assert [(e.reason, e.seconds >= 0.45) for e in events] == [("retry_after", True)]
    assert client.stats.responses_429 == 1


def test_retry_after_beyond_the_cap_raises_at_once() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        error = {"error": {"code": "rate_limited", "message": "come back tomorrow", "param": None}}
        return httpx.Response(429, headers={"retry-after": "86400"}, json=error)

    client, events = make(handler)
    started = time.monotonic()
    with pytest.raises(ck.RateLimitError, match="come back tomorrow") as info:
        client.posts.retrieve("post_1")
    assert time.monotonic() - started < 1.0 and not events
    assert info.value.retry_after == 86400.0


def test_server_errors_are_retried_max_retries_times() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        error = {"error": {"code": "server_error", "message": "boom", "param": None}}
        return httpx.Response(503, json=error)

    client, events = make(handler, max_retries=2)
    with pytest.raises(ck.ServerError, match="503 server_error: boom"):
        client.channels.retrieve("chan_1")
    assert len(calls) == 3 and client.stats.retries == 2
    assert [e.reason for e in events] == ["backoff", "backoff"]
    calls.clear()
    with pytest.raises(ck.ServerError):
        client.channels.retrieve("chan_1", max_retries=0)  # per call
    assert len(calls) == 1


def test_client_errors_are_not_retried() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        error = {"error": {"code": "invalid_request", "message": "too long", "param": "title"}}
        return httpx.Response(400, json=error)

    client, _ = make(handler)
    with pytest.raises(ck.BadRequestError, match=r"\(param: title\)") as info:
        client.posts.create(channel_id="c", title="t" * 300, body="b")
    assert info.value.param == "title" and len(calls) == 1


def test_reset_in_the_past_means_no_wait() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        headers = {
            "x-ratelimit-limit": "60",
            "x-ratelimit-remaining": "0",
            "x-ratelimit-reset": str(int(time.time()) - 100),
        }
        return httpx.Response(200, headers=headers, json=POST)

    client, events = make(handler)
    for _ in range(5):
        client.posts.retrieve("post_1")
    assert not events


@pytest.mark.parametrize(
    "headers",
    [
        {"x-ratelimit-remaining": "-3", "x-ratelimit-reset": "soon"},
        {"x-ratelimit-limit": "sixty", "x-ratelimit-remaining": "0", "x-ratelimit-reset": "x"},
        {"x-ratelimit-reset": "99999999999999999999999"},
    ],
)
def test_malformed_rate_limit_headers_do_not_break_requests(headers: dict[str, str]) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, headers=headers, json=POST)

    client, events = make(handler)
    for _ in range(3):
        client.posts.retrieve("post_1")
    assert client.stats.requests == 3 and not events


@pytest.mark.parametrize("skew", [0.0, 3600.0, -3600.0])
def test_spent_window_is_waited_out_by_the_servers_clock(skew: float) -> None:
    """The server's clock is `skew` seconds off ours; its Date header says so."""
    window_end = math.ceil(time.time() + skew + 0.5)  # the Reset header is whole seconds
    early: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        server_now = time.time() + skew
        headers = {"date": formatdate(server_now, usegmt=True), "x-ratelimit-limit": "1"}
        reset = window_end if server_now < window_end else window_end + 9
        if server_now < window_end:
            if early:
                return httpx.Response(429, headers={**headers, "retry-after": "1"}, json={})
            early.append(server_now)
        headers |= {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)}
        return httpx.Response(200, headers=headers, json=POST)

    client, events = make(handler)
    client.posts.retrieve("post_1")
    started = time.monotonic()
    client.posts.retrieve("post_1")
    assert client.stats.responses_429 == 0
    assert time.monotonic() - started < 3.5  # not an hour, whatever the skew
    assert events and all(e.reason == "pacing" for e in events)


def test_delete_whose_answer_was_lost_is_done() -> None:
    deleted: set[str] = set()

    def handler(request: httpx.Request) -> httpx.Response:
        post_id = request.url.path.rsplit("/", 1)[1]
        if post_id in deleted:
            error = {"error": {"code": "not_found", "message": "gone", "param": None}}
            return httpx.Response(404, json=error)
        deleted.add(post_id)
        raise httpx.RemoteProtocolError("Server disconnected without sending a response.")

    client, _ = make(handler)
    client.posts.delete("post_1")  # no NotFoundError: the first attempt did it
    assert deleted == {"post_1"}
    with pytest.raises(ck.NotFoundError):
        client.posts.delete("post_1")  # a plain 404 on a first attempt is still an error


def test_a_cursor_that_comes_back_stops_the_walk() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        cursor = request.url.params.get("cursor")
        return httpx.Response(200, json=envelope([POST], "b" if cursor == "a" else "a"))

    client, _ = make(handler)
    with pytest.raises(ck.ChannelkitError, match="cursor 'a' a second time after 3 pages"):
        list(client.posts.list())


def test_connection_failures_become_api_connection_errors() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    client, _ = make(handler, max_retries=1, connection_retry_budget=0)
    with pytest.raises(ck.APIConnectionError, match=r"Connection refused.*after 2 attempts"):
        client.channels.list().first_page()


def test_refused_connections_are_retried_for_the_budget_and_the_wait_is_shown() -> None:
    calls: list[float] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(time.monotonic())
        raise httpx.ConnectError("[Errno 111] Connection refused", request=request)

    client, events = make(handler, max_retries=1, connection_retry_budget=1.5)
    with pytest.raises(ck.APIConnectionError, match=r"refused.*connection_retry_budget is 1.5 s"):
        client.channels.list().first_page()
    # More attempts than max_retries allows, spread over the budget, each wait reported.
    assert len(calls) > 2 and 1.4 <= calls[-1] - calls[0] <= 3.0
    assert events and {e.reason for e in events} == {"connection"}


def test_timeouts_become_api_timeout_errors() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    client, _ = make(handler, max_retries=0)
    with pytest.raises(ck.APITimeoutError, match="timed out"):
        client.posts.retrieve("post_1")


def test_naive_datetime_is_refused_before_any_request() -> None:
    from datetime import datetime

    client, _ = make(lambda request: httpx.Response(201, json=POST))
    with pytest.raises(ck.ChannelkitError, match="scheduled_at: naive datetime"):
        client.posts.create(
            channel_id="c", title="t", body="b", scheduled_at=datetime(2030, 1, 1, 9, 0)
        )
    with pytest.raises(ValueError, match="published_after: .* no UTC offset"):
        client.posts.list(published_after="2026-01-01T00:00:00")
    assert client.stats.requests == 0


def test_query_parameters_and_bodies_on_the_wire() -> None:
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        if request.method == "POST":
            return httpx.Response(201, json=POST)
        return httpx.Response(200, json=envelope([], None))

    from datetime import UTC, date, datetime

    client, _ = make(handler)
    list(client.posts.list(tag="hr", published_after=date(2026, 11, 1), limit=7))
    client.posts.create(
        channel_id="chan_1",
        title="t",
        body="b",
        tags=("a",),
        scheduled_at=datetime(2030, 1, 1, 9, tzinfo=UTC),
    )
    assert dict(requests[0].url.params) == {
        "tag": "hr",
        "published_after": "2026-11-01",
        "limit": "7",
    }
    assert json.loads(requests[1].content) == {
        "channel_id": "chan_1",
        "title": "t",
        "body": "b",
        "tags": ["a"],
        "scheduled_at": "2030-01-01T09:00:00Z",
    }
    assert requests[1].headers["authorization"] == f"Bearer {KEY}"
    assert requests[1].headers["user-agent"].startswith("channelkit-python/")


def test_async_client_retries_a_lost_create_once(kind: str) -> None:
    if kind == "sync":
        pytest.skip("drives AsyncClient itself")
    created: dict[str, int] = {}

    async def handler(request: httpx.Request) -> httpx.Response:
        key = request.headers["idempotency-key"]
        if key not in created:
            created[key] = 1
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        return httpx.Response(201, json=POST)

    async def main() -> ck.client.ClientStats:
        transport = httpx.MockTransport(handler)
        async with ck.AsyncClient(BASE, KEY, transport=transport) as client:
            await client.posts.create(channel_id="c", title="t", body="b")
            return client.stats

    stats = asyncio.run(main())
    assert len(created) == 1 and stats.retries == 1 and stats.requests == 2


def test_long_waits_are_logged_at_info(caplog: pytest.LogCaptureFixture) -> None:
    reset = math.ceil(time.time()) + 1  # 1 to 2 s away
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 3:
            return httpx.Response(429, headers={"retry-after": "1"}, json={})
        remaining = "0" if len(calls) == 1 else "50"
        headers = {"x-ratelimit-remaining": remaining, "x-ratelimit-reset": str(reset)}
        return httpx.Response(200, headers=headers, json=POST)

    client, _ = make(handler)
    with caplog.at_level("INFO", logger="channelkit"):
        client.posts.retrieve("post_1")
        client.posts.retrieve("post_1")  # waits for the reset
        client.posts.retrieve("post_1")  # a 429, then waits Retry-After
    pacing = r"waiting [12]\.\d s \(pacing\) before /posts/post_1"
    assert any(re.fullmatch(pacing, m) for m in caplog.messages), caplog.messages
    assert "429 on GET http://service.test/v1/posts/post_1: retrying after 1.0 s" in (
        caplog.messages
    )


def test_request_reaches_any_endpoint_with_the_same_care() -> None:
    from datetime import UTC, datetime

    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True})

    client, _ = make(handler)
    when = datetime(2030, 1, 1, tzinfo=UTC)
    answer = client.request("PATCH", "/posts/p1", json={"scheduled_at": when, "cover": None})
    assert answer == {"ok": True}
    assert json.loads(seen[0].content) == {"scheduled_at": "2030-01-01T00:00:00Z", "cover": None}
    client.request("post", "/things", params={"after": when})
    assert seen[1].method == "POST" and seen[1].headers["idempotency-key"].startswith("ck-")
    assert seen[1].url.params["after"] == "2030-01-01T00:00:00Z"


def test_bad_base_urls_are_refused_clearly() -> None:
    for url, message in [
        ("ftp://host/v1", "is not an http"),
        ("http://[::1/v1", "is not a valid URL"),
        ("http://host/api", "must end in the API version segment /v1"),
    ]:
        with pytest.raises(ck.ChannelkitError, match=f"^base_url: .*{re.escape(message)}"):
            ck.Client(url, KEY)


@pytest.mark.parametrize("applied", [True, False])
def test_update_whose_answer_was_lost_is_checked_not_failed(applied: bool) -> None:
    state = {**POST}
    patches: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":
            return httpx.Response(200, json=state)
        patches.append(1)
        if len(patches) == 1:
            if applied:
                state.update(json.loads(request.content))
            raise httpx.ReadTimeout("answer lost", request=request)
        error = {
            "error": {"code": "conflict", "message": "archived -> archived", "param": "status"}
        }
        return httpx.Response(409, json=error)

    client, _ = make(handler)
    if applied:
        assert client.posts.update("post_1", status="archived").status == "archived"
    else:
        with pytest.raises(ck.ConflictError, match="archived -> archived"):
            client.posts.update("post_1", status="archived")
    assert len(patches) == 2


def test_bad_retry_settings_are_refused() -> None:
    with pytest.raises(ck.ChannelkitError, match=r"^max_retries: must be >= 0, got -1"):
        ck.Client(BASE, KEY, max_retries=-1)
    with pytest.raises(ck.ChannelkitError, match=r"^max_rate_limit_wait: must be >= 0"):
        ck.Client(BASE, KEY, max_rate_limit_wait=-5)


def test_the_429_wait_cap_can_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": "0"}, json=error_body(429, "busy"))

    monkeypatch.setenv("CHANNELKIT_MAX_RATE_LIMIT_WAIT_SECONDS", "1")
    client, events = make(refuse)
    with pytest.raises(ck.RateLimitError, match=r"the cap max_rate_limit_wait is 1 s"):
        client.channels.retrieve("chan_1")
    assert [e.seconds for e in events] == pytest.approx([0.5, 0.5], abs=0.01)  # 0 floored
    monkeypatch.setenv("CHANNELKIT_MAX_RATE_LIMIT_WAIT_SECONDS", "soon")
    with pytest.raises(ck.ChannelkitError, match="'soon' is not a number of seconds"):
        ck.Client(BASE, KEY)


def test_model_pages_cut_short_are_retried_and_bad_ones_reported() -> None:
    body = json.dumps(envelope([POST], None)).encode()
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) == 1:
            return httpx.Response(200, content=body[:-5])  # valid length, invalid JSON
        if request.url.params.get("tag") == "bad":
            return httpx.Response(200, json=envelope([{**POST, "status": None}], None))
        if request.url.params.get("tag") == "no-has-more":
            return httpx.Response(200, json={"data": [POST], "next_cursor": "c2"})
        return httpx.Response(200, content=body)

    client, _ = make(handler)
    assert [p.id for p in client.posts.list()] == ["post_1"]
    assert client.stats.retries == 1
    with pytest.raises(APIResponseValidationError, match=r"valid page of Post: data\.0\.status"):
        list(client.posts.list(tag="bad"))
    with pytest.raises(APIResponseValidationError, match="has_more"):
        list(client.posts.list(tag="no-has-more"))
    with pytest.raises(APIResponseValidationError, match="`has_more` is missing"):
        list(client.raw_pages("/posts", {"tag": "no-has-more"}))


def test_paginators_are_lazy_and_say_what_they_list(kind: str) -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(200, json=envelope([POST], None))

    client, _ = make(handler)
    listing = client.posts.list(tag="hr", limit=5)
    paginator = "Paginator" if kind == "sync" else "AsyncPaginator"
    assert repr(listing) == f"<{paginator} of Post: GET /posts tag='hr', limit='5'>"
    assert not calls
    assert len(list(listing)) == 1 and len(list(listing)) == 1  # each iteration walks anew
    assert len(calls) == 2


def test_etag_is_exposed_and_if_match_sent_on_update_and_delete() -> None:
    seen: list[tuple[str, str | None]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.method, request.headers.get("if-match")))
        if request.method == "DELETE":
            return httpx.Response(204)
        return httpx.Response(200, json=POST, headers={"ETag": '"v2"'})

    client, _ = make(handler)
    post = client.posts.retrieve("post_1")
    assert post.etag == '"v2"' and "etag" not in post.model_dump()
    assert client.posts.update("post_1", title="x", if_match=post.etag).etag == '"v2"'
    client.posts.delete("post_1", if_match='"v2"')
    client.channels.delete("chan_1")
    assert seen == [("GET", None), ("PATCH", '"v2"'), ("DELETE", '"v2"'), ("DELETE", None)]
    with pytest.raises(ck.InvalidParameterError, match="^if_match: expected an ETag"):
        client.posts.update("post_1", title="x", if_match="  ")


def test_stale_if_match_is_a_clear_conflict_error() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        error = {"code": "conflict", "message": "ETag mismatch", "param": "If-Match"}
        return httpx.Response(409, json={"error": error})

    client, _ = make(handler)
    with pytest.raises(ck.ConflictError) as info:
        client.posts.update("post_1", tags=["hr"], if_match='"v1"')
    assert info.value.param == "If-Match" and info.value.status == 409
    assert "the post changed since you read it" in str(info.value)
    assert "retrieve it again" in str(info.value) and client.stats.requests == 1


def test_update_whose_answer_was_lost_is_verified_not_reported_as_stale() -> None:
    state = {"title": "t", "etag": '"v1"'}
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.method)
        if request.method == "PATCH":
            if request.headers["if-match"] != state["etag"]:
                error = {"code": "conflict", "message": "stale", "param": "If-Match"}
                return httpx.Response(409, json={"error": error})
            state.update(title=json.loads(request.content)["title"], etag='"v2"')
            if len(calls) == 1:
                raise httpx.ReadTimeout("answer lost", request=request)
        body = {**POST, "title": state["title"]}
        return httpx.Response(200, json=body, headers={"ETag": state["etag"]})

    client, _ = make(handler)
    post = client.posts.update("post_1", title="new", if_match='"v1"')
    assert (post.title, post.etag) == ("new", '"v2"') and calls == ["PATCH", "PATCH", "GET"]
