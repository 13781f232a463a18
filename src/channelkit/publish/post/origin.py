"""Where a post came from, in a tag every machine sees: a row is sent once, whoever sends it.

The sent-posts ledger remembers the rows of one machine; a colleague's machine has its own.
So each post channelkit creates carries one origin tag, `sent-by-channelkit:<digest>`, a
digest of *the same row* as defined here: the channel (its id), the title and the body
(spacing and case aside) and the scheduled time (UTC, to the second; none for a post
published at once). Nothing of who sends it or from which file: a colleague's copy of the
sheet, renamed, reordered or exported from another tool, is the same row; the priority,
tags and cover are what a copy may adjust, not what makes it another post.

The tag stays on the post whatever happens to it next (a retitle, a new body, another time,
publication): the service keeps tags until someone removes them, and lists posts by tag
(`GET /posts?tag=`), so any machine finds the post a row became, a day or a year later.
The idempotency key cannot do this: the service keeps it 24 hours and never shows it.

Why a tag readers cannot mistake for a topic: it names the tool and says what it is
("sent by channelkit") followed by an opaque reference, as a mail's Message-ID does; it is
never a word of the post's subject, and channelkit's own views of tags (the calendar, the
tag analyses) leave it out.

    tag = origin_tag(request.channel_id, request.title, request.body, request.scheduled_at)
    origins(post.tags)          # the origin tags of a post (normally one)
    without_origin(post.tags)   # the tags people gave it
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime

from channelkit._constants import PUBLISH_ORIGIN_CHARS, PUBLISH_ORIGIN_TAG_PREFIX


def origin_tag(channel_id: str, title: str, body: str, scheduled_at: datetime | None) -> str:
    """The origin tag of the row that sends this post (see the module docstring).

    >>> origin_tag("chan_1", "Parking closed", "Level -2.", None)
    'sent-by-channelkit:mfztvdrnndjp'
    """
    when = "" if scheduled_at is None else f"{scheduled_at.astimezone(UTC):%Y-%m-%dT%H:%M:%SZ}"
    identity = [channel_id, _folded(title), _folded(body), when]
    digest = hashlib.sha256(json.dumps(identity, ensure_ascii=False).encode()).digest()
    return (
        PUBLISH_ORIGIN_TAG_PREFIX + base64.b32encode(digest).decode().lower()[:PUBLISH_ORIGIN_CHARS]
    )


def is_origin(tag: str) -> bool:
    """Whether `tag` is an origin tag (channelkit's, never a person's)."""
    return tag.startswith(PUBLISH_ORIGIN_TAG_PREFIX)


def origins(tags: Iterable[str]) -> list[str]:
    """The origin tags among `tags`."""
    return [tag for tag in tags if is_origin(tag)]


def without_origin(tags: Iterable[str]) -> list[str]:
    """`tags` without origin tags: the tags people gave the post."""
    return [tag for tag in tags if not is_origin(tag)]


def _folded(text: str) -> str:
    return " ".join(text.split()).casefold()
