"""Copies of one post scheduled by two submitters at once, found and resolved.

Two colleagues submitting the same file at the same moment with their own keys both pass
the duplicate check (neither copy exists yet) and idempotency keys are per API key, so
every row can be created twice. After sending, the plan lists the scheduled posts of the
channels it touched again and reports every place (channel, time, title) of one of its
rows that now holds more than one scheduled post. Resolving keeps the oldest copy
(earliest `created_at`, then smallest id: every submitter picks the same one) and moves
the others back to `draft`, so exactly one survives however many submitters resolve.

    groups = find_duplicates(client, plan_slots)
    for group in groups:
        print(group.describe())
    resolve_duplicates(client, groups)   # what --resolve-duplicates does
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from operator import itemgetter
from typing import TYPE_CHECKING

from channelkit._constants import (
    PUBLISH_DUPLICATE_BODY_MIN_CHARS,
    PUBLISH_DUPLICATE_NEAR_MINUTES,
)
from channelkit.errors import ConflictError, NotFoundError
from channelkit.publish.post.row_types import LikelyDuplicate, PlanRow

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Post

Slot = tuple[str, datetime, str]  # channel id, UTC time, folded title: one post's place
_EARLIEST = datetime.min.replace(tzinfo=UTC)
_LATEST = datetime.max.replace(tzinfo=UTC)


def slot_of(channel_id: str, when: datetime, title: str) -> Slot:
    """The place of a post: two scheduled posts in one place are copies of each other."""
    return (channel_id, when.astimezone(UTC).replace(microsecond=0), title.casefold())


@dataclass(frozen=True)
class DuplicateGroup:
    """Scheduled posts sharing one place; `kept` is the one that survives a resolve.

    `rows` are the spreadsheet rows of this place; `resolved` says whether the `copies`
    are back in draft (`resolve_duplicates`).
    """

    rows: tuple[int, ...]
    title: str
    channel_id: str
    scheduled_at: datetime
    kept: str
    copies: tuple[str, ...]
    resolved: bool = False

    def describe(self) -> str:
        """One line naming the row, the place and every copy."""
        rows = ", ".join(str(number) for number in self.rows)
        when = f"{self.scheduled_at:%Y-%m-%d %H:%M} UTC"
        others = ", ".join(self.copies)
        state = (
            f"kept {self.kept}, moved {others} back to draft"
            if self.resolved
            else f"{self.kept} (oldest) and {others}"
        )
        copies = 1 + len(self.copies)
        return (
            f'row {rows} ("{self.title}", {self.channel_id} at {when}): {copies} copies '
            f"scheduled: {state}"
        )


def rows_by_slot(rows: Iterable[PlanRow]) -> dict[Slot, list[int]]:
    """The places the plan's sendable rows take (rows with errors take none)."""
    places: dict[Slot, list[int]] = {}
    for row in rows:
        request = row.request
        if row.errors or request is None or request.scheduled_at is None:
            continue
        slot = slot_of(request.channel_id, request.scheduled_at, request.title)
        places.setdefault(slot, []).append(row.number)
    return places


def scheduled_by_slot(posts_by_channel: Mapping[str, Iterable[Post]]) -> dict[Slot, list[Post]]:
    """Every scheduled post by its place."""
    slots: dict[Slot, list[Post]] = {}
    for channel_id, posts in posts_by_channel.items():
        for post in posts:
            if post.status == "scheduled" and post.scheduled_at is not None:
                slots.setdefault(slot_of(channel_id, post.scheduled_at, post.title), []).append(
                    post
                )
    return slots


def duplicate_groups(
    scheduled: Mapping[Slot, Sequence[Post]], rows_by_slot: Mapping[Slot, Sequence[int]]
) -> list[DuplicateGroup]:
    """The places of `rows_by_slot` holding more than one scheduled post. Pure."""
    groups = []
    for slot, rows in rows_by_slot.items():
        posts = sorted(scheduled.get(slot, ()), key=_age)
        if len(posts) < 2:
            continue
        groups.append(
            DuplicateGroup(
                rows=tuple(sorted(rows)),
                title=posts[0].title,
                channel_id=slot[0],
                scheduled_at=slot[1],
                kept=posts[0].id,
                copies=tuple(post.id for post in posts[1:]),
            )
        )
    return sorted(groups, key=lambda group: group.rows)


def find_duplicates(
    client: Client, rows_by_slot: Mapping[Slot, Sequence[int]]
) -> list[DuplicateGroup]:
    """List the scheduled posts of the channels of `rows_by_slot` and group the copies."""
    channel_ids = sorted({slot[0] for slot in rows_by_slot})
    listed = {
        channel_id: list(client.posts.list(channel_id=channel_id)) for channel_id in channel_ids
    }
    return duplicate_groups(scheduled_by_slot(listed), rows_by_slot)


def resolve_duplicates(client: Client, groups: Sequence[DuplicateGroup]) -> list[DuplicateGroup]:
    """Move every copy but the kept one back to draft; the groups with what was drafted.

    Safe to run by several submitters at once: they keep the same post, and a copy that
    someone else already moved (or deleted) is simply skipped.
    """
    for group in groups:
        for post_id in group.copies:
            _to_draft(client, post_id)
    return [replace(group, resolved=True) for group in groups]


def _to_draft(client: Client, post_id: str) -> None:
    try:
        client.posts.update(post_id, status="draft")
    except ConflictError as exc:
        if exc.param != "status":
            raise
        # Not scheduled any more: another submitter resolved it first.
    except NotFoundError:
        pass  # deleted meanwhile: not a copy any more either


def _age(post: Post) -> tuple[datetime, str]:
    return (post.created_at or _EARLIEST, post.id)


def likely_duplicates(
    rows: Iterable[PlanRow], posts_by_channel: Mapping[str, Iterable[Post]], *, days: int
) -> dict[int, LikelyDuplicate]:
    """For each row to send, the post on the service it most likely repeats: same channel,
    and the same title or the same body (spacing and case aside) within `days` of the
    row's time. A match `--submit` refuses (see `_is_strong`) beats one it only warns
    of, both fields beat one; then the nearest in time wins. Pure."""
    index = _TextIndex.of(posts_by_channel)
    window = timedelta(days=days)
    found: dict[int, LikelyDuplicate] = {}
    for row in rows:
        request = row.request
        if row.status != "ok" or request is None or request.scheduled_at is None:
            continue
        title, body = _folded(request.title), _folded(request.body)
        at = request.scheduled_at
        candidates = index.candidates(request.channel_id, title, body, at, window)
        best = _likeliest(candidates, title, body, at)
        if best is not None:
            post, same = best
            found[row.number] = LikelyDuplicate(
                post.id, post.title, _shown(post), same, _is_strong(post, same, body, at)
            )
    return found


_Entry = tuple[datetime, int, "Post"]  # (the post's time, its place in the listing, post)
_TIME = itemgetter(0)


@dataclass(frozen=True)
class _TextIndex:
    """The service's posts that have a time, by channel and folded title and by channel and
    folded body, each list in time order: a row looks only at its window, so a sheet of one
    template body against a busy channel costs a lookup per row, not a scan of every post."""

    by_title: dict[tuple[str, str], list[_Entry]]
    by_body: dict[tuple[str, str], list[_Entry]]

    @classmethod
    def of(cls, posts_by_channel: Mapping[str, Iterable[Post]]) -> _TextIndex:
        index = cls({}, {})
        place = 0
        for channel_id, posts in posts_by_channel.items():
            for post in posts:
                when = _when(post)
                if when is None:  # no window holds a post without a time
                    continue
                entry = (when, place, post)
                place += 1
                index.by_title.setdefault((channel_id, _folded(post.title)), []).append(entry)
                body = _folded(post.body or "")
                if body:
                    index.by_body.setdefault((channel_id, body), []).append(entry)
        for entries in (*index.by_title.values(), *index.by_body.values()):
            entries.sort(key=itemgetter(0, 1))
        return index

    def candidates(
        self, channel_id: str, title: str, body: str, at: datetime, window: timedelta
    ) -> list[Post]:
        """The posts of `channel_id` with this title or this body within `window` of `at`,
        each once: title matches first, each in the order the service listed them."""
        found: dict[str, Post] = {}
        for entries in (
            self.by_title.get((channel_id, title), []),
            self.by_body.get((channel_id, body), []),
        ):
            low = bisect_left(entries, _shifted(at, -window), key=_TIME)
            high = bisect_right(entries, _shifted(at, window), key=_TIME)
            for _, _, post in sorted(entries[low:high], key=itemgetter(1)):
                found.setdefault(post.id, post)
        return list(found.values())


def _shifted(at: datetime, by: timedelta) -> datetime:
    """`at + by`, stopped at the ends of the calendar (years 1 and 9999) instead of failing."""
    try:
        return at + by
    except OverflowError:
        return _LATEST if by > timedelta(0) else _EARLIEST


def _likeliest(
    candidates: Iterable[Post], title: str, body: str, at: datetime
) -> tuple[Post, tuple[str, ...]] | None:
    """The candidate matching most fields, then the nearest to `at` (the first of equals),
    with the names of the fields it matches."""
    best: tuple[bool, int, timedelta, Post, tuple[str, ...]] | None = None
    for post in candidates:
        when = _when(post)
        assert when is not None  # the index holds only posts with a time
        same = _same_fields(post, title, body)
        rank = (not _is_strong(post, same, body, at), -len(same), abs(when - at), post, same)
        if best is None or rank[:3] < best[:3]:
            best = rank
    return None if best is None else (best[3], best[4])


def _is_strong(post: Post, same: tuple[str, ...], body: str, at: datetime) -> bool:
    """Whether a match is evidence enough to refuse the row: the same body, once it is long
    enough not to be a stock phrase, whatever the title (a colleague's retitled copy); the
    same title and body; or either of them on a post scheduled or published within minutes
    of the row's time (a retitled post whose short body, "Sign up by Friday.", alone says
    nothing, but whose place does). A title alone further away is only a warning."""
    when = _when(post)
    near = (
        post.status in ("scheduled", "published")
        and when is not None
        and abs(when - at) <= timedelta(minutes=PUBLISH_DUPLICATE_NEAR_MINUTES)
    )
    if near:
        return True
    if "body" not in same:
        return False
    return "title" in same or len(body) >= PUBLISH_DUPLICATE_BODY_MIN_CHARS


def _same_fields(post: Post, title: str, body: str) -> tuple[str, ...]:
    """The fields ("title", "body") that `post` shares with the folded `title` and `body`."""
    same = {
        "title": _folded(post.title) == title,
        "body": bool(body) and _folded(post.body or "") == body,
    }
    return tuple(name for name, equal in same.items() if equal)


def _when(post: Post) -> datetime | None:
    """A post's time: when it is scheduled, else when it was published or created."""
    return post.scheduled_at or post.published_at or post.created_at


def _shown(post: Post) -> str:
    when = _when(post)
    assert when is not None  # only posts with a time are candidates
    return f"{when.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()
