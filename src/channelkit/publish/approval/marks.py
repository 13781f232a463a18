"""The tags that carry the approval state on the service, where every machine sees it.

Pure (no I/O). A post waiting for approval is a draft with one waiting tag,
`awaiting-approval:<intended time>` (`now`: published at once when approved). An
approval is one approver's signature split over `APPROVAL_SIGNATURE_PARTS` tags
`approved:<name>:<part>:<text>`; a rejection one tag `rejected:<name>:<reason>`.
Anybody can type such tags: what makes an approval is that its signature verifies
(`channelkit.publish.approval.signing`), never that the tags are there.

    intended = waiting_time(post.tags)    # None: not waiting; NOW: at once
    parts = approval_tags("ann", signature)
    found = signatures(post.tags)          # {"ann": b"..."} as written, verified elsewhere
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Final, Literal

from channelkit._constants import (
    APPROVAL_REJECT_TAG_PREFIX,
    APPROVAL_SEEN_TAG_PREFIX,
    APPROVAL_SIGNATURE_PARTS,
    APPROVAL_TAG_PREFIX,
    APPROVAL_WAIT_TAG_PREFIX,
    PUBLISH_HOLD_TAG_PREFIX,
)
from channelkit._spec import TAG_MAX_CHARS

if TYPE_CHECKING:
    from channelkit.client.models import Post

_STAMP = "%Y%m%dT%H%M%SZ"
NOW: Final = "now"
Intended = datetime | Literal["now"]


def stamp(at: Intended) -> str:
    """The intended time as tags and signatures write it.

    >>> stamp(datetime(2026, 12, 1, 9, tzinfo=UTC))
    '20261201T090000Z'
    """
    return at if isinstance(at, str) else f"{at.astimezone(UTC):{_STAMP}}"


def waiting_tag(at: Intended) -> str:
    return f"{APPROVAL_WAIT_TAG_PREFIX}{stamp(at)}"


def waiting_time(tags: Iterable[str]) -> Intended | None:
    """The intended time of the first well-formed waiting tag; None when there is none."""
    for tag in tags:
        if tag.startswith(APPROVAL_WAIT_TAG_PREFIX):
            text = tag[len(APPROVAL_WAIT_TAG_PREFIX) :]
            if text == NOW:
                return NOW
            try:
                return datetime.strptime(text, _STAMP).replace(tzinfo=UTC)
            except ValueError:
                continue
    return None


def approval_tags(name: str, signature: bytes) -> list[str]:
    """`signature` by `name` as tags, each within the service's 50 characters."""
    text = base64.urlsafe_b64encode(signature).decode().rstrip("=")
    size = -(-len(text) // APPROVAL_SIGNATURE_PARTS)
    tags = [
        f"{APPROVAL_TAG_PREFIX}{name}:{n}:{text[n * size : (n + 1) * size]}"
        for n in range(APPROVAL_SIGNATURE_PARTS)
    ]
    assert all(len(tag) <= TAG_MAX_CHARS for tag in tags)  # the policy bounds the name
    return tags


def signatures(tags: Iterable[str]) -> dict[str, bytes]:
    """Each name's signature as the approval tags write it (complete ones only)."""
    parts: dict[str, dict[int, str]] = {}
    for tag in tags:
        if not tag.startswith(APPROVAL_TAG_PREFIX):
            continue
        name, _, rest = tag[len(APPROVAL_TAG_PREFIX) :].partition(":")
        index, _, text = rest.partition(":")
        if index.isdigit():
            parts.setdefault(name, {})[int(index)] = text
    found = {}
    for name, pieces in parts.items():
        if sorted(pieces) != list(range(APPROVAL_SIGNATURE_PARTS)):
            continue
        text = "".join(pieces[n] for n in range(APPROVAL_SIGNATURE_PARTS))
        try:
            found[name] = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except ValueError:
            found[name] = b""  # unreadable: reported as an approval that does not verify
    return found


def rejection_tag(name: str, reason: str) -> str:
    """`rejected:<name>:<reason>`, the reason cut to what a tag holds."""
    tag = f"{APPROVAL_REJECT_TAG_PREFIX}{name}:{' '.join(reason.split())}"
    return tag[:TAG_MAX_CHARS]


def rejections(tags: Iterable[str]) -> list[tuple[str, str]]:
    """(name, reason) of each rejection tag."""
    found = []
    for tag in tags:
        if tag.startswith(APPROVAL_REJECT_TAG_PREFIX):
            name, _, reason = tag[len(APPROVAL_REJECT_TAG_PREFIX) :].partition(":")
            found.append((name, reason))
    return found


def seen_tag(post: Post, at: Intended) -> str:
    """What an approval saw of each field, two characters each (see `changed_since`)."""
    return APPROVAL_SEEN_TAG_PREFIX + "".join(_glimpse(v) for v in _seen(post, at).values())


def changed_since(tags: Iterable[str], post: Post, at: Intended) -> list[str]:
    """The fields that differ from what the last approval saw (empty: none it can tell)."""
    for tag in tags:
        if tag.startswith(APPROVAL_SEEN_TAG_PREFIX):
            saw = tag[len(APPROVAL_SEEN_TAG_PREFIX) :]
            now = _seen(post, at)
            return [
                name for n, (name, value) in enumerate(now.items())
                if saw[2 * n : 2 * n + 2] != _glimpse(value)
            ]  # fmt: skip
    return []


def _seen(post: Post, at: Intended) -> dict[str, object]:
    return {
        "channel": post.channel_id, "title": post.title, "body": post.body,
        "priority": post.priority, "cover": post.cover_image_url,
        "tags": content_tags(post.tags), "time": stamp(at),
    }  # fmt: skip


def _glimpse(value: object) -> str:
    digest = hashlib.sha256(json.dumps(value, ensure_ascii=False).encode()).digest()
    return base64.b32encode(digest).decode().lower()[:2]


def without_approvals(tags: Iterable[str]) -> list[str]:
    """The tags without approvals and rejections: what stays when an approval is voided."""
    prefixes = (APPROVAL_TAG_PREFIX, APPROVAL_REJECT_TAG_PREFIX, APPROVAL_SEEN_TAG_PREFIX)
    return [tag for tag in tags if not tag.startswith(prefixes)]


def content_tags(tags: Iterable[str]) -> list[str]:
    """The tags an approval covers: the post's own, sorted; none of the approval state's
    and no hold mark (holding and releasing an approved post leaves its approval valid)."""
    state = (
        APPROVAL_TAG_PREFIX, APPROVAL_REJECT_TAG_PREFIX, APPROVAL_WAIT_TAG_PREFIX,
        APPROVAL_SEEN_TAG_PREFIX,
    )  # fmt: skip
    return sorted(
        tag
        for tag in tags
        if not tag.startswith(state) and not tag.startswith(PUBLISH_HOLD_TAG_PREFIX)
    )
