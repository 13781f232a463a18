"""Channel operations: list, retrieve, create, update, delete, as one principal sees them."""

from __future__ import annotations

import re
import secrets
import sqlite3
import unicodedata
from typing import Any

from channelkit import _spec
from channelkit._constants import SERVICE_CHANNEL_AUDIENCE
from channelkit.errors import ServiceHTTPError
from channelkit.service.db import insert_row, update_row
from channelkit.service.engagement import subscribers_on
from channelkit.service.models import stored_fields
from channelkit.service.timefmt import day_of, format_instant
from channelkit.service.workspace import Principal, new_id, visible_channels

# What a channel row is read as: its stored fields (from the contract) and what the
# computed ones need; `render` shows them in the contract's order.
STORED = stored_fields(_spec.CHANNEL_FIELDS)
_SELECTED = {
    "seq": "c.seq",
    "id": "c.id",
    **{name: f"c.{name}" for name in STORED},
    "is_archived": "c.is_archived",
    "audience": "c.audience",
    "created_at": "c.created_at",
    "updated_at": "c.updated_at",
    "post_count": "(SELECT count(*) FROM posts p WHERE p.channel_seq = c.seq)",
}
_COLUMNS = ", ".join(_SELECTED.values())


def render(row: tuple[Any, ...], now: float) -> dict[str, Any]:
    values = dict(zip(_SELECTED, row, strict=True))
    values["subscriber_count"] = subscribers_on(
        values["id"], values["audience"], day_of(values["created_at"]), day_of(now)
    )
    shown: dict[str, Any] = {}
    for field in _spec.CHANNEL_FIELDS:
        value = values[field.name]
        if field.kind == "flag":
            value = bool(value)
        elif field.kind == "instant":
            value = format_instant(value)
        shown[field.name] = value
    return shown


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
        raise ServiceHTTPError(404, f"no channel {channel_id!r}", param="id")
    return _load(con, seq, now)


def create_channel(
    con: sqlite3.Connection, principal: Principal, data: Any, now: float
) -> dict[str, Any]:
    if data.is_default and data.visibility != "organization":
        raise _default_visibility("visibility", data.visibility)
    if data.slug is None:
        slug = _free_slug(con, principal, slugify(data.name))
    else:
        slug = data.slug
        _check_slug_free(con, slug, None)
    if data.visibility == "team" and principal.team_seq is None:
        raise ServiceHTTPError.bad_request(
            "visibility", "a team channel needs a creator in a team; yours is in none"
        )
    row = {
        **{name: getattr(data, name) for name in STORED},
        "id": new_id("chan"),
        "slug": slug,
        "team_seq": principal.team_seq,
        "is_default": int(data.is_default),
        "is_archived": 0,
        "audience": SERVICE_CHANNEL_AUDIENCE[data.visibility],
        "created_at": int(now),
        "updated_at": int(now),
    }
    seq = insert_row(con, "channels", row)
    con.execute("INSERT INTO channel_members VALUES (?, ?)", (seq, principal.user_seq))
    if data.is_default:
        _clear_other_default(con, seq, now)
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
        raise ServiceHTTPError(404, f"no channel {channel_id!r}", param="id")
    changes: dict[str, Any] = {}
    for field in sorted(data.model_fields_set):
        value = getattr(data, field)
        changes[field] = int(value) if isinstance(value, bool) else value
    _check_guarded(con, principal, seq, changes)
    if "slug" in changes:
        _check_slug_free(con, changes["slug"], seq)
    if changes.get("visibility") == "team":
        team = con.execute("SELECT team_seq FROM channels WHERE seq = ?", (seq,)).fetchone()[0]
        if team is None:
            if principal.team_seq is None:
                raise ServiceHTTPError.bad_request(
                    "visibility", "a team channel needs a team; neither it nor you have one"
                )
            changes["team_seq"] = principal.team_seq
    if changes:
        changes["updated_at"] = int(now)
        update_row(con, "channels", seq, changes)
    if changes.get("is_default"):
        _clear_other_default(con, seq, now)
    return _load(con, seq, now)


def delete_channel(con: sqlite3.Connection, principal: Principal, channel_id: str) -> None:
    seq = find_visible(con, principal, channel_id)
    if seq is None:
        raise ServiceHTTPError(404, f"no channel {channel_id!r}", param="id")
    if con.execute("SELECT 1 FROM posts WHERE channel_seq = ? LIMIT 1", (seq,)).fetchone():
        raise ServiceHTTPError(
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


def _free_slug(con: sqlite3.Connection, principal: Principal, base: str) -> str:
    """The first of base, base-2, base-3 ... that no channel the key sees holds: the number
    counts only what the key can see, so "-2" never hints at a hidden channel. When a
    hidden channel holds that slug, a random suffix replaces the number: it says neither
    which channel nor how many (decisions.md: a slug never reveals a hidden channel)."""
    visible = set(visible_channels(con, principal))
    slug, n = base, 1
    while True:
        row = con.execute("SELECT seq FROM channels WHERE slug = ?", (slug,)).fetchone()
        if row is None:
            return slug
        if row[0] not in visible:
            return _random_free_slug(con, base)
        n += 1
        slug = f"{base}-{n}"


def _random_free_slug(con: sqlite3.Connection, base: str) -> str:
    while True:
        slug = f"{base[: 80 - 9].rstrip('-')}-{secrets.token_hex(4)}"
        if not con.execute("SELECT 1 FROM channels WHERE slug = ?", (slug,)).fetchone():
            return slug


def _check_slug_free(con: sqlite3.Connection, slug: str, own_seq: int | None) -> None:
    row = con.execute("SELECT seq FROM channels WHERE slug = ?", (slug,)).fetchone()
    if row is not None and row[0] != own_seq:
        # the same words whoever holds it: never a hint of a channel the key cannot see
        raise ServiceHTTPError(
            409, "slug: is already taken in this workspace; choose another", param="slug"
        )


# what only the channel's creator or a member may change (decisions.md "Hardening"), and
# what the change is called in the refusal
_GUARDED = {
    "visibility": "change its visibility",
    "is_default": "change whether it is the default",
    "is_archived": "archive it",
}


def _check_guarded(
    con: sqlite3.Connection, principal: Principal, seq: int, changes: dict[str, Any]
) -> None:
    """Visibility, the default flag and archiving decide who sees a channel and its posts:
    the default channel stays organisation-wide and unarchived whoever asks, and only the
    channel's creator or a member may change them at all (409, nothing changes)."""
    row = con.execute(
        "SELECT visibility, is_default, is_archived FROM channels WHERE seq = ?", (seq,)
    ).fetchone()
    current = dict(zip(("visibility", "is_default", "is_archived"), row, strict=True))
    after = {**current, **{k: v for k, v in changes.items() if k in current}}
    if current["is_default"] and not after["is_default"]:
        raise ServiceHTTPError(
            409,
            "is_default: the workspace keeps a default channel; make another organization"
            " channel the default instead (is_default: true there)",
            param="is_default",
        )
    if after["is_default"]:
        if after["visibility"] != "organization":
            param = "visibility" if "visibility" in changes else "is_default"
            raise _default_visibility(param, after["visibility"])
        if after["is_archived"]:
            raise ServiceHTTPError(
                409, "is_archived: the default channel cannot be archived", param="is_archived"
            )
    changed = [
        name
        for name in _GUARDED
        if name in changes
        and changes[name] != current[name]
        and (name != "is_archived" or changes[name])  # unarchiving hides nothing
    ]
    if (
        changed
        and not con.execute(
            "SELECT 1 FROM channel_members WHERE channel_seq = ? AND user_seq = ?",
            (seq, principal.user_seq),
        ).fetchone()
    ):
        param = changed[0]
        raise ServiceHTTPError(
            409,
            f"{param}: only the channel's creator or a member may {_GUARDED[param]}",
            param=param,
        )


def _clear_other_default(con: sqlite3.Connection, seq: int, now: float) -> None:
    con.execute(
        "UPDATE channels SET is_default = 0, updated_at = ? WHERE is_default = 1 AND seq != ?",
        (int(now), seq),
    )


def _default_visibility(param: str, visibility: str) -> ServiceHTTPError:
    return ServiceHTTPError(
        409,
        f"{param}: the default channel is seen by the whole organization, not {visibility}",
        param=param,
    )


def _load(con: sqlite3.Connection, seq: int, now: float) -> dict[str, Any]:
    row = con.execute(f"SELECT {_COLUMNS} FROM channels c WHERE c.seq = ?", (seq,)).fetchone()
    return render(row, now)
