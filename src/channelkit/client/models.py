"""The service's resources as pydantic models; fields the interface does not name are kept.

post = client.posts.retrieve("post_123")
post.published_at.tzinfo   # always aware (UTC)
post.model_extra           # fields a newer server added
"""

from __future__ import annotations

from datetime import date
from typing import Generic, TypeVar

from pydantic import AwareDatetime, BaseModel, ConfigDict, PrivateAttr


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class _Versioned(_Model):
    """A resource whose single-item responses carry an `ETag` (its version).

    post = client.posts.retrieve("post_123")
    client.posts.update(post.id, tags=["hr"], if_match=post.etag)  # ConflictError if changed
    """

    # Not fields: the ETag and the replay mark come from response headers, not the body.
    _etag: str | None = PrivateAttr(default=None)
    _replayed: bool = PrivateAttr(default=False)

    @property
    def etag(self) -> str | None:
        """The `ETag` of the response that returned this resource (None in listings, or
        when the server sends none)."""
        return self._etag

    @property
    def replayed(self) -> bool:
        """Whether the service answered this create from an earlier request with the same
        idempotency key (another run's or person's), creating nothing now."""
        return self._replayed


class Author(_Model):
    id: str
    name: str | None = None
    email: str | None = None


class Post(_Versioned):
    id: str
    channel_id: str
    title: str
    body: str | None = None
    priority: str = "normal"
    tags: list[str] = []
    author: Author | None = None
    status: str
    published_at: AwareDatetime | None = None
    scheduled_at: AwareDatetime | None = None
    cover_image_url: str | None = None
    views: int | None = None
    created_at: AwareDatetime | None = None
    updated_at: AwareDatetime | None = None


class Channel(_Versioned):
    id: str
    name: str
    slug: str | None = None
    description: str | None = None
    visibility: str
    subscriber_count: int | None = None
    post_count: int | None = None
    is_default: bool | None = None
    is_archived: bool | None = None
    created_at: AwareDatetime | None = None
    updated_at: AwareDatetime | None = None


class PostAnalyticsRow(_Model):
    """One post's engagement on one UTC day (`GET /analytics/posts`)."""

    post_id: str
    channel_id: str
    date: date
    views: int
    unique_viewers: int
    reactions: int
    comments: int
    shares: int
    clicks: int


class ChannelAnalyticsRow(_Model):
    """One channel's audience and output on one UTC day (`GET /analytics/channels`)."""

    channel_id: str
    date: date
    subscribers: int
    subscribers_gained: int
    subscribers_lost: int
    posts_published: int
    views: int


ItemT = TypeVar("ItemT", bound=BaseModel)


class Page(_Model, Generic[ItemT]):
    """One page of a listing: `data`, and where the next one starts.

    page = client.posts.list(limit=50).first_page()
    page.data, page.next_cursor, page.has_more
    """

    data: list[ItemT]
    next_cursor: str | None
    has_more: bool
