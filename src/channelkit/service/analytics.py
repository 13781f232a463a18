"""Daily engagement listings: `GET /analytics/posts` and `GET /analytics/channels`.

Only finished UTC days are listed (the current day appears once it has ended, by the
service clock), and a post's `views` is the sum of its listed rows' `unique_viewers`.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from channelkit._constants import ENGAGEMENT_HORIZON_DAYS
from channelkit.service.engagement import channel_day
from channelkit.service.timefmt import SECONDS_PER_DAY, day_of, day_start, format_day
from channelkit.service.workspace import Principal, visible_channels

Position = list[int]


def post_rows(
    con: sqlite3.Connection,
    principal: Principal,
    *,
    post_id: str | None,
    channel_id: str | None,
    start: int | None,
    end: int | None,
    after: Position | None,
    limit: int,
    now: float,
) -> tuple[list[dict[str, Any]], Position | None]:
    """A page of post-day rows ordered by (post, day), and the last position if more follow."""
    seqs = ",".join(map(str, visible_channels(con, principal)))
    where = [f"+p.channel_seq IN ({seqs})", "d.day < ?"]
    args: list[Any] = [_end_day(end, now)]
    if start is not None:
        where.append("d.day >= ?")
        args.append(start)
        # rows lie within the horizon after publication: skip posts published long before
        where.append(
            "d.post_seq >= (SELECT coalesce(min(seq), 0) FROM posts"
            " WHERE coalesce(published_at, scheduled_at) >= ?)"
        )
        args.append(day_start(start - ENGAGEMENT_HORIZON_DAYS))
    if post_id is not None:
        where.append("d.post_seq = (SELECT seq FROM posts WHERE id = ?)")
        args.append(post_id)
    if channel_id is not None:
        where.append("p.channel_seq = (SELECT seq FROM channels WHERE id = ?)")
        args.append(channel_id)
    if after is not None:
        where.append("(d.post_seq, d.day) > (?, ?)")
        args += after
    rows = con.execute(
        "SELECT d.post_seq, d.day, p.id, c.id, d.views, d.unique_viewers, d.reactions,"
        " d.comments, d.shares, d.clicks FROM post_daily d"
        " JOIN posts p ON p.seq = d.post_seq JOIN channels c ON c.seq = p.channel_seq"
        f" WHERE {' AND '.join(where)} ORDER BY d.post_seq, d.day LIMIT ?",
        [*args, limit + 1],
    ).fetchall()
    more = len(rows) > limit
    rows = rows[:limit]
    items = [
        {
            "post_id": r[2],
            "channel_id": r[3],
            "date": format_day(r[1]),
            "views": r[4],
            "unique_viewers": r[5],
            "reactions": r[6],
            "comments": r[7],
            "shares": r[8],
            "clicks": r[9],
        }
        for r in rows
    ]
    return items, ([rows[-1][0], rows[-1][1]] if more else None)


def channel_rows(
    con: sqlite3.Connection,
    principal: Principal,
    *,
    channel_id: str | None,
    start: int | None,
    end: int | None,
    after: Position | None,
    limit: int,
    now: float,
) -> tuple[list[dict[str, Any]], Position | None]:
    """A page of channel-day rows ordered by (channel, day), and the last position."""
    visible = visible_channels(con, principal)
    rows = con.execute(
        f"SELECT seq, id, audience, created_at FROM channels WHERE seq IN"
        f" ({','.join(map(str, visible))}) ORDER BY seq"
    ).fetchall()
    stop = _end_day(end, now)
    items: list[dict[str, Any]] = []
    last: Position | None = None
    for seq, cid, audience, created_at in rows:
        if channel_id is not None and cid != channel_id:
            continue
        if after is not None and seq < after[0]:
            continue
        first = max(day_of(created_at), start if start is not None else -(10**9))
        if after is not None and seq == after[0]:
            first = max(first, after[1] + 1)
        if first >= stop:
            continue
        if len(items) == limit:
            return items, last  # more rows follow in this channel
        take = min(stop - first, limit - len(items))
        published = _per_day(
            con,
            f"SELECT published_at / {SECONDS_PER_DAY}, count(*) FROM posts WHERE channel_seq = ?"
            " AND published_at >= ? AND published_at < ? GROUP BY 1",
            (seq, day_start(first), day_start(first + take)),
        )
        views = _per_day(
            con,
            "SELECT d.day, sum(d.views) FROM post_daily d JOIN posts p ON p.seq = d.post_seq"
            " WHERE p.channel_seq = ? AND d.day >= ? AND d.day < ? GROUP BY 1",
            (seq, first, first + take),
        )
        for day in range(first, first + take):
            subscribers, gained, lost = channel_day(cid, audience, day_of(created_at), day)
            items.append(
                {
                    "channel_id": cid,
                    "date": format_day(day),
                    "subscribers": subscribers,
                    "subscribers_gained": gained,
                    "subscribers_lost": lost,
                    "posts_published": published.get(day, 0),
                    "views": views.get(day, 0),
                }
            )
        last = [seq, first + take - 1]
        if first + take < stop and len(items) == limit:
            return items, last
    return items, None


def _end_day(end: int | None, now: float) -> int:
    """The first day not listed: `end`, but never the current (unfinished) day or later."""
    today = day_of(now)
    return today if end is None else min(end, today)


def _per_day(con: sqlite3.Connection, sql: str, args: tuple[int, ...]) -> dict[int, int]:
    return {int(day): int(value) for day, value in con.execute(sql, args)}
