"""Every resource method against the real service, through `Client` and `AsyncClient` alike
(the `api` fixture runs each test once per client), and error mapping."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

import channelkit as ck
from channelkit.client import Channel, Post
from channelkit.service import LocalService
from client.conftest import Api, MakeApi

pytestmark = pytest.mark.calendar


def test_post_and_channel_lifecycle(api: Api) -> None:
    channel = api(lambda c: c.channels.create(name="Product News", description="launches"))
    assert isinstance(channel, Channel) and channel.slug == "product-news"
    assert channel.created_at is not None and channel.created_at.tzinfo is not None
    post = api(
        lambda c: c.posts.create(
            channel_id=channel.id,
            title="Launch",
            body="**Today**",
            tags=["launch"],
            priority="high",
        )
    )
    assert isinstance(post, Post) and post.status == "published"
    assert post.author is not None and post.published_at is not None
    assert post.published_at.utcoffset() == timedelta(0)
    assert api(lambda c: c.posts.retrieve(post.id)) == post
    updated = api(lambda c: c.posts.update(post.id, title="Launch day", status="archived"))
    assert (updated.title, updated.status) == ("Launch day", "archived")
    assert [p.id for p in api.all(lambda c: c.posts.list(tag="launch"))] == [post.id]
    assert [x.id for x in api.all(lambda c: c.channels.list()) if x.id == channel.id] == [
        channel.id
    ]
    assert api(lambda c: c.channels.retrieve(channel.id)).name == "Product News"
    changed = api(lambda c: c.channels.update(channel.id, description="all launches"))
    assert changed.description == "all launches"
    api(lambda c: c.posts.delete(post.id))
    with pytest.raises(ck.NotFoundError):
        api(lambda c: c.posts.retrieve(post.id))
    api(lambda c: c.channels.delete(channel.id))


def test_listings_page_and_raw_pages(api: Api) -> None:
    channel = api(lambda c: c.channels.create(name="Pages"))
    ids = {
        api(lambda c, n=n: c.posts.create(channel_id=channel.id, title=f"{n}", body="b")).id
        for n in range(7)
    }
    assert {p.id for p in api.all(lambda c: c.posts.list(channel_id=channel.id, limit=3))} == ids
    page = api.first_page(lambda c: c.posts.list(channel_id=channel.id, limit=5))
    assert len(page.data) == 5 and page.has_more and page.next_cursor
    raw = api.all(lambda c: c.raw_pages("/posts", {"channel_id": channel.id}, limit=4))
    assert [len(p.data) for p in raw] == [4, 3] and raw[0].cursor is None
    assert api(lambda c: c.request("GET", f"/channels/{channel.id}"))["name"] == "Pages"
    assert api.client.stats.responses_429 == 0 and api.client.rate_limit is not None


def test_scheduled_post_accepts_aware_datetimes_and_strings(api: Api) -> None:
    channel = api(lambda c: c.channels.create(name="Later"))
    when = datetime.now(UTC).replace(microsecond=0) + timedelta(days=2)
    post = api(
        lambda c: c.posts.create(channel_id=channel.id, title="t", body="b", scheduled_at=when)
    )
    assert post.status == "scheduled" and post.scheduled_at == when and post.published_at is None
    as_text = (when + timedelta(hours=1)).isoformat()
    later = api(
        lambda c: c.posts.create(channel_id=channel.id, title="t", body="b", scheduled_at=as_text)
    )
    assert later.scheduled_at == when + timedelta(hours=1)


def test_same_idempotency_key_creates_once(api: Api) -> None:
    channel = api(lambda c: c.channels.create(name="Once"))
    kwargs = {"channel_id": channel.id, "title": "t", "body": "b", "idempotency_key": "k-1"}
    first = api(lambda c: c.posts.create(**kwargs))
    again = api(lambda c: c.posts.create(**kwargs))
    assert first.id == again.id
    assert [p.id for p in api.all(lambda c: c.posts.list(channel_id=channel.id))] == [first.id]
    with pytest.raises(ck.ConflictError) as info:
        api(
            lambda c: c.posts.create(
                channel_id=channel.id, title="other", body="b", idempotency_key="k-1"
            )
        )
    assert info.value.param == "Idempotency-Key"


def test_error_statuses_map_to_their_exceptions(
    service: LocalService, api: Api, make_api: MakeApi
) -> None:
    channel = api(lambda c: c.channels.create(name="Errors"))
    api(lambda c: c.posts.create(channel_id=channel.id, title="t", body="b"))
    with pytest.raises(ck.BadRequestError) as bad:
        api(lambda c: c.posts.create(channel_id="chan_nope", title="t", body="b"))
    assert bad.value.status == 400 and bad.value.code == "invalid_request"
    assert bad.value.param == "channel_id" and "(param: channel_id)" in str(bad.value)
    with pytest.raises(ck.AuthenticationError) as unauthorized:
        make_api(service, "ck_not_a_key").first_page(lambda c: c.channels.list())
    assert unauthorized.value.status == 401 and unauthorized.value.code == "unauthorized"
    reader = make_api(service, service.create_key(user="admin", scopes=["posts:read"]))
    with pytest.raises(ck.PermissionDeniedError) as forbidden:
        reader(lambda c: c.channels.create(name="Nope"))
    assert forbidden.value.status == 403 and forbidden.value.code == "forbidden"
    with pytest.raises(ck.NotFoundError) as missing:
        api(lambda c: c.channels.retrieve("chan_missing"))
    assert missing.value.status == 404 and missing.value.request is not None
    assert missing.value.request.method == "GET"
    with pytest.raises(ck.ConflictError) as taken:
        api(lambda c: c.channels.create(name="Errors again", slug=channel.slug))
    assert taken.value.param == "slug"
    with pytest.raises(ck.ConflictError):
        api(lambda c: c.channels.delete(channel.id))  # still holds a post
    with pytest.raises(ck.ChannelkitError):
        api(lambda c: c.posts.retrieve("post_missing"))


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


def test_async_tasks_share_one_client(service: LocalService, admin_key: str) -> None:
    async def main() -> list[str]:
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
            return listed

    assert len(asyncio.run(main())) == 7


def test_server_errors_surface_after_the_retries(
    service_factory: Callable[..., LocalService], make_api: MakeApi
) -> None:
    service = service_factory(faults="500=1.0")
    api = make_api(service, service.create_key(plan="enterprise"), max_retries=1)
    with pytest.raises(ck.ServerError) as info:
        api.first_page(lambda c: c.channels.list())
    assert info.value.status == 500 and info.value.code == "server_error"
    assert api.client.stats.requests == 2 and api.client.stats.retries == 1


def test_if_match_protects_edits_of_posts_and_channels(api: Api) -> None:
    channel = api(lambda c: c.channels.create(name="Versions"))
    post = api(lambda c: c.posts.create(channel_id=channel.id, title="v1", body="b"))
    read = api(lambda c: c.posts.retrieve(post.id))
    assert post.etag and read.etag == post.etag
    mine = api(lambda c: c.posts.update(post.id, tags=["hr"], if_match=read.etag))
    assert mine.etag and mine.etag != read.etag
    with pytest.raises(ck.ConflictError) as stale:  # a second editor still holding v1
        api(lambda c: c.posts.update(post.id, tags=["it"], if_match=read.etag))
    assert stale.value.param == "If-Match" and "changed since you read it" in str(stale.value)
    assert api(lambda c: c.posts.retrieve(post.id)).tags == ["hr"]  # nothing changed
    with pytest.raises(ck.ConflictError):
        api(lambda c: c.posts.delete(post.id, if_match=read.etag))
    api(lambda c: c.posts.delete(post.id, if_match=mine.etag))
    with pytest.raises(ck.ConflictError) as channel_stale:
        api(lambda c: c.channels.update(channel.id, name="Renamed", if_match='"stale"'))
    assert channel_stale.value.param == "If-Match"
    fresh = api(lambda c: c.channels.retrieve(channel.id)).etag
    renamed = api(lambda c: c.channels.update(channel.id, name="Renamed", if_match=fresh))
    api(lambda c: c.channels.delete(channel.id, if_match=renamed.etag))


def test_left_out_keeps_a_field_and_none_clears_a_clearable_one(api: Api) -> None:
    """`NOT_GIVEN` (the default) leaves the cover image; `None` removes it, on the service."""
    channel = api(lambda c: c.channels.create(name="Covers"))
    cover = "https://example.com/cover.png"
    post = api(
        lambda c: c.posts.create(channel_id=channel.id, title="T", body="B", cover_image_url=cover)
    )
    kept = api(lambda c: c.posts.update(post.id, title="Renamed"))
    assert (kept.title, kept.cover_image_url) == ("Renamed", cover)
    assert api(lambda c: c.posts.update(post.id, title="Again", cover_image_url=ck.NOT_GIVEN))
    cleared = api(lambda c: c.posts.update(post.id, cover_image_url=None))
    assert (cleared.title, cleared.cover_image_url) == ("Again", None)
    assert api(lambda c: c.posts.retrieve(post.id)).cover_image_url is None
    # a field the contract does not let clear is refused before anything is sent
    with pytest.raises(ck.InvalidParameterError, match="title: cannot be cleared"):
        api(lambda c: c.posts.update(post.id, title=None))
    with pytest.raises(ck.InvalidParameterError, match="no field to change"):
        api(lambda c: c.posts.update(post.id))
    assert api(lambda c: c.posts.retrieve(post.id)).title == "Again"
