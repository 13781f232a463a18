"""Holding every scheduled post at once on a bad day, and putting each back exactly once.

`hold` writes each post's scheduled time down (`hold_record.HoldBook`, before anything
moves), then moves the post to draft with `If-Match`, so a post someone changed a moment
before is read again rather than overwritten. The draft carries a hold mark, one tag
`held:<scheduled time>:<check>:<by>`: the service, not this machine, is the truth of what is
held, so `hold --status` and `release` on a colleague's machine see it too. The check is a
short digest of the post's id, that time and the draft as the hold left it (channel, title,
body, priority, cover, other tags): a mark copied to another post, typed by hand, left over
from an older hold, or on a post edited since does not match, and is reported and ignored.
Marks of earlier versions (`held:<time>:<since>:<by>`, no check) are held, listed and
released like current ones (`hold_mark`).

`release` puts each held post back at the time of the hold that moved it, once: with
`If-Match` on the version it has, its marks removed in the same request. On the machine
that held it, the version recorded after the hold says whether it was edited meanwhile;
on any other machine, the check does (an edit a second after the hold included). A post
whose time passed while it was held is listed and stays held unless `publish_missed` (at
once) or `shift` (that much later). A post edited or deleted by someone else while held is
reported and left as it is; one the service refuses is reported and the run goes on. Two
machines at once move each post once: the one that finds a post already moved by the
other says so apart (`already`), so the counts add up. Run either again, or after a kill
-9 at any point: what was done is found done, what was not is done once.

    result = hold(client, channel=["all-hands"])      # ck.hold(...) in a cell
    for post in held_posts(client):                   # hold --status
        print(post.line("Europe/Berlin"))
    result = release(client, shift=timedelta(days=1)) # missed ones a day later
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Literal, TypeVar
from zoneinfo import ZoneInfo

from channelkit._spec import TAGS_MAX_COUNT
from channelkit._tz import UTC_ZONE, resolve_zone
from channelkit.errors import (
    APIStatusError,
    AuthenticationError,
    ConflictError,
    InvalidParameterError,
    NotFoundError,
    PermissionDeniedError,
    TimeError,
)
from channelkit.publish.approval.approving import must_wait
from channelkit.publish.approval.marks import NOW, Intended
from channelkit.publish.approval.policy import Policy
from channelkit.publish.hold.mark import HoldMark, marked, unmarked, user_name
from channelkit.publish.hold.record import HoldBook, HoldRecord
from channelkit.publish.post import times
from channelkit.publish.post.ledger import service_address
from channelkit.publish.post.validation import ChannelIndex, service_now
from channelkit.publish.post.window import chosen_channels, window_bounds

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Post

_EDITED = "edited by someone else while held; left as it is"
_DELETED = "deleted by someone else while held"
_NOT_A_HOLD = (
    "its hold mark does not match it (edited while held, or a mark no hold of this post "
    "made: copied, typed or left over); left as it is"
)


@dataclass(frozen=True)
class HeldPost:
    """A post on hold (or just put back), as the commands list it. `since` is when it was
    held (as recorded here, else when the service last changed it), None when unknown."""

    post_id: str
    channel: str  # the channel's slug, or its id when the key cannot see it
    title: str
    scheduled_at: datetime
    by: str
    since: datetime | None

    def line(self, tz: str | ZoneInfo) -> str:
        """`2026-12-01 10:00 Europe/Berlin  all-hands  "Town hall"  (post_1)`."""
        zone = resolve_zone(tz)
        local = f"{self.scheduled_at.astimezone(zone):%Y-%m-%d %H:%M} {zone.key}"
        return f'{local}  {self.channel}  "{self.title}"  ({self.post_id})'


@dataclass(frozen=True)
class HoldResult:
    """What `hold` did: `held` now, `already` held before (here, elsewhere, or by another
    run a moment ago), `skipped` (post, why) not held."""

    held: tuple[HeldPost, ...] = ()
    already: tuple[HeldPost, ...] = ()
    skipped: tuple[tuple[HeldPost, str], ...] = ()


@dataclass(frozen=True)
class ReleaseResult:
    """What `release` did: `released` (post, the time it goes out; None: published now),
    `missed` (its time passed while held: still held), `left` (post, why: edited, deleted,
    refused by the service, or a mark that is no current hold's: left as it is), `already`
    (put back by another run while this one ran: not counted as released here)."""

    released: tuple[tuple[HeldPost, datetime | None], ...] = ()
    missed: tuple[HeldPost, ...] = ()
    left: tuple[tuple[HeldPost, str], ...] = ()
    already: tuple[HeldPost, ...] = ()


@dataclass(frozen=True)
class PostScope:
    """The posts a command is narrowed to (every one the key sees when nothing is given),
    resolved against the service's channels."""

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


def post_filter(
    client: Client,
    channel: str | Sequence[str] | None,
    tag: str | Sequence[str] | None,
    start: object,
    end: object,
    tz: str | ZoneInfo | None,
) -> PostScope:
    """The filter of `hold`, `release` and `held_posts`. A naive `start` or `end` is read in
    `tz` (else `CHANNELKIT_TZ`), never as UTC by accident: without either, it is refused."""
    zone = resolve_zone(tz, default=None)  # checked before the service is asked anything
    index = ChannelIndex.from_client(client)
    channel_ids = None
    if channel:
        channel_ids = frozenset(info.id for info in chosen_channels(index, channel))
    tags = None
    if tag:
        tags = frozenset(t.casefold() for t in ([tag] if isinstance(tag, str) else tag))
    bounds = {"start": start, "end": end}
    for name, value in bounds.items():
        aware = isinstance(value, datetime) and value.tzinfo is not None
        if value is not None and zone is None and not aware:
            raise InvalidParameterError(
                "tz", f"{name} {value!r} has no time zone: name one (tz) or set CHANNELKIT_TZ"
            )
    begin, finish = window_bounds(start, end, zone or UTC_ZONE)  # None: only aware bounds left
    return PostScope(channel_ids, tags, begin, finish, index)


def hold(
    client: Client | None = None,
    *,
    channel: str | Sequence[str] | None = None,
    tag: str | Sequence[str] | None = None,
    start: object = None,
    end: object = None,
    tz: str | ZoneInfo | None = None,
    by: str | None = None,
    ledger: str | None = None,
) -> HoldResult:
    """Hold every scheduled post the key can change (or those of `channel`, `tag`, with a
    time in `[start, end)`, naive ones in `tz`, else `CHANNELKIT_TZ`): each one's time
    recorded, then moved to draft, marked. Without `client`, one from `CHANNELKIT_BASE_URL`
    and `..._API_KEY`.

        result = ck.hold(channel="all-hands")
        [post.line("Europe/Berlin") for post in result.held]
    """
    who = HoldMark.holder(by or user_name())  # refused before anything is recorded or moved
    if client is None:
        with _own_client() as own:
            return hold(own, channel=channel, tag=tag, start=start, end=end, tz=tz, by=by,
                        ledger=ledger)  # fmt: skip
    scope = post_filter(client, channel, tag, start, end, tz)
    service = service_address(client.base_url)
    done = _Held()
    with HoldBook.open(ledger) as book:
        # a hold a kill interrupted between its record and its answer: finish it first
        for record in book.records(service, ["holding"]):
            done.add(_finish_hold(client, book, service, record, scope, who))
        for post in client.posts.list():
            if post.id in done.handled:
                continue
            if post.status == "draft" and marked(post.tags):
                mark = HoldMark.current(post)
                if mark is not None and scope.covers(post, mark.scheduled_at):
                    done.already.append(_held(post, mark, scope, None))
                continue
            if post.status != "scheduled" or post.scheduled_at is None:
                continue
            if not scope.covers(post, post.scheduled_at):
                continue
            done.add(_hold_one(client, book, service, post, who, scope))
    return HoldResult(
        _in_time_order(done.held), _in_time_order(done.already), _in_time_order(done.skipped)
    )


_Outcome = tuple[Literal["held", "already", "skipped"], HeldPost, str]


@dataclass
class _Held:
    held: list[HeldPost] = field(default_factory=list)
    already: list[HeldPost] = field(default_factory=list)
    skipped: list[tuple[HeldPost, str]] = field(default_factory=list)

    def add(self, outcome: _Outcome) -> None:
        kind, post, why = outcome
        if kind == "held":
            self.held.append(post)
        elif kind == "already":
            self.already.append(post)
        else:
            self.skipped.append((post, why))

    @property
    def handled(self) -> set[str]:
        return {post.post_id for post in (*self.held, *self.already)} | {
            post.post_id for post, _ in self.skipped
        }


def _hold_one(
    client: Client, book: HoldBook, service: str, listed: Post, who: str, scope: PostScope
) -> _Outcome:
    """Record, then move one post to draft with its mark; read again when it changed."""
    assert listed.scheduled_at is not None  # only scheduled posts are held
    since = client.server_time().replace(microsecond=0)
    shown = _held(listed, HoldMark(listed.scheduled_at.astimezone(UTC), "", who), scope, since)
    try:
        post = client.posts.retrieve(listed.id)  # with its version: listings have none
    except NotFoundError:
        return "skipped", shown, "not held: it was deleted meanwhile"
    held_now = HoldMark.current(post)
    if held_now is not None:  # another run (here or on another machine) held it a moment ago
        return "already", _held(post, held_now, scope, None), ""
    if post.status != "scheduled" or post.scheduled_at is None:
        return "skipped", shown, f"not held: it is {post.status} now"
    mark = HoldMark.made(post, post.scheduled_at.astimezone(UTC), who)
    shown = _held(post, mark, scope, since)
    kept = unmarked(post.tags)  # a mark left over from an older hold goes: one mark, current
    if len(kept) >= TAGS_MAX_COUNT:
        return (
            "skipped",
            shown,
            f"not held: it has {TAGS_MAX_COUNT} tags, none left for the hold mark",
        )
    book.holding(service, HoldRecord.of(post, mark, post.etag, since))
    try:
        moved = client.posts.update(
            post.id, status="draft", tags=[*kept, mark.tag], if_match=post.etag
        )
    except ConflictError as exc:
        if exc.param == "If-Match":  # changed a moment ago: read it again and hold that
            book.settle(service, post.id, "left", note="changed while it was being held")
            return _hold_one(client, book, service, post, who, scope)
        book.settle(service, post.id, "left", note="published before it could be held")
        return "skipped", shown, "not held: it was published before it could be held"
    except NotFoundError:
        book.settle(service, post.id, "left", note="deleted")
        return "skipped", shown, "not held: it was deleted meanwhile"
    except (AuthenticationError, PermissionDeniedError):
        book.settle(service, post.id, "left", note="not allowed")
        raise  # the key, not this post: every other post would be refused the same way
    except APIStatusError as exc:
        why = f"not held: the service refused it ({exc.message})"
        book.settle(service, post.id, "left", note=why)
        return "skipped", shown, why
    book.settle(service, post.id, "held", etag=moved.etag)
    return "held", shown, ""


def _finish_hold(
    client: Client, book: HoldBook, service: str, record: HoldRecord, scope: PostScope, who: str
) -> _Outcome:
    """A `holding` record: the move happened (the post is a marked draft) or it did not."""
    shown = _shown(record, scope)
    try:
        post = client.posts.retrieve(record.post_id)
    except NotFoundError:
        book.settle(service, record.post_id, "left", note="deleted")
        return "skipped", shown, "not held: it was deleted meanwhile"
    mark = HoldMark.current(post)
    if mark is not None and mark.scheduled_at == record.scheduled_at:
        book.settle(service, post.id, "held", etag=post.etag)
        return "held", shown, ""
    if post.status == "scheduled":
        return _hold_one(client, book, service, post, who, scope)
    book.settle(service, post.id, "left", note="published before it could be held")
    return "skipped", shown, "not held: it was published before it could be held"


def held_posts(
    client: Client,
    *,
    channel: str | Sequence[str] | None = None,
    tag: str | Sequence[str] | None = None,
    start: object = None,
    end: object = None,
    tz: str | ZoneInfo | None = None,
) -> list[HeldPost]:
    """Every held post the key sees (whoever held it), in the order of their times."""
    scope = post_filter(client, channel, tag, start, end, tz)
    found = []
    for post in client.posts.list():
        if post.status != "draft" or not marked(post.tags):
            continue
        mark = HoldMark.current(post)
        if mark is not None and scope.covers(post, mark.scheduled_at):
            found.append(_held(post, mark, scope, None))
    return sorted(found, key=lambda held: (held.scheduled_at, held.post_id))


def release(
    client: Client | None = None,
    *,
    channel: str | Sequence[str] | None = None,
    tag: str | Sequence[str] | None = None,
    start: object = None,
    end: object = None,
    tz: str | ZoneInfo | None = None,
    publish_missed: bool = False,
    shift: timedelta | None = None,
    ledger: str | None = None,
    policy: Policy | None = None,
) -> ReleaseResult:
    """Put each held post (of the scope) back at its hold's time, once; a missed one (its
    time passed while held) only with `publish_missed` (now) or `shift` (its time plus that).
    A post of an approval channel (`policy`, else `CHANNELKIT_APPROVAL_POLICY`) goes back
    only with a valid approval of what it is now; otherwise it waits for approval instead.

        result = ck.release()
        result.missed      # still held: ck.release(shift=timedelta(days=1)) moves them
    """
    if client is None:
        with _own_client() as own:
            return release(own, channel=channel, tag=tag, start=start, end=end, tz=tz,
                           publish_missed=publish_missed, shift=shift, ledger=ledger,
                           policy=policy)  # fmt: skip
    policy = policy or Policy.load()
    # once: the window's bounds and a missed post's shift read it
    zone = resolve_zone(tz, default=None)
    scope = post_filter(client, channel, tag, start, end, zone)
    missed_rule = (publish_missed, shift, zone or UTC_ZONE)
    service = service_address(client.base_url)
    done = _Released()
    with HoldBook.open(ledger) as book:
        for record in book.records(service, ["releasing"]):
            _finish_release(client, book, service, record, scope, done)
        recorded = {record.post_id: record for record in book.records(service, ["held"])}
        for listed in client.posts.list():
            if listed.status != "draft" or not marked(listed.tags) or listed.id in done.handled:
                continue
            mine = recorded.pop(listed.id, None)  # this machine's record of the hold
            when = _listed_time(listed, mine)
            if when is None or not scope.covers(listed, when):
                continue
            _release_one(
                client, book, service, listed, mine, scope, done, missed_rule,
                policy,
            )  # fmt: skip
        # held here, no longer held on the service: deleted, edited, or put back elsewhere
        for left in recorded.values():
            if left.post_id not in done.handled and scope.covers_record(left):
                _vanished(client, book, service, left, scope, done)
    return ReleaseResult(
        _in_time_order(done.released),
        _in_time_order(done.missed),
        _in_time_order(done.left),
        _in_time_order(done.already),
    )


def _listed_time(post: Post, mine: HoldRecord | None) -> datetime | None:
    """The time a listed marked draft was held from, for the scope: the record's, else its
    checked mark's, else any mark's (so that a mark that is no hold's is still reported
    within the scope it claims)."""
    if mine is not None:
        return mine.scheduled_at
    mark = HoldMark.current(post)
    if mark is not None:
        return mark.scheduled_at
    marks = HoldMark.of(post.tags)
    return marks[0].scheduled_at if marks else None


def _release_one(
    client: Client,
    book: HoldBook,
    service: str,
    listed: Post,
    mine: HoldRecord | None,
    scope: PostScope,
    done: _Released,
    missed_rule: tuple[bool, timedelta | None, ZoneInfo],
    policy: Policy,
) -> None:
    """Put back one marked draft at its hold's time, or say why not."""
    try:
        post = client.posts.retrieve(listed.id)  # with its version: listings have none
    except NotFoundError:
        claimed = _listed_time(listed, mine)
        assert claimed is not None  # only posts with a time are released
        done.left.append((_held(listed, HoldMark(claimed, "", ""), scope, None), _DELETED))
        if mine is not None:
            book.settle(service, listed.id, "left", note=_DELETED)
        return
    since: datetime | None
    if mine is not None and post.etag == mine.etag:
        mark = HoldMark(mine.scheduled_at, "", mine.held_by)  # the version the hold left
        since = mine.held_since
    else:
        checked = HoldMark.current(post)
        if checked is None or (mine is not None and checked.scheduled_at != mine.scheduled_at):
            _not_a_hold(book, service, listed, post, mine, scope, done)
            return
        held_since = mine.held_since if mine is not None else checked.since
        mark, since = checked, held_since or post.updated_at
    shown = _held(post, mark, scope, since)
    try:
        target = times.missed_time(mark.scheduled_at, service_now(client), *missed_rule)
    except TimeError as exc:  # shifted into a skipped or repeated hour: stays held
        done.left.append((shown, f"{exc}; release it with another --shift"))
        return
    if isinstance(target, str):
        done.missed.append(shown)
        return
    moved = target != mark.scheduled_at
    going: Intended = (NOW if target is None else target) if moved else mark.scheduled_at
    unapproved = must_wait(client, policy, post, going, moved=moved)
    if unapproved is not None:
        if mine is not None:
            book.settle(service, post.id, "left", note=unapproved)
        done.left.append((shown, unapproved))
        return
    base = mine or HoldRecord.of(post, mark, post.etag, since or mark.scheduled_at)
    book.releasing(service, replace(base, etag=post.etag), target)
    _settle(book, service, shown, target, _put_back(client, post, target), done)


def _not_a_hold(
    book: HoldBook,
    service: str,
    listed: Post,
    post: Post,
    mine: HoldRecord | None,
    scope: PostScope,
    done: _Released,
) -> None:
    """A marked draft whose mark is no current hold's: back already (another run put it
    back between the listing and the read), edited since the hold, or a mark no hold made.
    Reported, never acted on."""
    claimed = _listed_time(listed, mine)
    assert claimed is not None  # only marked drafts come here
    by = mine.held_by if mine is not None else HoldMark.of(listed.tags)[0].by
    shown = _held(post, HoldMark(claimed, "", by), scope, mine.held_since if mine else None)
    if post.status != "draft" and _is_back(post, claimed):
        if mine is not None:
            book.settle(service, post.id, "released", note=_ALREADY)
        done.already.append(shown)
        return
    why = _EDITED if mine is not None or not marked(post.tags) else _NOT_A_HOLD
    if mine is not None:
        book.settle(service, post.id, "left", note=why)
    done.left.append((shown, why))


@dataclass
class _Released:
    released: list[tuple[HeldPost, datetime | None]] = field(default_factory=list)
    missed: list[HeldPost] = field(default_factory=list)
    left: list[tuple[HeldPost, str]] = field(default_factory=list)
    already: list[HeldPost] = field(default_factory=list)

    @property
    def handled(self) -> set[str]:
        return {
            *(held.post_id for held, _ in self.released),
            *(held.post_id for held in self.missed),
            *(held.post_id for held, _ in self.left),
            *(held.post_id for held in self.already),
        }


_ALREADY = "put back by another run"


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
    elif outcome == _ALREADY:
        book.settle(service, shown.post_id, "released", note=_ALREADY)
        done.already.append(shown)
    elif outcome == "missed":
        book.settle(service, shown.post_id, "held")
        done.missed.append(shown)
    else:
        book.settle(service, shown.post_id, "left", note=outcome)
        done.left.append((shown, outcome))


def _put_back(client: Client, post: Post, target: datetime | None) -> str | None:
    """One release request: None when done, `_ALREADY` when another run did it first,
    "missed" when its time passed meanwhile, else why it was left as it is."""
    tags = unmarked(post.tags)
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
    except (AuthenticationError, PermissionDeniedError):
        raise  # the key, not this post
    except APIStatusError as exc:
        if exc.param == "scheduled_at":
            return "missed"  # its time came while this ran: it stays held
        return f"the service refused it ({exc.message}); left as it is"
    return None


def _after_conflict(client: Client, post_id: str, target: datetime | None) -> str:
    """The post changed under the release: put back already by another run, or edited."""
    try:
        now = client.posts.retrieve(post_id)
    except NotFoundError:
        return _DELETED
    return _ALREADY if _is_back(now, target) else _EDITED


def _is_back(post: Post, target: datetime | None) -> bool:
    """Whether `post` is as a release to `target` leaves it (no mark, at its time)."""
    if marked(post.tags):
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
    scope: PostScope,
    done: _Released,
) -> None:
    """A `releasing` record (a kill between it and the answer): done, redone or left."""
    shown = _shown(record, scope)
    try:
        post = client.posts.retrieve(record.post_id)
    except NotFoundError:
        _settle(book, service, shown, None, _DELETED, done)
        return
    if _is_back(post, record.target):
        _settle(book, service, shown, record.target, None, done)
    elif post.status == "draft" and post.etag == record.etag:
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
    scope: PostScope,
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
    if not marked(post.tags) and post.status in ("scheduled", "published"):
        book.settle(service, post.id, "released", note="put back from another machine")
        return
    _settle(book, service, shown, None, _EDITED, done)


def _shown(record: HoldRecord, scope: PostScope) -> HeldPost:
    return HeldPost(
        record.post_id,
        scope.channel(record.channel_id),
        record.title,
        record.scheduled_at,
        record.held_by,
        record.held_since,
    )


_Listed = TypeVar("_Listed", HeldPost, tuple[HeldPost, str], tuple[HeldPost, datetime | None])


def _in_time_order(items: Iterable[_Listed]) -> tuple[_Listed, ...]:
    def key(item: _Listed) -> tuple[datetime, str]:
        post = item if isinstance(item, HeldPost) else item[0]
        return post.scheduled_at, post.post_id

    return tuple(sorted(items, key=key))


def _held(post: Post, mark: HoldMark, scope: PostScope, since: datetime | None) -> HeldPost:
    when = since or mark.since or post.updated_at
    return HeldPost(
        post.id, scope.channel(post.channel_id), post.title, mark.scheduled_at, mark.by, when
    )


def _own_client() -> Client:
    from channelkit.client import Client

    return Client()
