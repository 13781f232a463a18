"""Every resource method against the real service, sync and async, and error mapping."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

import channelkit as ck
from channelkit.client import Channel, Post
from channelkit.service import LocalService


@pytest.fixture
def client(
    service: LocalService, admin_key: str, make_client: Callable[..., ck.Client]
) -> ck.Client:
    return make_client(service, admin_key)


def test_post_and_channel_lifecycle(client: ck.Client) -> None:
    channel = client.channels.create(name="Product News", description="launches")
    assert isinstance(channel, Channel) and channel.slug == "product-news"
    assert channel.created_at is not None and channel.created_at.tzinfo is not None
    post = client.posts.create(
        channel_id=channel.id, title="Launch", body="**Today**", tags=["launch"], priority="high"
    )
    assert isinstance(post, Post) and post.status == "published"
    assert post.author is not None and post.published_at is not None
    assert post.published_at.utcoffset() == timedelta(0)
    assert client.posts.retrieve(post.id) == post
    updated = client.posts.update(post.id, title="Launch day", status="archived")
    assert (updated.title, updated.status) == ("Launch day", "archived")
    assert [p.id for p in client.posts.list(tag="launch")] == [post.id]
    assert [c.id for c in client.channels.list() if c.id == channel.id] == [channel.id]
    assert client.channels.retrieve(channel.id).name == "Product News"
    assert client.channels.update(channel.id, description="all launches").description == (
        "all launches"
    )
    client.posts.delete(post.id)
    with pytest.raises(ck.NotFoundError):
        client.posts.retrieve(post.id)
    client.channels.delete(channel.id)


def test_scheduled_post_accepts_aware_datetimes_and_strings(client: ck.Client) -> None:
    channel = client.channels.create(name="Later")
    when = datetime.now(UTC).replace(microsecond=0) + timedelta(days=2)
    post = client.posts.create(channel_id=channel.id, title="t", body="b", scheduled_at=when)
    assert post.status == "scheduled" and post.scheduled_at == when and post.published_at is None
    as_text = (when + timedelta(hours=1)).isoformat()
    later = client.posts.create(channel_id=channel.id, title="t", body="b", scheduled_at=as_text)
    assert later.scheduled_at == when + timedelta(hours=1)


def test_same_idempotency_key_creates_once(client: ck.Client) -> None:
    channel = client.channels.create(name="Once")
    kwargs = {"channel_id": channel.id, "title": "t", "body": "b", "idempotency_key": "k-1"}
    first = client.posts.create(**kwargs)  # type: ignore[arg-type]
    again = client.posts.create(**kwargs)  # type: ignore[arg-type]
    assert first.id == again.id
    assert [p.id for p in client.posts.list(channel_id=channel.id)] == [first.id]
    with pytest.raises(ck.ConflictError) as info:
        client.posts.create(channel_id=channel.id, title="other", body="b", idempotency_key="k-1")
    assert info.value.param == "Idempotency-Key"


def test_error_statuses_map_to_their_exceptions(
    service: LocalService, client: ck.Client, make_client: Callable[..., ck.Client]
) -> None:
    channel = client.channels.create(name="Errors")
    client.posts.create(channel_id=channel.id, title="t", body="b")
    with pytest.raises(ck.BadRequestError) as bad:
        client.posts.create(channel_id="chan_nope", title="t", body="b")
    assert bad.value.status == 400 and bad.value.code == "invalid_request"
    assert bad.value.param == "channel_id" and "(param: channel_id)" in str(bad.value)
    with pytest.raises(ck.AuthenticationError) as unauthorized:
        make_client(service, "ck_not_a_key").channels.list().first_page()
    assert unauthorized.value.status == 401 and unauthorized.value.code == "unauthorized"
    reader = make_client(service, service.create_key(user="admin", scopes=["posts:read"]))
    with pytest.raises(ck.PermissionDeniedError) as forbidden:
        reader.channels.create(name="Nope")
    assert forbidden.value.status == 403 and forbidden.value.code == "forbidden"
    with pytest.raises(ck.NotFoundError) as missing:
        client.channels.retrieve("chan_missing")
    assert missing.value.status == 404 and missing.value.request is not None
    assert missing.value.request.method == "GET"
    with pytest.raises(ck.ConflictError) as taken:
        client.channels.create(name="Errors again", slug=channel.slug)
    assert taken.value.param == "slug"
    with pytest.raises(ck.ConflictError):
        client.channels.delete(channel.id)  # still holds a post


def test_every_api_error_is_a_channelkit_error(client: ck.Client) -> None:
    with pytest.raises(ck.ChannelkitError):
        client.posts.retrieve("post_missing")


def test_client_from_environment(
    service: LocalService, admin_key: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHANNELKIT_BASE_URL", service.base_url)
    monkeypatch.setenv("CHANNELKIT_API_KEY", admin_key)
    with ck.Client() as client:
        assert client.base_url == service.base_url
        assert client.channels.list().first_page().data is not None
    monkeypatch.delenv("CHANNELKIT_API_KEY")
    with pytest.raises(ck.ChannelkitError, match="api_key: none given: pass api_key=... or set"):
        ck.Client()
    with pytest.raises(ck.ChannelkitError, match=r"must end in the API version segment /v1"):
        ck.Client(base_url="http://127.0.0.1:1", api_key="k")


def test_async_client_mirrors_the_sync_one(service: LocalService, admin_key: str) -> None:
    async def main() -> None:
        async with ck.AsyncClient(service.base_url, admin_key) as client:
            channel = await client.channels.create(name="Async")
            posts = await asyncio.gather(
                *(
                    client.posts.create(channel_id=channel.id, title=f"{n}", body="b")
                    for n in range(7)
                )
            )
            listed = [p.id async for p in client.posts.list(channel_id=channel.id, limit=3)]
            assert sorted(listed) == sorted(p.id for p in posts)
            page = await client.posts.list(channel_id=channel.id, limit=5).first_page()
            assert len(page.data) == 5 and page.has_more
            assert (await client.posts.retrieve(posts[0].id)).id == posts[0].id
            assert (await client.posts.update(posts[0].id, title="x")).title == "x"
            await client.posts.delete(posts[0].id)
            with pytest.raises(ck.NotFoundError):
                await client.posts.retrieve(posts[0].id)
            assert (await client.channels.retrieve(channel.id)).name == "Async"
            assert (await client.channels.update(channel.id, name="Async 2")).name == "Async 2"
            assert [c.id async for c in client.channels.list() if c.id == channel.id]
            raw = [page async for page in client.raw_pages("/channels", limit=1)]
            assert len(raw) >= 1 and raw[0].cursor is None
            assert client.stats.responses_429 == 0 and client.rate_limit is not None

    asyncio.run(main())


def test_server_errors_surface_after_the_retries(
    service_factory: Callable[..., LocalService], make_client: Callable[..., ck.Client]
) -> None:
    service = service_factory(faults="500=1.0")
    client = make_client(service, service.create_key(plan="enterprise"), max_retries=1)
    with pytest.raises(ck.ServerError) as info:
        client.channels.list().first_page()
    assert info.value.status == 500 and info.value.code == "server_error"
    assert client.stats.requests == 2 and client.stats.retries == 1
