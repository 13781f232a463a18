"""`ck.schedule`: one post from a notebook cell, validated like a spreadsheet row.

Running the same cell again does not post twice: the idempotency key derives from the
post's content, so within the service's 24 hours the first post is returned again.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import PrivateAttr

from channelkit._tz import given_tz
from channelkit.client.models import Post
from channelkit.publish.errors import PostValidationError
from channelkit.publish.preview import format_when, post_html
from channelkit.publish.validation import ChannelIndex, service_now, validate_post

if TYPE_CHECKING:
    from channelkit.client import Client


class ScheduledPost(Post):
    """The `Post` that `ck.schedule` created; Jupyter shows it as a rendered card.

    post = ck.schedule(channel="all-hands", title="Hi", body="**bold**",
                       at="2026-12-01 09:00", tz="Europe/Berlin")
    post.id, post.status, post.scheduled_at     # a Post like any other
    post                                        # in Jupyter: the preview card
    """

    _channel_name: str | None = PrivateAttr(default=None)
    _tz: str | None = PrivateAttr(default=None)

    @classmethod
    def from_post(cls, post: Post, *, channel_name: str | None, tz: str | None) -> ScheduledPost:
        scheduled = cls.model_validate(post.model_dump())
        scheduled._channel_name = channel_name
        scheduled._tz = tz
        return scheduled

    def _repr_html_(self) -> str:
        channel = self._channel_name or self.channel_id
        return post_html(
            title=self.title,
            body=self.body or "",
            channel=channel,
            when=format_when(self.scheduled_at or self.published_at, self._tz),
            status=self.status,
            priority=self.priority,
            tags=self.tags,
            post_id=self.id,
            cover_image_url=self.cover_image_url,
        )


def schedule(
    channel: str,
    title: str,
    body: str,
    at: datetime | str | None = None,
    tz: str | None = None,
    priority: str = "normal",
    tags: Sequence[str] | str = (),
    cover_image_url: str | None = None,
    confirm_urgent: bool = False,
    client: Client | None = None,
) -> ScheduledPost:
    """Publish (`at=None`) or schedule one post; returns the created Post.

    `channel` is an id, slug or exact name. `at` is a datetime or text such as
    `2026-12-01 09:00`; naive times are read in `tz` (default: CHANNELKIT_TZ), and must be
    at least 5 minutes ahead. `urgent` bypasses readers' notification preferences and needs
    `confirm_urgent=True`. Without `client`, one is made from CHANNELKIT_BASE_URL and
    CHANNELKIT_API_KEY. Raises `PostValidationError` (nothing sent) listing every problem.
    """
    if client is None:
        from channelkit.client import Client

        with Client() as own_client:
            return schedule(
                channel,
                title,
                body,
                at=at,
                tz=tz,
                priority=priority,
                tags=tags,
                cover_image_url=cover_image_url,
                confirm_urgent=confirm_urgent,
                client=own_client,
            )
    request = validate_post(
        {
            "channel": channel,
            "title": title,
            "body": body,
            "scheduled_at": at,
            "priority": priority,
            "tags": tags,
            "cover_image_url": cover_image_url,
        },
        channels=ChannelIndex.from_client(client),
        tz=given_tz(tz),
        now=service_now(client),
        confirm_urgent=confirm_urgent,
    )
    if isinstance(request, list):
        raise PostValidationError(request)
    post = client.posts.create(
        **request.to_create_kwargs(), idempotency_key=request.idempotency_key()
    )
    return ScheduledPost.from_post(post, channel_name=request.channel_name, tz=request.tz)
