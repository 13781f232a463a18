"""Analytics rows through both clients, against the seeded demo service."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

import channelkit as ck
from channelkit.client import ChannelAnalyticsRow, PostAnalyticsRow
from channelkit.service import LocalService
from client.conftest import Api, MakeApi

pytestmark = pytest.mark.calendar


@pytest.fixture
def analytics(demo_service: LocalService, make_api: MakeApi) -> Api:
    key = demo_service.create_key(user="admin", team="comms", plan="enterprise")
    return make_api(demo_service, key)


def test_post_rows_cover_the_range_and_filter_by_channel(analytics: Api) -> None:
    end = datetime.now(UTC).date()
    start = end - timedelta(days=2)
    rows = analytics.all(lambda c: c.analytics.posts(start=start, end=end))
    assert rows and all(isinstance(r, PostAnalyticsRow) for r in rows)
    assert {r.date for r in rows} <= {start, start + timedelta(days=1)}
    assert all(r.unique_viewers <= r.views for r in rows)
    channel_id = rows[0].channel_id
    in_channel = analytics.all(
        lambda c: c.analytics.posts(start=start, end=end, channel_id=channel_id, limit=7)
    )
    assert in_channel and {r.channel_id for r in in_channel} == {channel_id}
    key = lambda r: (r.post_id, r.date)  # noqa: E731
    assert sorted(map(key, in_channel)) == sorted(
        key(r) for r in rows if r.channel_id == channel_id
    )
    one_post = analytics.all(lambda c: c.analytics.posts(post_id=rows[0].post_id))
    assert one_post and {r.post_id for r in one_post} == {rows[0].post_id}


def test_channel_rows(analytics: Api) -> None:
    end = datetime.now(UTC).date()
    rows = analytics.all(lambda c: c.analytics.channels(start=end - timedelta(days=1), end=end))
    assert rows and all(isinstance(r, ChannelAnalyticsRow) for r in rows)
    assert {r.date for r in rows} == {end - timedelta(days=1)}
    assert len({r.channel_id for r in rows}) == len(rows)
    page = analytics.first_page(lambda c: c.analytics.channels(channel_id=rows[0].channel_id))
    assert {r.channel_id for r in page.data} == {rows[0].channel_id}


def test_naive_range_is_refused(analytics: Api) -> None:
    with pytest.raises(ck.ChannelkitError, match="^start: naive datetime"):
        analytics.all(lambda c: c.analytics.posts(start=datetime(2026, 11, 1)))
    with pytest.raises(ck.ChannelkitError, match="^end: naive datetime"):
        analytics.all(lambda c: c.analytics.channels(end=datetime(2026, 11, 1)))
