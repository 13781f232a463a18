"""The hold mark: the one tag a held draft carries, read in every format it was written in.

Pure (no I/O): `hold.py` writes and releases marks, the calendar refuses to give a marked
draft a time without saying so, and the upcoming list reads who held what.

A mark is `held:<scheduled time>:<check>:<by>` (`HoldMark.tag`). Versions before the
check wrote `held:<scheduled time>:<held since>:<by>`: those are read too (`HoldMark.of`),
so posts held before an upgrade are listed and released like any others; having no
check, such a mark is taken as the hold's when it is the post's only mark.

    mark = HoldMark.current(post)     # None: not held (or a mark that is no hold's)
    if marked(post.tags):             # anything shaped like a mark, checked or not
        tags = unmarked(post.tags)    # what a release leaves
"""

from __future__ import annotations

import base64
import getpass
import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from channelkit._constants import PUBLISH_HOLD_CHECK_CHARS, PUBLISH_HOLD_TAG_PREFIX
from channelkit._spec import TAG_MAX_CHARS, text_problem
from channelkit.errors import InvalidParameterError

if TYPE_CHECKING:
    from channelkit.client.models import Post

_STAMP = "%Y%m%dT%H%M%SZ"
_AT = r"(?P<at>\d{8}T\d{6}Z)"
_MARK = re.compile(
    re.escape(PUBLISH_HOLD_TAG_PREFIX)
    + rf"{_AT}:(?P<check>[a-z2-7]{{{PUBLISH_HOLD_CHECK_CHARS}}}):(?P<by>.*)"
)
# The format of the versions before the check (see git history of hold.py, issue 30.1).
_EARLIER_MARK = re.compile(
    re.escape(PUBLISH_HOLD_TAG_PREFIX) + rf"{_AT}:(?P<since>\d{{8}}T\d{{6}}Z):(?P<by>.*)"
)


@dataclass(frozen=True)
class HoldMark:
    """What a held post carries in one tag: its scheduled time, a check and who held it.

    The check binds the mark to one post as the hold left it (`HoldMark.check_of`), so a
    machine without the hold record can tell a current hold from a copied, typed or stale
    mark, and from a post edited since. A mark of an earlier version has no check
    (`check` is "") and says since when the post is held (`since`).

    >>> HoldMark(datetime(2026, 12, 1, 9, tzinfo=UTC), "abcdef", "ann").tag
    'held:20261201T090000Z:abcdef:ann'
    """

    scheduled_at: datetime
    check: str
    by: str
    since: datetime | None = None

    @property
    def tag(self) -> str:
        return f"{PUBLISH_HOLD_TAG_PREFIX}{self.scheduled_at:{_STAMP}}:{self.check}:{self.by}"

    @property
    def earlier(self) -> bool:
        """Whether the mark was written by a version before the check."""
        return self.since is not None

    @staticmethod
    def holder(name: str) -> str:
        """`name` as the mark keeps it: as much as fits in a tag; a name the service would
        refuse in a tag (a control character, blank) is an `InvalidParameterError` on `by`,
        before anything is recorded or moved."""
        problem = text_problem("tag", name)
        if problem is not None or not name.strip():
            raise InvalidParameterError("by", f"{name!r}: {problem or 'must not be blank'}")
        stamp = len("20261201T090000Z")
        room = TAG_MAX_CHARS - len(PUBLISH_HOLD_TAG_PREFIX) - stamp - PUBLISH_HOLD_CHECK_CHARS - 2
        return name[:room]

    @classmethod
    def of(cls, tags: Iterable[str]) -> list[HoldMark]:
        """Every mark-shaped tag among a post's tags, parsed (checked or not), in either
        format."""
        marks = []
        for tag in tags:
            match = _MARK.fullmatch(tag)
            if match is not None:
                marks.append(cls(_instant(match["at"]), match["check"], match["by"]))
                continue
            match = _EARLIER_MARK.fullmatch(tag)
            if match is not None:
                at, since = _instant(match["at"]), _instant(match["since"])
                marks.append(cls(at, "", match["by"], since))
        return marks

    @classmethod
    def made(cls, post: Post, scheduled_at: datetime, by: str) -> HoldMark:
        """The mark a hold of `post` (as it is before the move) to draft gives it."""
        return cls(scheduled_at, cls.check_of(post, scheduled_at), by)

    @staticmethod
    def check_of(post: Post, scheduled_at: datetime) -> str:
        """A digest of the post's id, the hold's time and what the hold leaves unchanged."""
        content = [
            post.id, f"{scheduled_at.astimezone(UTC):{_STAMP}}", post.channel_id, post.title,
            post.body, post.priority, post.cover_image_url, unmarked(post.tags),
        ]  # fmt: skip
        digest = hashlib.sha256(json.dumps(content, default=str).encode()).digest()
        return base64.b32encode(digest).decode().lower()[:PUBLISH_HOLD_CHECK_CHARS]

    @classmethod
    def current(cls, post: Post) -> HoldMark | None:
        """The mark of the hold that moved `post` (a draft), checked against the post as it
        is now; None when it is not held or carries no mark that matches it. An earlier
        version's mark, which has no check, counts when it is the post's only mark."""
        if post.status != "draft":
            return None
        found = cls.of(post.tags)
        marks = [
            mark
            for mark in found
            if not mark.earlier and mark.check == cls.check_of(post, mark.scheduled_at)
        ]
        if not marks and len(found) == 1 and found[0].earlier:
            marks = found
        if len(marks) != 1:
            return None
        mark = marks[0]
        if post.scheduled_at is not None and post.scheduled_at != mark.scheduled_at:
            return None  # a draft given another time since (a server keeping it on drafts)
        return mark


def marked(tags: Iterable[str]) -> bool:
    """Whether any tag looks like a hold mark (checked or not)."""
    return any(tag.startswith(PUBLISH_HOLD_TAG_PREFIX) for tag in tags)


def unmarked(tags: Iterable[str]) -> list[str]:
    """The tags without anything that looks like a hold mark: a hold adds its one mark to
    these, a release leaves these."""
    return [tag for tag in tags if not tag.startswith(PUBLISH_HOLD_TAG_PREFIX)]


def user_name() -> str:
    """Who runs this: the holder a hold names by default, and who takes a post out of one."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no user name in this environment (a container)
        return "someone"


def _instant(stamp: str) -> datetime:
    return datetime.strptime(stamp, _STAMP).replace(tzinfo=UTC)
