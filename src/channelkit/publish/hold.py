"""Holding every scheduled post at once on a bad day, and putting each back exactly once.

`hold` writes each post's scheduled time down (`holds.HoldBook`, before anything moves),
then moves the post to draft with `If-Match`, so a post someone changed a moment before
is read again rather than overwritten. The draft carries a hold mark, one tag
`held:<scheduled time>:<held since>:<by>`: the service, not this machine, is the truth of
what is held, so `hold --status` and `release` on a colleague's machine see it too.

`release` puts each held post back at its time, once: with `If-Match` on the version it
has (recorded after the hold on this machine, so an edit made meanwhile is noticed), its
mark removed in the same request. A post whose time passed while it was held is listed and
stays held unless `publish_missed` (at once) or `shift` (that much later). A post edited
or deleted by someone else while held is reported and left as it is. Run either again, or
after a kill -9 at any point: what was done is found done, what was not is done once.

    result = hold(client, channel=["all-hands"])      # ck.hold(...) in a cell
    for post in held_posts(client):                   # hold --status
        print(post.line("Europe/Berlin"))
    result = release(client, shift=timedelta(days=1)) # missed ones a day later
"""

from __future__ import annotations

import getpass
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, TypeVar

from channelkit._constants import (
    PUBLISH_HOLD_EDIT_MARGIN_SECONDS,
    PUBLISH_HOLD_TAG_PREFIX,
)
from channelkit._spec import TAG_MAX_CHARS, TAGS_MAX_COUNT
from channelkit._tz import load_zone
from channelkit.errors import APIStatusError, ConflictError, NotFoundError, TimeError
from channelkit.publish import times
from channelkit.publish.calendar_sync import chosen_channels, window_bounds
from channelkit.publish.holds import HoldBook, HoldRecord
from channelkit.publish.ledger import service_address
from channelkit.publish.validation import ChannelIndex, service_now

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Post

_STAMP = "%Y%m%dT%H%M%SZ"
_MARK = re.compile(
    re.escape(PUBLISH_HOLD_TAG_PREFIX) + r"(?P<at>\d{8}T\d{6}Z):(?P<since>\d{8}T\d{6}Z):(?P<by>.*)"
)
_EDIT_MARGIN = timedelta(seconds=PUBLISH_HOLD_EDIT_MARGIN_SECONDS)
_EDITED = "edited by someone else while held; left as it is"
_DELETED = "deleted by someone else while held"


@dataclass(frozen=True)
class HoldMark:
    """What a held post carries in one tag: its scheduled time, since when and by whom.

    >>> at, since = datetime(2026, 12, 1, 9, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC)
    >>> HoldMark(at, since, "ann").tag
    'held:20261201T090000Z:20261130T000000Z:ann'
    """

    scheduled_at: datetime
    since: datetime
    by: str

    @property
    def tag(self) -> str:
        when = f"{self.scheduled_at:{_STAMP}}:{self.since:{_STAMP}}"
        return f"{PUBLISH_HOLD_TAG_PREFIX}{when}:{self.by}"

    @staticmethod
    def holder(name: str) -> str:
        """`name` as the mark keeps it: as much as fits in a tag."""
        room = TAG_MAX_CHARS - len(PUBLISH_HOLD_TAG_PREFIX) - 2 * len("20261201T090000Z") - 2
        return name[:room]

    @classmethod
    def of(cls, tags: Iterable[str]) -> HoldMark | None:
        """The mark among a post's tags, or None."""
        for tag in tags:
            match = _MARK.fullmatch(tag)
            if match is not None:
                at, since = (
                    datetime.strptime(match[name], _STAMP).replace(tzinfo=UTC)
                    for name in ("at", "since")
                )
                return cls(at, since, match["by"])
        return None


@dataclass(frozen=True)
class HeldPost:
    """A post on hold (or just put back), as the commands list it."""

    post_id: str
    channel: str  # the channel's slug, or its id when the key cannot see it
    title: str
    scheduled_at: datetime
    by: str
    since: datetime

    def line(self, tz: str) -> str:
        """`2026-12-01 10:00 Europe/Berlin  all-hands  "Town hall"  (post_1)`."""
        zone = load_zone(tz)
        local = f"{self.scheduled_at.astimezone(zone):%Y-%m-%d %H:%M} {zone.key}"
        return f'{local}  {self.channel}  "{self.title}"  ({self.post_id})'


@dataclass(frozen=True)
class HoldResult:
    """What `hold` did: `held` now, `already` held before, `skipped` (post, why) not held."""

    held: tuple[HeldPost, ...] = ()
    already: tuple[HeldPost, ...] = ()
    skipped: tuple[tuple[HeldPost, str], ...] = ()


@dataclass(frozen=True)
class ReleaseResult:
    """What `release` did: `released` (post, the time it goes out; None: published now),
    `missed` (its time passed while held: still held), `left` (post, why: edited or
    deleted by someone else, left as it is)."""

    released: tuple[tuple[HeldPost, datetime | None], ...] = ()
    missed: tuple[HeldPost, ...] = ()
    left: tuple[tuple[HeldPost, str], ...] = ()


@dataclass(frozen=True)
class _Scope:
    """The posts a command is narrowed to (every one the key sees when nothing is given)."""

    channel_ids: frozenset[str] | None
    tags: frozenset[str] | None
    start: datetime | None
    end: datetime | None
    index: ChannelIndex = field(compare=False)

    def covers(self, post: Post, when: datetime) -> bool:
        if self.channel_ids is not None and post.channel_id not in self.channel_ids:
            return False
        if self.tags is not None and not self.tags & {tag.casefold() for tag in post.tags}:
            return False
        if self.start is not None and when < self.start:
            return False
        return self.end is None or when < self.end

    def covers_record(self, record: HoldRecord) -> bool:
        """Whether a held post known only from this machine's record is in the scope
        (its tags as they were before the hold)."""
        if self.channel_ids is not None and record.channel_id not in self.channel_ids:
            return False
        if self.tags is not None and not self.tags & {tag.casefold() for tag in record.tags}:
            return False
        when = record.scheduled_at
        return (self.start is None or when >= self.start) and (self.end is None or when < self.end)

    def channel(self, channel_id: str) -> str:
        info = self.index.get(channel_id)
        return info.slug or info.name if info is not None else channel_id


def _scope(
    client: Client,
    channel: str | Sequence[str] | None,
    tag: str | Sequence[str] | None,
    start: object,
    end: object,
    tz: str,
) -> _Scope:
    index = ChannelIndex.from_client(client)
    channel_ids = None
    if channel:
        channel_ids = frozenset(info.id for info in chosen_channels(index, channel))
    tags = None
    if tag:
        tags = frozenset(t.casefold() for t in ([tag] if isinstance(tag, str) else tag))
    zone = load_zone(tz).key
    begin, finish = window_bounds(start, end, zone)
    return _Scope(channel_ids, tags, begin, finish, index)


def hold(
    client: Client | None = None,
    *,
    channel: str | Sequence[str] | None = None,
    tag: str | Sequence[str] | None = None,
    start: object = None,
    end: object = None,
    tz: str = "UTC",
    by: str | None = None,
    ledger: str | None = None,
) -> HoldResult:
    """Hold every scheduled post the key can change (or those of `channel`, `tag`, with a
    time in `[start, end)`, naive ones in `tz`): each one's time recorded, then moved to
    draft, marked. Without `client`, one from `CHANNELKIT_BASE_URL` and `..._API_KEY`.

        result = ck.hold(channel="all-hands")
        [post.line("Europe/Berlin") for post in result.held]
    """
    if client is None:
        with _own_client() as own:
            return hold(own, channel=channel, tag=tag, start=start, end=end, tz=tz, by=by,
                        ledger=ledger)  # fmt: skip
    scope = _scope(client, channel, tag, start, end, tz)
    service = service_address(client.base_url)
    who = HoldMark.holder(by or _user())
    held: list[HeldPost] = []
    already: list[HeldPost] = []
    skipped: list[tuple[HeldPost, str]] = []
    with HoldBook.open(ledger) as book:
        # a hold a kill interrupted between its record and its answer: finish it first
        for record in book.records(service, ["holding"]):
            _sort(_finish_hold(client, book, service, record, scope), held, skipped)
        done = {post.post_id for post in held}
        for post in client.posts.list():
            mark = HoldMark.of(post.tags)
            if post.status == "draft" and mark is not None and post.id not in done:
                if scope.covers(post, mark.scheduled_at):
                    already.append(_held(post, mark, scope))
                continue
            if post.status != "scheduled" or post.scheduled_at is None:
                continue
            if not scope.covers(post, post.scheduled_at):
                continue
            _sort(_hold_one(client, book, service, post, who, scope), held, skipped)
    return HoldResult(_in_time_order(held), _in_time_order(already), _in_time_order(skipped))


def _sort(
    outcome: HeldPost | tuple[HeldPost, str],
    held: list[HeldPost],
    skipped: list[tuple[HeldPost, str]],
) -> None:
    if isinstance(outcome, HeldPost):
        held.append(outcome)
    else:
        skipped.append(outcome)


def _hold_one(
    client: Client, book: HoldBook, service: str, listed: Post, who: str, scope: _Scope
) -> HeldPost | tuple[HeldPost, str]:
    """Record, then move one post to draft with its mark; read again when it changed."""
    assert listed.scheduled_at is not None  # only scheduled posts are held
    since = client.server_time().replace(microsecond=0)
    shown = _held(listed, HoldMark(listed.scheduled_at.astimezone(UTC), since, who), scope)
    try:
        post = client.posts.retrieve(listed.id)  # with its version: listings have none
    except NotFoundError:
        return shown, "not held: it was deleted meanwhile"
    if post.status != "scheduled" or post.scheduled_at is None:
        return shown, f"not held: it is {post.status} now"
    mark = HoldMark(post.scheduled_at.astimezone(UTC), since, who)
    shown = _held(post, mark, scope)
    if len(post.tags) >= TAGS_MAX_COUNT:
        return shown, f"not held: it has {TAGS_MAX_COUNT} tags, none left for the hold mark"
    book.holding(service, _record(post, mark, post.etag))
    try:
        moved = client.posts.update(
            post.id, status="draft", tags=[*post.tags, mark.tag], if_match=post.etag
        )
    except ConflictError as exc:
        if exc.param == "If-Match":  # changed a moment ago: read it again and hold that
            book.settle(service, post.id, "left", note="changed while it was being held")
            return _hold_one(client, book, service, post, who, scope)
        book.settle(service, post.id, "left", note="published before it could be held")
        return shown, "not held: it was published before it could be held"
    except NotFoundError:
        book.settle(service, post.id, "left", note="deleted")
        return shown, "not held: it was deleted meanwhile"
    book.settle(service, post.id, "held", etag=moved.etag)
    return shown


def _finish_hold(
    client: Client, book: HoldBook, service: str, record: HoldRecord, scope: _Scope
) -> HeldPost | tuple[HeldPost, str]:
    """A `holding` record: the move happened (the post is a marked draft) or it did not."""
    mark = HoldMark(record.scheduled_at, record.held_since, record.held_by)
    shown = _shown(record, scope)
    try:
        post = client.posts.retrieve(record.post_id)
    except NotFoundError:
        book.settle(service, record.post_id, "left", note="deleted")
        return shown, "not held: it was deleted meanwhile"
    if post.status == "draft" and HoldMark.of(post.tags) == mark:
        book.settle(service, post.id, "held", etag=post.etag)
        return shown
    if post.status == "scheduled":
        return _hold_one(client, book, service, post, record.held_by, scope)
    book.settle(service, post.id, "left", note="published before it could be held")
    return shown, "not held: it was published before it could be held"


def held_posts(
    client: Client,
    *,
    channel: str | Sequence[str] | None = None,
    tag: str | Sequence[str] | None = None,
    start: object = None,
    end: object = None,
    tz: str = "UTC",
) -> list[HeldPost]:
    """Every held post the key sees (whoever held it), in the order of their times."""
    scope = _scope(client, channel, tag, start, end, tz)
    found = []
    for post in client.posts.list():
        mark = HoldMark.of(post.tags)
        if post.status == "draft" and mark is not None and scope.covers(post, mark.scheduled_at):
            found.append(_held(post, mark, scope))
    return sorted(found, key=lambda held: (held.scheduled_at, held.post_id))


def release(
    client: Client | None = None,
    *,
    channel: str | Sequence[str] | None = None,
    tag: str | Sequence[str] | None = None,
    start: object = None,
    end: object = None,
    tz: str = "UTC",
    publish_missed: bool = False,
    shift: timedelta | None = None,
    ledger: str | None = None,
) -> ReleaseResult:
    """Put each held post (of the scope) back at its time, once; a missed one (its time
    passed while held) only with `publish_missed` (now) or `shift` (its time plus that).

        result = ck.release()
        result.missed      # still held: ck.release(shift=timedelta(days=1)) moves them
    """
    if client is None:
        with _own_client() as own:
            return release(own, channel=channel, tag=tag, start=start, end=end, tz=tz,
                           publish_missed=publish_missed, shift=shift, ledger=ledger)  # fmt: skip
    scope = _scope(client, channel, tag, start, end, tz)
    service = service_address(client.base_url)
    done = _Released()
    with HoldBook.open(ledger) as book:
        for record in book.records(service, ["releasing"]):
            _finish_release(client, book, service, record, scope, done)
        recorded = {record.post_id: record for record in book.records(service, ["held"])}
        finished = done.handled
        for post in client.posts.list():
            mark = HoldMark.of(post.tags)
            if mark is None or post.status != "draft" or post.id in finished:
                continue
            if not scope.covers(post, mark.scheduled_at):
                recorded.pop(post.id, None)
                continue
            mine = recorded.pop(post.id, None)  # this machine's record of the hold
            shown = _held(post, mark, scope)
            try:
                post = client.posts.retrieve(post.id)  # with its version: listings have none
            except NotFoundError:
                _settle(book, service, shown, None, _DELETED, done)
                continue
            why = _edited(post, mark, mine)
            if why is not None:
                book.settle(service, post.id, "left", note=why)
                done.left.append((shown, why))
                continue
            try:
                target = _target(mark.scheduled_at, service_now(client), publish_missed, shift, tz)
            except TimeError as exc:  # shifted into a skipped or repeated hour: stays held
                done.left.append((shown, f"{exc}; release it with another --shift"))
                continue
            if isinstance(target, str):
                done.missed.append(shown)
                continue
            base = mine or _record(post, mark, post.etag)
            book.releasing(service, replace(base, etag=post.etag), target)
            _settle(book, service, shown, target, _put_back(client, post, target), done)
        # held here, no longer held on the service: deleted, edited, or put back elsewhere
        for left in recorded.values():
            if left.post_id not in done.handled and scope.covers_record(left):
                _vanished(client, book, service, left, scope, done)
    return ReleaseResult(
        _in_time_order(done.released), _in_time_order(done.missed), _in_time_order(done.left)
    )


@dataclass
class _Released:
    released: list[tuple[HeldPost, datetime | None]] = field(default_factory=list)
    missed: list[HeldPost] = field(default_factory=list)
    left: list[tuple[HeldPost, str]] = field(default_factory=list)

    @property
    def handled(self) -> set[str]:
        return {
            *(held.post_id for held, _ in self.released),
            *(held.post_id for held in self.missed),
            *(held.post_id for held, _ in self.left),
        }


def _target(
    scheduled_at: datetime,
    now: datetime,
    publish_missed: bool,
    shift: timedelta | None,
    tz: str,
) -> datetime | None | str:
    """When a held post goes back: its time; a missed one's time plus `shift` (its days
    on the calendar of `tz`, `times.shifted`), or None (at once) with `publish_missed`;
    "missed" when it stays held."""
    if scheduled_at > now:
        return scheduled_at
    if shift is not None:
        shifted = times.shifted(scheduled_at, shift, tz)
        return shifted if shifted > now else "missed"
    return None if publish_missed else "missed"


def _settle(
    book: HoldBook,
    service: str,
    shown: HeldPost,
    target: datetime | None,
    outcome: str | None,
    done: _Released,
) -> None:
    """Record and list the outcome of one release request."""
    if outcome is None:
        book.settle(service, shown.post_id, "released")
        done.released.append((shown, target))
    elif outcome == "missed":
        book.settle(service, shown.post_id, "held")
        done.missed.append(shown)
    else:
        book.settle(service, shown.post_id, "left", note=outcome)
        done.left.append((shown, outcome))


def _put_back(client: Client, post: Post, target: datetime | None) -> str | None:
    """One release request: None when done, "missed" when its time passed meanwhile, else
    why it was left as it is."""
    tags = [tag for tag in post.tags if HoldMark.of([tag]) is None]
    try:
        if target is None:
            client.posts.update(post.id, status="published", tags=tags, if_match=post.etag)
        else:
            client.posts.update(
                post.id, status="scheduled", scheduled_at=target, tags=tags, if_match=post.etag
            )
    except ConflictError:
        return _after_conflict(client, post.id, target)
    except NotFoundError:
        return _DELETED
    except APIStatusError as exc:
        if exc.param == "scheduled_at":
            return "missed"  # its time came while this ran: it stays held
        raise
    return None


def _after_conflict(client: Client, post_id: str, target: datetime | None) -> str | None:
    """The post changed under the release: put back already by someone (done), or edited."""
    try:
        now = client.posts.retrieve(post_id)
    except NotFoundError:
        return _DELETED
    return None if _is_back(now, target) else _EDITED


def _is_back(post: Post, target: datetime | None) -> bool:
    """Whether `post` is as a release to `target` leaves it (no mark, at its time)."""
    if HoldMark.of(post.tags) is not None:
        return False
    if target is None:
        return post.status == "published"
    return post.status in ("scheduled", "published") and (
        post.scheduled_at == target or post.published_at == target
    )


def _finish_release(
    client: Client,
    book: HoldBook,
    service: str,
    record: HoldRecord,
    scope: _Scope,
    done: _Released,
) -> None:
    """A `releasing` record (a kill between it and the answer): done, redone or left."""
    mark = HoldMark(record.scheduled_at, record.held_since, record.held_by)
    shown = _shown(record, scope)
    try:
        post = client.posts.retrieve(record.post_id)
    except NotFoundError:
        _settle(book, service, shown, None, _DELETED, done)
        return
    if _is_back(post, record.target):
        _settle(book, service, shown, record.target, None, done)
    elif post.status == "draft" and HoldMark.of(post.tags) == mark and post.etag == record.etag:
        outcome = _put_back(client, post, record.target)
        if outcome == "missed":
            book.settle(service, post.id, "held")  # the listing that follows lists it
        else:
            _settle(book, service, shown, record.target, outcome, done)
    else:
        _settle(book, service, shown, None, _EDITED, done)


def _vanished(
    client: Client,
    book: HoldBook,
    service: str,
    record: HoldRecord,
    scope: _Scope,
    done: _Released,
) -> None:
    """A post held here that the service no longer shows held: deleted or edited (said),
    or put back from another machine (nothing to do, nothing to say)."""
    shown = _shown(record, scope)
    try:
        post = client.posts.retrieve(record.post_id)
    except NotFoundError:
        _settle(book, service, shown, None, _DELETED, done)
        return
    if HoldMark.of(post.tags) is None and post.status in ("scheduled", "published"):
        book.settle(service, post.id, "released", note="put back from another machine")
        return
    _settle(book, service, shown, None, _EDITED, done)


def _shown(record: HoldRecord, scope: _Scope) -> HeldPost:
    return HeldPost(
        record.post_id,
        scope.channel(record.channel_id),
        record.title,
        record.scheduled_at,
        record.held_by,
        record.held_since,
    )


def _edited(post: Post, mark: HoldMark, record: HoldRecord | None) -> str | None:
    """Why a held post is not as the hold left it (None when it is): its version differs
    from the one recorded after the hold, or, held on another machine, it was updated
    after the hold's time."""
    if record is not None and record.etag is not None:
        if post.etag == record.etag:
            return None
    elif post.updated_at is None or post.updated_at <= mark.since + _EDIT_MARGIN:
        return None
    return _EDITED


_Listed = TypeVar("_Listed", HeldPost, tuple[HeldPost, str], tuple[HeldPost, datetime | None])


def _in_time_order(items: Iterable[_Listed]) -> tuple[_Listed, ...]:
    def key(item: _Listed) -> tuple[datetime, str]:
        post = item if isinstance(item, HeldPost) else item[0]
        return post.scheduled_at, post.post_id

    return tuple(sorted(items, key=key))


def _held(post: Post, mark: HoldMark, scope: _Scope) -> HeldPost:
    return HeldPost(
        post.id, scope.channel(post.channel_id), post.title, mark.scheduled_at, mark.by, mark.since
    )


def _record(post: Post, mark: HoldMark, etag: str | None, *, tags: bool = True) -> HoldRecord:
    kept = tuple(t for t in post.tags if HoldMark.of([t]) is None) if tags else ()
    return HoldRecord(
        post_id=post.id,
        state="holding",
        channel_id=post.channel_id,
        title=post.title,
        scheduled_at=mark.scheduled_at,
        tags=kept,
        etag=etag,
        target=None,
        held_by=mark.by,
        held_since=mark.since,
        note=None,
    )


def _own_client() -> Client:
    from channelkit.client import Client

    return Client()


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in this environment (a container)
        return "someone"
