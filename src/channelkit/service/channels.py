"""Channel operations: list, retrieve, create, update, delete, as one principal sees them."""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from typing import Any

from channelkit._constants import SERVICE_CHANNEL_AUDIENCE
from channelkit.service.engagement import subscribers
from channelkit.service.errors import ApiError, bad_request
from channelkit.service.timefmt import day_of, format_instant
from channelkit.service.workspace import Principal, new_id, visible_channels

_COLUMNS = (
    "c.seq, c.id, c.name, c.slug, c.description, c.visibility, c.is_default, c.is_archived,"
    " c.audience, c.created_at, c.updated_at,"
    " (SELECT count(*) FROM posts p WHERE p.channel_seq = c.seq)"
)


def render(row: tuple[Any, ...], now: float) -> dict[str, Any]:
    return {
        "id": row[1],
        "name": row[2],
        "slug": row[3],
        "description": row[4],
        "visibility": row[5],
        "subscriber_count": subscribers(row[1], row[8], day_of(row[9]), day_of(now)),
        "post_count": row[11],
        "is_default": bool(row[6]),
        "is_archived": bool(row[7]),
        "created_at": format_instant(row[9]),
        "updated_at": format_instant(row[10]),
    }


def list_channels(
    con: sqlite3.Connection,
    principal: Principal,
    *,
    visibility: str | None,
    after_seq: int | None,
    limit: int,
    now: float,
) -> tuple[list[dict[str, Any]], int | None]:
    """One page in creation order, and the last item's position when more follow."""
    seqs = visible_channels(con, principal)
    sql = f"SELECT {_COLUMNS} FROM channels c WHERE c.seq IN ({','.join(map(str, seqs))})"
    args: list[Any] = []
    if visibility is not None:
        sql += " AND c.visibility = ?"
        args.append(visibility)
    if after_seq is not None:
        sql += " AND c.seq > ?"
        args.append(after_seq)
    sql += " ORDER BY c.seq LIMIT ?"
    args.append(limit + 1)
    rows = con.execute(sql, args).fetchall()
    more = len(rows) > limit
    rows = rows[:limit]
    return [render(r, now) for r in rows], (rows[-1][0] if more else None)


def find_visible(con: sqlite3.Connection, principal: Principal, channel_id: str) -> int | None:
    """The channel's sequence number, or None when it does not exist for `principal`."""
    row = con.execute("SELECT seq FROM channels WHERE id = ?", (channel_id,)).fetchone()
    if row is None or row[0] not in visible_channels(con, principal):
        return None
    return int(row[0])


def get_channel(
    con: sqlite3.Connection, principal: Principal, channel_id: str, now: float
) -> dict[str, Any]:
    seq = find_visible(con, principal, channel_id)
    if seq is None:
        raise ApiError(404, f"no channel {channel_id!r}", param="id")
    return _load(con, seq, now)


def create_channel(
    con: sqlite3.Connection, principal: Principal, data: Any, now: float
) -> dict[str, Any]:
    if data.is_default and data.visibility == "private":
        raise _default_conflict("visibility")
    if data.slug is None:
        slug = _free_slug(con, slugify(data.name))
    else:
        slug = data.slug
        _check_slug_free(con, slug, None)
    if data.visibility == "team" and principal.team_seq is None:
        raise bad_request(
            "visibility", "a team channel needs a creator in a team; yours is in none"
        )
    cur = con.execute(
        "INSERT INTO channels (id, name, slug, description, visibility, team_seq, is_default,"
        " is_archived, audience, created_at, updated_at) VALUES (?,?,?,?,?,?,?,0,?,?,?)",
        (
            new_id("chan"),
            data.name,
            slug,
            data.description,
            data.visibility,
            principal.team_seq,
            int(data.is_default),
            SERVICE_CHANNEL_AUDIENCE[data.visibility],
            int(now),
            int(now),
        ),
    )
    seq = int(cur.lastrowid or 0)
    con.execute("INSERT INTO channel_members VALUES (?, ?)", (seq, principal.user_seq))
    return _load(con, seq, now)


def update_channel(
    con: sqlite3.Connection,
    principal: Principal,
    channel_id: str,
    data: Any,
    now: float,
) -> dict[str, Any]:
    seq = find_visible(con, principal, channel_id)
    if seq is None:
        raise ApiError(404, f"no channel {channel_id!r}", param="id")
    changes: dict[str, Any] = {}
    for field in sorted(data.model_fields_set):
        value = getattr(data, field)
        changes[field] = int(value) if isinstance(value, bool) else value
    _check_hiding(con, principal, seq, changes)
    if "slug" in changes:
        _check_slug_free(con, changes["slug"], seq)
    if changes.get("visibility") == "team":
        team = con.execute("SELECT team_seq FROM channels WHERE seq = ?", (seq,)).fetchone()[0]
        if team is None:
            if principal.team_seq is None:
                raise bad_request(
                    "visibility", "a team channel needs a team; neither it nor you have one"
                )
            changes["team_seq"] = principal.team_seq
    if changes:
        changes["updated_at"] = int(now)
        assignments = ", ".join(f"{name} = ?" for name in changes)
        con.execute(f"UPDATE channels SET {assignments} WHERE seq = ?", [*changes.values(), seq])
    return _load(con, seq, now)


def delete_channel(con: sqlite3.Connection, principal: Principal, channel_id: str) -> None:
    seq = find_visible(con, principal, channel_id)
    if seq is None:
        raise ApiError(404, f"no channel {channel_id!r}", param="id")
    if con.execute("SELECT 1 FROM posts WHERE channel_seq = ? LIMIT 1", (seq,)).fetchone():
        raise ApiError(
            409,
            "channel still holds posts; archive it instead (PATCH is_archived: true)",
            param="id",
        )
    con.execute("DELETE FROM channel_members WHERE channel_seq = ?", (seq,))
    con.execute("DELETE FROM channels WHERE seq = ?", (seq,))


def slugify(name: str) -> str:
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_name.lower()).strip("-")
    return slug[:80].rstrip("-") or "channel"


def _free_slug(con: sqlite3.Connection, base: str) -> str:
    slug, n = base, 1
    while con.execute("SELECT 1 FROM channels WHERE slug = ?", (slug,)).fetchone():
        n += 1
        slug = f"{base}-{n}"
    return slug


def _check_slug_free(con: sqlite3.Connection, slug: str, own_seq: int | None) -> None:
    row = con.execute("SELECT seq FROM channels WHERE slug = ?", (slug,)).fetchone()
    if row is not None and row[0] != own_seq:
        # the same words whoever holds it: never a hint of a channel the key cannot see
        raise ApiError(
            409, "slug: is already taken in this workspace; choose another", param="slug"
        )


def _check_hiding(
    con: sqlite3.Connection, principal: Principal, seq: int, changes: dict[str, Any]
) -> None:
    """Making a channel private or archiving it hides it (and its posts) from others: only
    its creator or a member may, and never for a default channel (decisions.md)."""
    visibility, is_default, is_archived = con.execute(
        "SELECT visibility, is_default, is_archived FROM channels WHERE seq = ?", (seq,)
    ).fetchone()
    to_private = changes.get("visibility") == "private" and visibility != "private"
    to_archived = changes.get("is_archived") == 1 and not is_archived
    default = changes.get("is_default", is_default)
    private = changes.get("visibility", visibility) == "private"
    archived = changes.get("is_archived", is_archived)
    if default and private and {"visibility", "is_default"} & changes.keys():
        raise _default_conflict("visibility")
    if default and archived and {"is_archived", "is_default"} & changes.keys():
        raise _default_conflict("is_archived")
    if (to_private or to_archived) and not con.execute(
        "SELECT 1 FROM channel_members WHERE channel_seq = ? AND user_seq = ?",
        (seq, principal.user_seq),
    ).fetchone():
        param = "visibility" if to_private else "is_archived"
        action = "make it private" if to_private else "archive it"
        raise ApiError(
            409, f"{param}: only the channel's creator or a member may {action}", param=param
        )


def _default_conflict(param: str) -> ApiError:
    state = "private" if param == "visibility" else "archived"
    return ApiError(409, f"{param}: a default channel cannot be {state}", param=param)


def _load(con: sqlite3.Connection, seq: int, now: float) -> dict[str, Any]:
    row = con.execute(f"SELECT {_COLUMNS} FROM channels c WHERE c.seq = ?", (seq,)).fetchone()
    return render(row, now)
