"""Walking listings against the real service under real rate limits (short windows)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Callable

import channelkit as ck
from channelkit.client import WaitEvent
from channelkit.service import LocalService

from .conftest import POSTS_PER_CHANNEL, RATE_WINDOW, MakeApi, Populated, exhaust


def test_walk_under_starter_plan_gets_every_post_once_with_no_429(
    populated: Populated, make_api: MakeApi
) -> None:
    expected = populated.all_ids()
    assert len(expected) >= 2 * POSTS_PER_CHANNEL
    events: list[WaitEvent] = []
    api = make_api(populated.service, populated.key("starter"), on_wait=events.append)
    client = api.client
    # 4 per page: 75 pages, more than one Starter window (60 requests).
    started = time.time()
    seen = [post.id for post in api.all(lambda c: c.posts.list(limit=4))]
    finished = time.time()
    assert Counter(seen) == Counter(expected)
    assert client.stats.responses_429 == 0
    assert client.stats.requests > 60
    # Either the budget ran out within a window and the client waited for the reset, or
    # the walk spanned windows (the service aligns them to multiples of their length)
    # without needing to: 75 requests can fit in two windows' budgets in a fraction of one.
    spanned = int(finished // RATE_WINDOW) > int(started // RATE_WINDOW)
    assert client.stats.rate_limit_waits > 0 or spanned
    assert {e.reason for e in events} <= {"pacing"} and all(e.path == "/posts" for e in events)
    assert bool(events) == (client.stats.rate_limit_waits > 0)
    assert client.rate_limit is not None and client.rate_limit.limit == 60


def test_threads_sharing_a_client_share_one_budget(
    populated: Populated, make_client: Callable[..., ck.Client]
) -> None:
    client = make_client(populated.service, populated.key("starter"))
    results: dict[str, list[str]] = {}
    errors: list[BaseException] = []

    def walk(tag: str) -> None:
        try:
            results[tag] = [p.id for p in client.posts.list(tag=tag, limit=4)]
        except BaseException as exc:  # surfaced in the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=walk, args=(tag,)) for tag in ("hr", "it", "ops")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    for tag, ids in results.items():
        assert Counter(ids) == Counter(populated.all_ids(tag=tag))
    assert client.stats.requests > 60  # more than one window's budget, in three threads
    assert client.stats.responses_429 == 0


def test_async_tasks_share_one_budget(populated: Populated) -> None:
    key = populated.key("starter")

    async def main() -> tuple[dict[str, list[str]], ck.client.ClientStats]:
        async with ck.AsyncClient(populated.service.base_url, key) as client:

            async def walk(channel_id: str) -> list[str]:
                return [p.id async for p in client.posts.list(channel_id=channel_id, limit=4)]

            lists = await asyncio.gather(*(walk(c) for c in populated.channel_ids))
            return dict(zip(populated.channel_ids, lists, strict=True)), client.stats

    results, stats = asyncio.run(main())
    for channel_id, ids in results.items():
        assert Counter(ids) == Counter(populated.all_ids(channel_id=channel_id))
    assert stats.requests > 60
    assert stats.responses_429 == 0


def test_walk_while_another_writer_creates_posts(
    populated: Populated, make_client: Callable[..., ck.Client], make_api: MakeApi
) -> None:
    channel_id = populated.channel_ids[0]
    before = populated.all_ids(channel_id=channel_id)
    reader = make_api(populated.service, populated.key("business"))
    writer = make_client(populated.service, populated.admin_key)
    stop, writing = threading.Event(), threading.Event()
    created: list[str] = []

    def write() -> None:
        while not stop.is_set():
            post = writer.posts.create(channel_id=channel_id, title="new", body="during walk")
            created.append(post.id)
            writing.set()

    thread = threading.Thread(target=write)
    thread.start()
    try:
        writing.wait(timeout=30)
        created_before_walk = len(created)
        pre_existing = set(before) | set(created[:created_before_walk])
        seen = Counter(
            p.id for p in reader.all(lambda c: c.posts.list(channel_id=channel_id, limit=5))
        )
        created_during_walk = len(created) - created_before_walk
    finally:
        stop.set()
        thread.join()
    assert created_during_walk > 0, "the writer created nothing during the walk"
    assert all(seen[post_id] == 1 for post_id in pre_existing)
    assert max(seen.values()) == 1
    assert set(seen) <= set(before) | set(created)


def test_first_page_is_one_request(populated: Populated, make_api: MakeApi) -> None:
    api = make_api(populated.service, populated.admin_key)
    page = api.first_page(lambda c: c.posts.list(limit=50))
    assert len(page.data) == 50 and page.has_more and page.next_cursor
    assert api.client.stats.requests == 1
    rest = api.all(lambda c: c.posts.list(cursor=page.next_cursor, limit=100))
    assert len(page.data) + len(rest) == len(populated.all_ids())


def test_raw_pages_report_the_cursor_that_fetched_them(
    populated: Populated, make_api: MakeApi
) -> None:
    api = make_api(populated.service, populated.admin_key)
    channel = {"channel_id": populated.channel_ids[1]}
    pages = api.all(lambda c: c.raw_pages("/posts", channel, limit=100))
    assert pages[0].cursor is None
    assert [p.cursor for p in pages[1:]] == [p.next_cursor for p in pages[:-1]]
    assert not pages[-1].has_more and pages[-1].next_cursor is None
    assert sum(len(p.data) for p in pages) == POSTS_PER_CHANNEL
    assert all(isinstance(item, dict) for item in pages[0].data)


def test_a_429_caused_elsewhere_is_waited_out(populated: Populated, make_api: MakeApi) -> None:
    key = populated.key("starter")
    exhaust(populated.service, key)  # someone else spends the window
    events: list[WaitEvent] = []
    api = make_api(populated.service, key, on_wait=events.append)
    channels = api.all(lambda c: c.channels.list())
    assert len(channels) >= 2
    assert api.client.stats.responses_429 >= 1
    assert any(e.reason == "retry_after" and e.seconds >= 0.5 for e in events)


def test_rate_limit_error_past_the_wait_cap(populated: Populated, make_api: MakeApi) -> None:
    key = populated.key("starter")
    exhaust(populated.service, key)
    api = make_api(populated.service, key, max_rate_limit_wait=0.1)
    try:
        api.first_page(lambda c: c.channels.list())
    except ck.RateLimitError as exc:
        assert exc.status == 429 and exc.code == "rate_limited"
        assert exc.retry_after is not None and exc.retry_after >= 0.5
        assert "max_rate_limit_wait" in str(exc)
    else:
        raise AssertionError("no RateLimitError")


def test_thousands_of_demo_posts_under_starter_with_no_429(
    service_factory: Callable[..., LocalService],
    make_client: Callable[..., ck.Client],
    make_api: MakeApi,
) -> None:
    service = service_factory(seed="demo", rate_window=RATE_WINDOW)
    key = service.create_key(user="admin", team="comms", plan="starter")
    # A first walk (another consumer of the same key) spends part of the window.
    other = make_client(service, key)
    expected = [post["id"] for page in other.raw_pages("/posts") for post in page.data]
    assert len(expected) >= 2000
    api = make_api(service, key)
    seen = Counter(post.id for post in api.all(lambda c: c.posts.list(limit=50)))
    assert seen == Counter(expected)
    assert api.client.stats.requests > 60 and api.client.stats.responses_429 == 0
    assert other.stats.responses_429 == 0


def test_bulk_async_creates_under_starter_plan_have_no_429(
    service_factory: Callable[..., LocalService],
) -> None:
    service = service_factory(admin=True, rate_window=RATE_WINDOW)
    key = service.create_key(user="admin", team="comms", plan="starter")
    n = 100  # more than one window's 60

    async def main() -> tuple[list[str], ck.client.ClientStats]:
        async with ck.AsyncClient(service.base_url, key) as client:
            channel = await client.channels.create(name="Bulk")
            posts = await asyncio.gather(
                *(
                    client.posts.create(channel_id=channel.id, title=f"{i}", body="b")
                    for i in range(n)
                )
            )
            return [p.id for p in posts], client.stats

    ids, stats = asyncio.run(main())
    assert len(set(ids)) == n
    assert stats.responses_429 == 0 and stats.rate_limit_waits > 0
