"""What is about to go out: every post scheduled in the next hours, the page someone
reviews each morning (`channelkit report --upcoming 36h`, and a `deliver` entry with
`upcoming = "36h"`, sent once a day).

It asks the service, not the warehouse: a post scheduled or moved a minute ago is on it. Posts
on hold (`channelkit hold`: drafts that carry their scheduled time in a hold mark) are counted
in the window they would go out in ("0 posts scheduled in the next 36 hours, 3 held"), on any
machine, since the mark is on the post. Posts waiting for approval (`channelkit approve`)
in that time are counted by who may approve them ("3 awaiting approval by legal") and
listed with their whole text, when an approval policy is set (`CHANNELKIT_APPROVAL_POLICY`):
sent to the approvers by `deliver`, it is their review digest.

    digest = upcoming_digest(client, within=timedelta(hours=36), tz=ZoneInfo("Europe/Berlin"))
    print(digest.text())               # one line per post: time, channel, title, author
    write_atomic(Path("upcoming.html"), digest.html())
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from channelkit.errors import InvalidParameterError
from channelkit.publish.approval.approving import awaiting_in
from channelkit.publish.approval.policy import Policy
from channelkit.publish.hold.mark import HoldMark
from channelkit.publish.post.times import offset_if_repeated
from channelkit.publish.post.validation import ChannelIndex, ChannelInfo

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Post


@dataclass(frozen=True)
class UpcomingPost:
    """One post about to go out, as the digest shows it (times in the digest's zone)."""

    post_id: str
    when: datetime
    channel: str  # `all-hands (organisation, 1,204 readers)`
    title: str
    author: str

    @property
    def local(self) -> str:
        """ "Sun 2027-10-31 02:30", with the offset when the clocks go back over it."""
        return f"{self.when:%a %Y-%m-%d %H:%M}" + offset_if_repeated(self.when)


@dataclass(frozen=True)
class WaitingPost:
    """A post waiting for approval, as the review part of the digest shows it: whole."""

    post_id: str
    when: datetime | None  # None: at once when approved
    channel: str
    title: str
    author: str
    body: str
    approvers: str  # "ann or bob"

    @property
    def local(self) -> str:
        if self.when is None:
            return "at once when approved"
        return f"{self.when:%a %Y-%m-%d %H:%M}" + offset_if_repeated(self.when)


@dataclass(frozen=True)
class UpcomingDigest:
    """Every post scheduled in `[start, end)`, in time order, and how many held posts were
    scheduled in it (`held`); `outlook`, the posts already out that are heading below
    their channel's usual range (a sentence, from the warehouse:
    `display.outlook.heading_below`), when there are any."""

    start: datetime
    end: datetime
    tz: ZoneInfo
    posts: tuple[UpcomingPost, ...]
    held: int = 0
    outlook: str | None = None
    waiting: tuple[WaitingPost, ...] = ()

    @property
    def hours(self) -> int:
        return round((self.end - self.start).total_seconds() / 3600)

    @property
    def title(self) -> str:
        count = len(self.posts)
        title = f"{count} post{'s' if count != 1 else ''} scheduled in the next {self.hours} hours"
        return f"{title}, {self.held} held" if self.held else title

    @property
    def held_note(self) -> str:
        """What the held count means and where the held posts are, or "" without any."""
        if not self.held:
            return ""
        which = "post on hold was" if self.held == 1 else "posts on hold were"
        return (
            f"{self.held} {which} scheduled in this time: `channelkit hold --status` lists "
            "them, `channelkit release` puts them back"
        )

    @property
    def awaiting_notes(self) -> list[str]:
        """ "3 awaiting approval by legal: `channelkit approve` lists them", one per group."""
        counts: dict[str, int] = {}
        for post in self.waiting:
            counts[post.approvers] = counts.get(post.approvers, 0) + 1
        return [
            f"{count} awaiting approval by {who}: `channelkit approve` lists them"
            for who, count in sorted(counts.items())
        ]

    @property
    def span(self) -> str:
        return f"{self.start:%a %Y-%m-%d %H:%M} to {self.end:%a %Y-%m-%d %H:%M} {self.tz.key}"

    @property
    def day(self) -> date:
        """The local day it was made on: a delivery sends one digest per day."""
        return self.start.date()

    def text(self) -> str:
        """The title, the span, then one line per post."""
        lines = [self.title, self.span]
        lines += [self.held_note] if self.held else []
        lines += self.awaiting_notes
        lines += [
            f"{post.local}  {post.channel}  {post.title}  (by {post.author})" for post in self.posts
        ]
        if self.waiting:
            lines.append("Awaiting approval:")
        for post in self.waiting:
            lines.append(f"{post.local}  {post.channel}  {post.title}  (by {post.author}; "
                         f"to be approved by {post.approvers}; {post.post_id})")  # fmt: skip
            lines += [f"    {line}" for line in post.body.splitlines()]
        if self.outlook is not None:
            lines.append(f"Already out: {self.outlook} (provisional)")
        return "\n".join(lines)

    def html(self) -> str:
        """A self-contained page (autoescaped: titles and names are never markup)."""
        from channelkit.reports.render import render_named

        return render_named("upcoming.html.j2", digest=self)


def upcoming_digest(
    client: Client,
    *,
    within: timedelta,
    tz: ZoneInfo,
    channels: Sequence[str] | None = None,
    now: datetime | None = None,
) -> UpcomingDigest:
    """Every post scheduled from now (the service's clock) to `within` later, of every
    channel the key sees or of `channels` (ids, slugs or names)."""
    if within <= timedelta(0):
        raise InvalidParameterError("upcoming", "must be a positive duration such as 36h")
    start = (now or client.server_time()).astimezone(tz).replace(microsecond=0)
    end = start + within
    index = ChannelIndex.from_client(client)
    chosen = None
    if channels:
        chosen = set()
        for ref in channels:
            found = index.resolve(ref)
            if not isinstance(found, ChannelInfo):
                raise InvalidParameterError("channel", found.message)
            chosen.add(found.id)
    listed = [post for post in client.posts.list() if chosen is None or post.channel_id in chosen]
    posts = [
        _shown(post, index, tz)
        for post in listed
        if post.status == "scheduled"
        and post.scheduled_at is not None
        and start <= post.scheduled_at < end
    ]
    posts.sort(key=lambda post: (post.when, post.post_id))
    waiting = tuple(
        _waiting(post, at, " or ".join(rule.approvers), index, tz)
        for post, at, rule in awaiting_in(listed, Policy.load(), index, start, end)
    )
    return UpcomingDigest(start, end, tz, tuple(posts), _held(listed, start, end), waiting=waiting)


def _held(posts: Sequence[Post], start: datetime, end: datetime) -> int:
    """How many of `posts` are held drafts whose hold mark puts them in `[start, end)` (the
    mark of a current hold only: a copied or left-over mark is no hold)."""
    marks = (HoldMark.current(post) for post in posts)
    return sum(1 for mark in marks if mark is not None and start <= mark.scheduled_at < end)


def _shown(post: Post, index: ChannelIndex, zone: ZoneInfo) -> UpcomingPost:
    assert post.scheduled_at is not None  # only scheduled posts are shown
    channel, name = _channel_and_author(post, index)
    return UpcomingPost(post.id, post.scheduled_at.astimezone(zone), channel, post.title, name)


def _waiting(
    post: Post, at: datetime | str, who: str, index: ChannelIndex, zone: ZoneInfo
) -> WaitingPost:
    channel, name = _channel_and_author(post, index)
    when = at.astimezone(zone) if isinstance(at, datetime) else None
    return WaitingPost(post.id, when, channel, post.title, name, post.body or "", who)


def _channel_and_author(post: Post, index: ChannelIndex) -> tuple[str, str]:
    info = index.get(post.channel_id)
    author = post.author
    name = (author.name or author.email or author.id) if author is not None else "unknown"
    return (info.audience if info is not None else post.channel_id), name
