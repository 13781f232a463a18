"""The publishing benches' workspace: scheduled posts in two channels.

first = schedule_posts(client, 200)  # 200 posts an hour apart, from two days ahead
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from channelkit.client import Client


def schedule_posts(client: Client, rows: int) -> datetime:
    """Create the channels News and Team and `rows` posts scheduled an hour apart, taking
    turns between them, from two days ahead; return the first post's time."""
    channels = [client.channels.create(name=name) for name in ("News", "Team")]
    first = datetime.now(UTC).replace(microsecond=0) + timedelta(days=2)
    for number in range(rows):
        client.posts.create(
            channel_id=channels[number % 2].id,
            title=f"Post {number}",
            body="Body",
            scheduled_at=first + timedelta(hours=number),
        )
    return first
