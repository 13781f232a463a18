"""A row already turned into a post, and what happened to that post since.

Pure: the ledger (`channelkit.publish.post.ledger`) of this machine, or the post's origin tag on
the service (`channelkit.publish.post.origin`) for a row sent from another machine, says which
post a row became; the service says what the post is now; this module compares the two
and words it for people.

    before = SentBefore.of("post_12", sent_fields, post_now)
    before.describe()     # 'already sent as post_12 (changed since: title, time)'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC
from typing import TYPE_CHECKING, Any

from channelkit.publish.post.fields import PostField, arranged, by_name
from channelkit.publish.post.origin import without_origin

if TYPE_CHECKING:
    from channelkit.client.models import Post

# The sent fields in the order messages list them (every contract field), and what a
# change of each is called where its name is not the word.
_ORDER = arranged(("channel", "title", "body", "scheduled_at"))
_WORDS = {"scheduled_at": "time", "cover_image_url": "cover image"}


@dataclass(frozen=True)
class SentBefore:
    """The post a row already became: its id, the post as it is now (None when this key
    cannot see it, or it was deleted), and the names of what changed since it was sent."""

    post_id: str
    post: Post | None
    changes: tuple[str, ...] = ()

    @classmethod
    def of(cls, post_id: str, sent: Mapping[str, Any], post: Post | None) -> SentBefore:
        return cls(post_id, post, changes_since(sent, post) if post is not None else ())

    def describe(self) -> str:
        """`already sent as post_12 (changed since: title, time)`."""
        if self.post is None:
            return f"already sent as {self.post_id} (this key cannot see it now, or it was deleted)"
        if not self.changes:
            return f"already sent as {self.post_id}"
        return f"already sent as {self.post_id} (changed since: {', '.join(self.changes)})"


def changes_since(sent: Mapping[str, Any], post: Post) -> tuple[str, ...]:
    """The names of the fields of `post` that differ from what was `sent`, and `cancelled`
    or `published` when its status moved on from scheduled."""
    changed = []
    for name in _ORDER:
        field = by_name(name)
        now = _comparable(
            field, _utc(post) if field.kind == "instant" else getattr(post, field.api, None)
        )
        if now != _comparable(field, sent.get(field.api)):
            changed.append(_WORDS.get(field.api, name.replace("_", " ")))
    if post.status == "draft":
        changed.append("cancelled")
    elif post.status == "published" and sent.get("scheduled_at") is not None:
        changed.append("published")
    return tuple(changed)


def _comparable(field: PostField, value: Any) -> Any:
    """What was sent and what the service holds, alike: blanks, line ends, tag order."""
    if field.kind == "tags":
        return sorted(without_origin(value or ()))  # what the row gave, not channelkit's mark
    if field.kind == "enum":
        return value or field.spec.default
    if field.kind == "text" and field.required:
        return str(value or "").replace("\r\n", "\n")
    if isinstance(value, str):
        return value.replace("\r\n", "\n") or None
    return value or None


def _utc(post: Post) -> str | None:
    if post.scheduled_at is None:
        return None
    return post.scheduled_at.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
