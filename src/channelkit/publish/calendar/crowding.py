"""Posts crowding one channel, for a calendar file: each row at the time it will have."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from channelkit.publish.calendar.round_trip import CalendarPlan
from channelkit.publish.sheets.placing import crowding_messages, scheduled_posts, service_placed
from channelkit.publish.sheets.slots import PlacedPost, too_close

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Post
    from channelkit.publish.post.validation import PostRequest


def crowded_calendar(calendar: CalendarPlan, client: Client, gap: timedelta) -> list[str]:
    """As `crowded_plan`, for a calendar: each row at the time it will have."""
    placed: list[PlacedPost] = []
    mine: set[str] = set()
    for row in calendar.rows:
        if row.post_id:
            mine.add(row.post_id)
        moment = _time_after(row.kind, row.request, calendar.posts.get(row.post_id or ""))
        if moment is not None and row.request is not None:
            placed.append(PlacedPost(row.request.channel_id, moment, row.label(), row.number))
    listed = scheduled_posts(client, {item.channel for item in placed})
    placed.extend(service_placed(listed, mine))
    return crowding_messages(too_close(placed, gap), gap)


def _time_after(kind: str, request: PostRequest | None, post: Post | None) -> datetime | None:
    if kind in ("cancel", "publish-now", "error"):
        return None
    if kind in ("unchanged", "conflict"):
        return post.scheduled_at if post is not None and post.status == "scheduled" else None
    return request.scheduled_at if request is not None else None
