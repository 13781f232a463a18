"""ck.schedule against the real local service, and its notebook preview."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

import channelkit as ck
from channelkit.client import Client
from channelkit.client.models import Post
from channelkit.publish import PostValidationError, ScheduledPost
from channelkit.service import LocalService

pytestmark = pytest.mark.calendar


@pytest.fixture
def client(service: LocalService, admin_key: str) -> Iterator[Client]:
    """One channel only (not the two of tests/publish/conftest.py): a message lists it alone."""
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        client.channels.create(name="All hands")
        yield client


def _posts(client: Client) -> list[Post]:
    return list(client.posts.list())


def test_schedule_with_local_time_and_preview(client: Client) -> None:
    post = ck.schedule(
        channel="All hands",
        title="Town hall <b>now</b>",
        body="**Bold** <script>alert(1)</script> [x](javascript:alert(2))",
        at="2030-12-02 09:00",
        tz="Europe/Berlin",
        priority="high",
        tags=["hr", "town-hall"],
        client=client,
    )
    assert isinstance(post, ScheduledPost) and isinstance(post, Post)
    assert post.status == "scheduled"
    assert post.scheduled_at == datetime(2030, 12, 2, 8, 0, tzinfo=UTC)
    assert post.priority == "high"
    assert post.tags[:2] == ["hr", "town-hall"]  # then the post's origin (publish/post/origin.py)
    assert len(post.tags) == 3 and post.tags[2].startswith("sent-by-channelkit:")
    assert [p.id for p in _posts(client)] == [post.id]

    html = post._repr_html_()
    assert "<strong>Bold</strong>" in html
    assert "<script>" not in html and 'href="javascript' not in html
    assert "Town hall &lt;b&gt;now&lt;/b&gt;" in html
    assert "<b>All hands</b>" in html
    assert "Mon 2 Dec 2030, 09:00 Europe/Berlin (08:00 UTC)" in html
    assert post.id in html


def test_running_the_cell_again_does_not_post_twice(client: Client) -> None:
    kwargs = {"channel": "all-hands", "title": "Once", "body": "only once", "client": client}
    first = ck.schedule(**kwargs)  # type: ignore[arg-type]
    again = ck.schedule(**kwargs)  # type: ignore[arg-type]
    assert first.id == again.id
    assert first.status == "published"
    assert len(_posts(client)) == 1
    assert first.published_at is not None
    assert f"{first.published_at:%H:%M} UTC" in first._repr_html_()


def test_invalid_post_sends_nothing_and_lists_every_problem(client: Client) -> None:
    with pytest.raises(PostValidationError) as caught:
        ck.schedule(
            channel="all-hand",
            title="",
            body="b",
            at="2030-03-31 02:30",
            tz="Europe/Berlin",
            priority="urgent",
            client=client,
        )
    assert [error.field for error in caught.value.errors] == [
        "channel",
        "title",
        "priority",
        "scheduled_at",
    ]
    assert str(caught.value).startswith(
        "channel: no channel 'all-hand' (id, slug or name) visible to this API key; did you "
        "mean 'all-hands'? "
        "choices: all-hands; title: title is required; priority: urgent bypasses"
    )
    assert _posts(client) == []


def test_urgent_with_confirmation_and_aware_datetime(client: Client) -> None:
    at = (datetime.now(UTC) + timedelta(hours=2)).replace(microsecond=0)
    post = ck.schedule(
        channel="all-hands",
        title="Outage",
        body="Now.",
        at=at,
        priority="urgent",
        confirm_urgent=True,
        client=client,
    )
    assert post.priority == "urgent"
    assert post.scheduled_at == at


def test_client_from_environment_and_default_timezone(
    service: LocalService, admin_key: str, client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHANNELKIT_BASE_URL", service.base_url)
    monkeypatch.setenv("CHANNELKIT_API_KEY", admin_key)
    monkeypatch.setenv("CHANNELKIT_TZ", "America/New_York")
    post = ck.schedule(channel="all-hands", title="Env", body="b", at="2030-12-02 09:00")
    assert post.scheduled_at == datetime(2030, 12, 2, 14, 0, tzinfo=UTC)
    assert "America/New_York" in post._repr_html_()
    assert admin_key not in repr(post) + post._repr_html_()


@pytest.mark.parametrize(
    "at",
    [
        "2030-12-02 09:00+24:00",
        "2030-12-02 09:00+99:99",
        "9999-12-31 23:59:59-14:00",
        datetime(9999, 12, 31, 23, 0),
        "0001-01-01 00:00+05:00",
        10**400,
    ],
    ids=repr,
)
def test_hostile_times_are_a_validation_error_and_send_nothing(client: Client, at: object) -> None:
    with pytest.raises(PostValidationError) as info:
        ck.schedule(
            channel="All hands",
            title="t",
            body="b",
            at=at,
            tz="America/Los_Angeles",
            client=client,
        )
    assert [error.field for error in info.value.errors] == ["scheduled_at"]
    assert not _posts(client)


def test_fractions_of_a_second_are_dropped_so_a_rerun_is_the_same_post(client: Client) -> None:
    first = ck.schedule(
        channel="All hands",
        title="t",
        body="b",
        at="2030-12-02 09:00:30.25",
        tz="UTC",
        client=client,
    )
    again = ck.schedule(
        channel="All hands",
        title="t",
        body="b",
        at="2030-12-02 09:00:30.75",
        tz="UTC",
        client=client,
    )
    assert first.id == again.id and first.scheduled_at == datetime(
        2030, 12, 2, 9, 0, 30, tzinfo=UTC
    )
    assert len(_posts(client)) == 1
