"""Which posts a metric looks at: channel, tag, priority and author filters.

Users name channels by id, slug or name (`channelkit._channels.match_channel`) and authors
by id, name or email, trimmed and case-insensitive; `resolve_filter` turns those names into
ids once (an unknown name is an error naming the parameter), and
`PostFilter.where` turns the ids into a parameterised SQL condition. Deleted posts (gone
from the service, `deleted_at` set by the sync) are never counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from zoneinfo import ZoneInfo

import duckdb
from typing_extensions import TypedDict

from channelkit._channels import ChannelName, match_channel
from channelkit._spec import PRIORITIES
from channelkit.analysis.period import Moment
from channelkit.analysis.sql import first_row
from channelkit.errors import InvalidParameterError

OneOrMany = str | Iterable[str]


class ChannelFilters(TypedDict, total=False):
    """The period and channel keywords of every metric method (`wh.subscribers(...)`).

    period: "2026-10", "2026-Q3", "2026", "2026-W44", "2026-10-05", "7d", "12w", "week",
        "month", "quarter" (docs/metrics.md); or `start` (inclusive) and `end` (exclusive)
        as dates, datetimes or ISO strings, dates local to `tz`.
    tz: the IANA timezone of every calendar grouping (default CHANNELKIT_TZ, else UTC).
    channel: a channel id, slug or name, or a list of them.
    """

    period: str | None
    start: Moment | None
    end: Moment | None
    tz: str | ZoneInfo | None
    channel: OneOrMany | None


class Filters(ChannelFilters, total=False):
    """The filter keywords shared by every metric method about posts.

        wh.kpis(period="2026-10", channel="All Hands", tag=["launch", "release"])

    Besides `ChannelFilters`: `tag`, `priority` (normal, high, urgent) and `author` (id,
    name or email), each a value or a list of values.
    """

    tag: OneOrMany | None
    priority: OneOrMany | None
    author: OneOrMany | None


class UpcomingFilters(TypedDict, total=False):
    """`upcoming_scheduled`'s filters: `start`/`end` bound `scheduled_at` (no `period`)."""

    start: Moment | None
    end: Moment | None
    tz: str | ZoneInfo | None
    channel: OneOrMany | None
    tag: OneOrMany | None
    priority: OneOrMany | None
    author: OneOrMany | None


class PostOnlyFilters(TypedDict, total=False):
    """The filters of metrics about the posts of now (`outlook`): no period."""

    tz: str | ZoneInfo | None
    channel: OneOrMany | None
    tag: OneOrMany | None
    priority: OneOrMany | None
    author: OneOrMany | None


FILTER_KEYS = Filters.__optional_keys__
POST_ONLY_KEYS = PostOnlyFilters.__optional_keys__
CHANNEL_KEYS = ChannelFilters.__optional_keys__
UPCOMING_KEYS = UpcomingFilters.__optional_keys__


def check_keywords(
    method: str, given: Mapping[str, object], allowed: Iterable[str] = FILTER_KEYS
) -> None:
    """The TypeError Python raises for an unknown keyword (a TypedDict cannot at run time)."""
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise TypeError(f"{method}() got an unexpected keyword argument {unknown[0]!r}")


def as_values(value: OneOrMany | None, *, param: str) -> tuple[str, ...] | None:
    """`None` → None; `"x"` → ("x",); a list of strings → a tuple without duplicates."""
    if value is None:
        return None
    if not isinstance(value, str | Iterable):
        raise InvalidParameterError(
            param, f"expected a name or a list of names, got {type(value).__name__} {value!r}"
        )
    values = (value,) if isinstance(value, str) else tuple(value)
    if not values:
        raise InvalidParameterError(param, "empty list; pass None for no filter")
    for item in values:
        if not isinstance(item, str) or not item.strip():
            raise InvalidParameterError(param, f"{item!r} is not a non-empty string")
    return tuple(dict.fromkeys(item.strip() for item in values))


@dataclass(frozen=True)
class PostFilter:
    """Resolved filters: ids only, `None` meaning "no filter".

    >>> PostFilter(priorities=("urgent",)).where("p")
    ('p.deleted_at IS NULL AND p.priority = ANY(?::VARCHAR[])', [['urgent']])
    """

    channel_ids: tuple[str, ...] | None = None
    tags: tuple[str, ...] | None = None
    priorities: tuple[str, ...] | None = None
    author_ids: tuple[str, ...] | None = None

    @property
    def selects_posts(self) -> bool:
        """Whether the filter narrows posts below whole channels."""
        return any(f is not None for f in (self.tags, self.priorities, self.author_ids))

    def where(self, alias: str = "p") -> tuple[str, list[object]]:
        """SQL condition on the `posts` table aliased `alias`, and its parameters."""
        clauses = [f"{alias}.deleted_at IS NULL"]
        params: list[object] = []
        if self.channel_ids is not None:
            clauses.append(f"{alias}.channel_id = ANY(?::VARCHAR[])")
            params.append(list(self.channel_ids))
        post, post_params = self.post_condition(alias)
        if post != "TRUE":
            clauses.append(post)
            params.extend(post_params)
        return " AND ".join(clauses), params

    def post_condition(self, alias: str = "p") -> tuple[str, list[object]]:
        """The post-level part only (tag, priority, author); "TRUE" without one."""
        clauses: list[str] = []
        params: list[object] = []
        if self.priorities is not None:
            clauses.append(f"{alias}.priority = ANY(?::VARCHAR[])")
            params.append(list(self.priorities))
        if self.author_ids is not None:
            clauses.append(f"{alias}.author_id = ANY(?::VARCHAR[])")
            params.append(list(self.author_ids))
        if self.tags is not None:
            # The post's own tag list: faster than a semi-join on post_tags at 1M posts.
            clauses.append(f"list_has_any({alias}.tags, ?::VARCHAR[])")
            params.append(list(self.tags))
        return " AND ".join(clauses) or "TRUE", params


def resolve_filter(
    con: duckdb.DuckDBPyConnection,
    *,
    channel: OneOrMany | None = None,
    tag: OneOrMany | None = None,
    priority: OneOrMany | None = None,
    author: OneOrMany | None = None,
) -> PostFilter:
    """Check every filter value against the warehouse and return the matching ids."""
    channels = as_values(channel, param="channel")
    tags = as_values(tag, param="tag")
    priorities = as_values(priority, param="priority")
    authors = as_values(author, param="author")
    if priorities is not None:
        priorities = tuple(dict.fromkeys(value.lower() for value in priorities))
    for value in priorities or ():
        if value not in PRIORITIES:
            raise InvalidParameterError(
                "priority", f"{value!r} is not one of {', '.join(PRIORITIES)}"
            )
    return PostFilter(
        channel_ids=None if channels is None else tuple(_channel_id(con, c) for c in channels),
        tags=None if tags is None else tuple(_known_tag(con, t) for t in tags),
        priorities=priorities,
        author_ids=None if authors is None else tuple(_author_id(con, a) for a in authors),
    )


def _channel_id(con: duckdb.DuckDBPyConnection, name: str) -> str:
    rows = con.execute(
        "SELECT id, coalesce(slug, ''), coalesce(name, '') FROM channels "
        "WHERE deleted_at IS NULL ORDER BY id"
    ).fetchall()
    return match_channel(name, [ChannelName(*row) for row in rows]).id


def _known_tag(con: duckdb.DuckDBPyConnection, tag: str) -> str:
    found = first_row(
        con,
        "SELECT 1 FROM posts p WHERE list_contains(p.tags, ?) AND p.deleted_at IS NULL LIMIT 1",
        [tag],
    )
    if found is None:
        raise InvalidParameterError("tag", f"no post in this warehouse has the tag {tag!r}")
    return tag


def _author_id(con: duckdb.DuckDBPyConnection, name: str) -> str:
    rows = con.execute(
        "SELECT DISTINCT author_id FROM posts WHERE deleted_at IS NULL AND author_id IS NOT NULL "
        "AND (author_id = ? OR lower(trim(author_name)) = lower(?) "
        "OR lower(trim(author_email)) = lower(?)) ORDER BY 1",
        [name, name, name],
    ).fetchall()
    if not rows:
        raise InvalidParameterError(
            "author", f"no post in this warehouse has an author with the id, name or email {name!r}"
        )
    if len(rows) > 1:
        ids = ", ".join(str(row[0]) for row in rows)
        raise InvalidParameterError(
            "author", f"{name!r} matches several authors ({ids}); pass an id or email"
        )
    return str(rows[0][0])
