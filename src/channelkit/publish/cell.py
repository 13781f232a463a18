"""`ck.schedule`: one post from a notebook cell, validated like a spreadsheet row.

Running the same cell again does not post twice, a minute or a year later: the sent-posts
ledger of this machine remembers the post the cell became (`sent_before` then says so and
what changed since), and the idempotency key derives from the post's content and the
service's address, so another machine's run within the service's 24 hours gets the first
post back too.
"""

from __future__ import annotations

import html
import inspect
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from pydantic import PrivateAttr

from channelkit._tz import resolve_zone
from channelkit.client.models import Post
from channelkit.errors import ChannelkitError, PostValidationError
from channelkit.publish.approval.approving import gate, untimed
from channelkit.publish.approval.policy import Policy
from channelkit.publish.post.fields import PUBLISH_FIELDS
from channelkit.publish.post.preview import format_when, post_html
from channelkit.publish.post.sending import send_one
from channelkit.publish.post.validation import ChannelIndex, service_now, validate_post

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
    _tz: ZoneInfo | None = PrivateAttr(default=None)
    _sent_before: str | None = PrivateAttr(default=None)

    @classmethod
    def from_post(
        cls,
        post: Post,
        *,
        channel_name: str | None,
        tz: ZoneInfo | None,
        sent_before: str | None = None,
    ) -> ScheduledPost:
        scheduled = cls.model_validate(post.model_dump())
        scheduled._channel_name = channel_name
        scheduled._tz = tz
        scheduled._sent_before = sent_before
        return scheduled

    @property
    def sent_before(self) -> str | None:
        """`already sent as post_… (changed since: title, time)` when this call created
        nothing because the same post was sent before; then the post is as it is now."""
        return self._sent_before

    def _repr_html_(self) -> str:
        channel = self._channel_name or self.channel_id
        note = self._sent_before
        card = post_html(
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
        if note is None:
            return card
        return f'<p class="ck-sent">Nothing created: {html.escape(note)}.</p>{card}'


def schedule(
    channel: str,
    title: str,
    body: str,
    at: datetime | str | None = None,
    tz: str | ZoneInfo | None = None,
    priority: str = "normal",
    tags: Sequence[str] | str = (),
    cover_image_url: str | None = None,
    confirm_urgent: bool = False,
    client: Client | None = None,
    **more: object,
) -> ScheduledPost:
    """Publish (`at=None`) or schedule one post; returns the created Post.

    `channel` is an id, slug or name, in any case. `at` is a datetime or text such as
    `2026-12-01 09:00`; naive times are read in `tz` (default: CHANNELKIT_TZ), and must be
    at least 5 minutes ahead. `urgent` bypasses readers' notification preferences and needs
    `confirm_urgent=True`. Without `client`, one is made from CHANNELKIT_BASE_URL and
    CHANNELKIT_API_KEY. Raises `PostValidationError` (nothing sent) listing every problem.
    Every other post field of the contract is a keyword too (`help(ck.schedule)` lists
    them), checked like a spreadsheet column of that name.
    """
    unknown = sorted(set(more) - set(_MORE))
    if unknown:
        raise TypeError(f"schedule() got an unexpected keyword argument {unknown[0]!r}")
    # before any client or request: a bad zone is a bad argument
    zone = resolve_zone(tz, default=None)
    if client is None:
        from channelkit.client import Client

        with Client() as own_client:
            return schedule(
                channel,
                title,
                body,
                at=at,
                tz=zone,
                priority=priority,
                tags=tags,
                cover_image_url=cover_image_url,
                confirm_urgent=confirm_urgent,
                client=own_client,
                **more,
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
            **more,
        },
        channels=ChannelIndex.from_client(client),
        tz=zone,
        now=service_now(client),
        confirm_urgent=confirm_urgent,
    )
    if isinstance(request, list):
        raise PostValidationError(request)
    policy = Policy.load()
    unapproved = untimed(client, policy, [request])
    if unapproved is not None:
        raise ChannelkitError(f"{unapproved}; nothing was sent")
    post, before = send_one(client, request, source="ck.schedule")
    if post is not None:
        post = gate(client, policy, [post])[post.id]
    if post is None:
        assert before is not None  # without a post, only a sent-before can come back
        raise ChannelkitError(f"not sent again: {before.describe()}")
    note = before.describe() if before is not None else None
    return ScheduledPost.from_post(
        post, channel_name=request.channel_name, tz=request.tz, sent_before=note
    )


def _signature() -> inspect.Signature:
    """`schedule`'s own parameters, then every other post field of the contract as a
    keyword: what `help()` and Jupyter show, so a new field is offered without an edit."""
    own = inspect.signature(schedule)
    named = [p for p in own.parameters.values() if p.kind is not p.VAR_KEYWORD]
    extra = [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=object)
        for name in _MORE
    ]
    return own.replace(parameters=[*named, *extra])


# Post fields `schedule` takes through `**more` (those it does not name; "at" is the time).
_MORE = tuple(
    field.name
    for field in PUBLISH_FIELDS
    if field.name not in inspect.signature(schedule).parameters and field.name != "scheduled_at"
)
schedule.__signature__ = _signature()  # type: ignore[attr-defined]
