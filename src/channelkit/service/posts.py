"""Post operations: list, retrieve, create, update (status transitions), delete.

A scheduled post whose time has come is settled (stored as published, with `published_at`
= `scheduled_at`) before any read, so reads never show it as scheduled, even when the
service was not running at that moment.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from channelkit import _spec
from channelkit.errors import ServiceHTTPError
from channelkit.service.channels import find_visible
from channelkit.service.db import insert_row, update_row
from channelkit.service.engagement import post_daily_rows, subscribers_on
from channelkit.service.models import stored_fields
from channelkit.service.timefmt import day_of, format_instant, instant_param
from channelkit.service.workspace import Principal, new_id, visible_channels


def _ts(column: str) -> str:
    return f"strftime('%Y-%m-%dT%H:%M:%SZ', {column}, 'unixepoch')"


# Each post is rendered to JSON by SQLite itself (json_object keeps the key order): lists
# of a hundred posts are then joined, not built and serialised field by field in Python.
# The fields and their order come from the contract; these are the ones not stored as sent.
_RENDER = {
    "channel_id": "c.id",
    "tags": "json(p.tags)",
    "author": "json_object('id', u.id, 'name', u.name, 'email', u.email)",
    "views": "(SELECT coalesce(sum(d.unique_viewers), 0) FROM post_daily d"
    " WHERE d.post_seq = p.seq AND d.day < ?)",
}
STORED = stored_fields(_spec.POST_FIELDS)


def _render(field: _spec.Field) -> str:
    if field.name in _RENDER:
        return _RENDER[field.name]
    return _ts(f"p.{field.name}") if field.kind == "instant" else f"p.{field.name}"


_COLUMNS = (
    "p.seq, json_object(" + ", ".join(f"'{f.name}', {_render(f)}" for f in _spec.POST_FIELDS) + ")"
)
_FROM = (
    " FROM posts p JOIN channels c ON c.seq = p.channel_seq JOIN users u ON u.seq = p.author_seq"
)


def any_due(con: sqlite3.Connection, now: float) -> bool:
    """Whether a scheduled post's time has passed (so `publish_due` has work to do)."""
    due = con.execute("SELECT min(scheduled_at) FROM posts WHERE status = 'scheduled'").fetchone()
    return due[0] is not None and due[0] <= now


def publish_due(con: sqlite3.Connection, now: float) -> int:
    """Settle every scheduled post whose time has passed; returns how many."""
    if not any_due(con, now):
        return 0
    cur = con.execute(
        "UPDATE posts SET status = 'published', published_at = scheduled_at,"
        " updated_at = scheduled_at WHERE status = 'scheduled' AND scheduled_at <= ?",
        (now,),
    )
    return cur.rowcount


# listing filter -> its SQL condition on `posts p` (one parameter each); the app and the
# OpenAPI document take the filter names from here
FILTER_CLAUSES = {
    "channel_id": "p.channel_seq = (SELECT seq FROM channels WHERE id = ?)",
    "author_id": "p.author_seq = (SELECT seq FROM users WHERE id = ?)",
    "tag": "p.seq IN (SELECT post_seq FROM post_tags WHERE tag = ?)",
    "priority": "p.priority = ?",
    "published_after": "p.published_at > ?",
    "published_before": "p.published_at < ?",
}


def list_posts(
    con: sqlite3.Connection,
    principal: Principal,
    filters: dict[str, Any],
    *,
    before_seq: int | None,
    limit: int,
    now: float,
) -> tuple[list[str], int | None]:
    """One page (each post as JSON text), newest first, and the last item's position
    when more follow."""
    seqs = visible_channels(con, principal)
    # `+` keeps SQLite on the primary key, walking newest-first and stopping at the limit
    where = [f"+p.channel_seq IN ({','.join(map(str, seqs))})"]
    args: list[Any] = []
    for name, clause in FILTER_CLAUSES.items():
        if name in filters:
            where.append(clause)
            args.append(filters[name])
    if before_seq is not None:
        where.append("p.seq < ?")
        args.append(before_seq)
    # pick the page's rows first, so the per-row columns are computed for that page only
    sql = (
        f"SELECT {_COLUMNS}{_FROM} WHERE p.seq IN (SELECT p.seq FROM posts p"
        f" WHERE {' AND '.join(where)} ORDER BY p.seq DESC LIMIT ?) ORDER BY p.seq DESC"
    )
    args = [day_of(now), *args, limit + 1]
    rows = con.execute(sql, args).fetchall()
    more = len(rows) > limit
    rows = rows[:limit]
    return [r[1] for r in rows], (rows[-1][0] if more else None)


def get_post(
    con: sqlite3.Connection, principal: Principal, post_id: str, now: float
) -> dict[str, Any]:
    return _load(con, _find(con, principal, post_id), now)


def create_post(
    con: sqlite3.Connection, principal: Principal, data: Any, now: float
) -> dict[str, Any]:
    channel_seq = _writable_channel(con, principal, data.channel_id)
    scheduled_at = None
    if data.scheduled_at is not None:
        scheduled_at = _future(data.scheduled_at, now)
    status = "published" if scheduled_at is None else "scheduled"
    published_at = int(now) if scheduled_at is None else None
    row = {
        "id": new_id("post"),
        "channel_seq": channel_seq,
        "author_seq": principal.user_seq,
        "tags": json.dumps(data.tags, ensure_ascii=False),
        "status": status,
        "published_at": published_at,
        "scheduled_at": scheduled_at,
        "created_at": int(now),
        "updated_at": int(now),
        **{name: getattr(data, name) for name in STORED},
    }
    seq = insert_row(con, "posts", row)
    con.executemany("INSERT INTO post_tags VALUES (?, ?)", [(t, seq) for t in data.tags])
    materialize(con, seq)
    return _load(con, seq, now)


def update_post(
    con: sqlite3.Connection,
    principal: Principal,
    post_id: str,
    data: Any,
    now: float,
) -> dict[str, Any]:
    seq = _find(con, principal, post_id)
    status, scheduled_at = con.execute(
        "SELECT status, scheduled_at FROM posts WHERE seq = ?", (seq,)
    ).fetchone()
    sent = data.model_fields_set
    new_schedule = _future(data.scheduled_at, now) if "scheduled_at" in sent else None
    target = _target_status(status, data.status if "status" in sent else None, new_schedule)
    changes = _content_changes(con, principal, data, sent)
    if "tags" in sent:
        con.execute("DELETE FROM post_tags WHERE post_seq = ?", (seq,))
        con.executemany("INSERT INTO post_tags VALUES (?, ?)", [(t, seq) for t in data.tags])
    moved, republish = _status_move(status, target, scheduled_at, new_schedule, now)
    if moved.get("status") == "archived":
        # readers stop arriving once a post is archived
        con.execute("DELETE FROM post_daily WHERE post_seq = ? AND day > ?", (seq, day_of(now)))
    changes.update(moved)
    if changes:
        changes["updated_at"] = int(now)
        update_row(con, "posts", seq, changes)
    if republish:
        materialize(con, seq)
    return _load(con, seq, now)


def _target_status(
    status: _spec.PostStatus, asked: str | None, new_schedule: int | None
) -> str | None:
    """The status an update moves a `status` post to (None: it stays), refused when the
    post cannot go there; a new `scheduled_at` alone asks for "scheduled"."""
    target = asked
    if new_schedule is not None and target is None:
        if status not in ("draft", "scheduled"):
            raise ServiceHTTPError(
                409, f"status: a {status} post cannot be scheduled", param="status"
            )
        target = "scheduled"
    # scheduling again (a new time) is a move too, even for a post already scheduled
    if target is not None and target != status or target == "scheduled":
        if target not in _spec.POST_TRANSITIONS[status]:
            raise ServiceHTTPError(
                409, f"status: cannot go from {status} to {target}", param="status"
            )
    if new_schedule is not None and target != "scheduled":
        raise ServiceHTTPError.bad_request(
            "scheduled_at", f"only a post being scheduled takes it, not {target}"
        )
    return target


def _content_changes(
    con: sqlite3.Connection, principal: Principal, data: Any, sent: set[str]
) -> dict[str, Any]:
    """The columns of the fields sent, other than the status and its times."""
    changes: dict[str, Any] = {}
    if "channel_id" in sent:
        changes["channel_seq"] = _writable_channel(con, principal, data.channel_id)
    for field in STORED:
        if field in sent:
            changes[field] = getattr(data, field)
    if "tags" in sent:
        changes["tags"] = json.dumps(data.tags, ensure_ascii=False)
    return changes


def _status_move(
    status: _spec.PostStatus,
    target: str | None,
    scheduled_at: int | None,
    new_schedule: int | None,
    now: float,
) -> tuple[dict[str, Any], bool]:
    """The columns moving a `status` post to `target` sets, and whether its readers are
    computed again (they follow the publication time, which moved)."""
    if target == "scheduled":
        when = new_schedule if new_schedule is not None else scheduled_at
        if when is None:
            raise ServiceHTTPError.bad_request("scheduled_at", "is required to schedule a post")
        return {"status": "scheduled", "scheduled_at": when, "published_at": None}, True
    if target == "draft" and status != "draft":
        return {"status": "draft", "scheduled_at": None, "published_at": None}, True
    if target == "published" and status in ("draft", "scheduled"):
        return {"status": "published", "scheduled_at": None, "published_at": int(now)}, True
    if target == "archived" and status != "archived":
        return {"status": "archived"}, False
    if target == "published" and status == "archived":
        return {"status": "published"}, False
    return {}, False


def delete_post(con: sqlite3.Connection, principal: Principal, post_id: str) -> None:
    seq = _find(con, principal, post_id)
    con.execute("DELETE FROM post_tags WHERE post_seq = ?", (seq,))
    con.execute("DELETE FROM post_daily WHERE post_seq = ?", (seq,))
    con.execute("DELETE FROM posts WHERE seq = ?", (seq,))


def materialize(con: sqlite3.Connection, seq: int) -> None:
    """(Re)compute a post's daily engagement rows from its (planned) publication time.

    Rows of days still to come are stored too; reads only ever show finished days.
    """
    con.execute("DELETE FROM post_daily WHERE post_seq = ?", (seq,))
    row = con.execute(
        "SELECT p.id, coalesce(p.published_at, p.scheduled_at), p.priority, p.tags,"
        " p.cover_image_url, c.id, c.audience, c.created_at"
        " FROM posts p JOIN channels c ON c.seq = p.channel_seq WHERE p.seq = ?",
        (seq,),
    ).fetchone()
    if row is None or row[1] is None:
        return
    post_id, when, priority, tags, cover, channel_id, audience, created_at = row
    con.executemany(
        "INSERT INTO post_daily VALUES (?,?,?,?,?,?,?,?)",
        engagement_rows(
            seq,
            post_id,
            when,
            priority,
            json.loads(tags),
            cover is not None,
            channel_id,
            audience,
            created_at,
        ),
    )


def engagement_rows(
    seq: int,
    post_id: str,
    when: int,
    priority: str,
    tags: list[str],
    has_cover: bool,
    channel_id: str,
    audience: int,
    channel_created_at: int,
) -> list[tuple[int, ...]]:
    """A post's `post_daily` rows, given its publication time and its channel."""
    size = subscribers_on(channel_id, audience, day_of(channel_created_at), day_of(when))
    return [
        (seq, r.day, r.views, r.unique_viewers, r.reactions, r.comments, r.shares, r.clicks)
        for r in post_daily_rows(post_id, when, priority, tags, size, has_cover)
    ]


def _find(con: sqlite3.Connection, principal: Principal, post_id: str) -> int:
    row = con.execute("SELECT seq, channel_seq FROM posts WHERE id = ?", (post_id,)).fetchone()
    if row is None or row[1] not in visible_channels(con, principal):
        raise ServiceHTTPError(404, f"no post {post_id!r}", param="id")
    return int(row[0])


def _load(con: sqlite3.Connection, seq: int, now: float) -> dict[str, Any]:
    row = con.execute(f"SELECT {_COLUMNS}{_FROM} WHERE p.seq = ?", (day_of(now), seq)).fetchone()
    post: dict[str, Any] = json.loads(row[1])
    return post


def _writable_channel(con: sqlite3.Connection, principal: Principal, channel_id: str) -> int:
    seq = find_visible(con, principal, channel_id)
    if seq is None:
        raise ServiceHTTPError.bad_request("channel_id", f"no channel {channel_id!r}")
    archived = con.execute("SELECT is_archived FROM channels WHERE seq = ?", (seq,)).fetchone()
    if archived[0]:
        raise ServiceHTTPError.bad_request(
            "channel_id", f"channel {channel_id!r} is archived; posts cannot go there"
        )
    return seq


def _future(value: str, now: float) -> int:
    instant = instant_param(value, "scheduled_at")
    if instant <= now:
        raise ServiceHTTPError.bad_request(
            "scheduled_at",
            f"{value!r} is not in the future (service time {format_instant(int(now))})",
        )
    return int(instant)
