"""The window of scheduled posts: which channels, which `[start, end)`, and their posts.

The calendar export and the hold both act on "every post of these channels in this window";
the scope is chosen here once, so the two agree on what a channel reference or a date means.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from channelkit.errors import APIStatusError, FieldError, InvalidParameterError, TimeError
from channelkit.publish.post.row_types import cell_text
from channelkit.publish.post.times import parse_when
from channelkit.publish.post.validation import ChannelIndex

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Post


def channel_posts(client: Client, channel_ids: Iterable[str]) -> dict[str, list[Post]]:
    """Every post of each channel; channels this key may not list are left out."""
    found: dict[str, list[Post]] = {}
    for channel_id in sorted(channel_ids):
        try:
            found[channel_id] = list(client.posts.list(channel_id=channel_id))
        except APIStatusError:
            continue  # not listable with this key: its posts are read one by one
    return found


def chosen_channels(index: ChannelIndex, channel: str | Sequence[str] | None) -> list[Any]:
    """The channels `channel` names (ids, slugs or names; every one of `index` for None),
    or an `InvalidParameterError` naming `channel`: the calendar's and the hold's scope."""
    if channel is None:
        return list(index.channels)
    refs = [channel] if isinstance(channel, str) else list(channel)
    chosen = []
    for ref in refs:
        resolved = index.resolve(ref)
        if isinstance(resolved, FieldError):
            raise InvalidParameterError("channel", resolved.message)
        chosen.append(resolved)
    return chosen


def window_bounds(
    start: object, end: object, zone: ZoneInfo
) -> tuple[datetime | None, datetime | None]:
    """The `[start, end)` of a window (either may be None, open), refused when reversed."""
    begin = None if start is None else window_bound(start, "start", zone)
    finish = None if end is None else window_bound(end, "end", zone)
    if begin is not None and finish is not None and finish <= begin:
        raise InvalidParameterError(
            "end",
            f"{finish.astimezone(zone):%Y-%m-%d %H:%M} is not after the start "
            f"{begin.astimezone(zone):%Y-%m-%d %H:%M} ({zone.key}): the window would be empty; "
            "swap them",
        )
    return begin, finish


def window_bound(value: object, name: str, zone: ZoneInfo) -> datetime:
    """`start` or `end` (`name`) of a window: a date is its midnight in `zone`, a naive time
    is in `zone`; else an `InvalidParameterError` naming it."""
    text = cell_text(value)
    if value is None or text is None:
        raise InvalidParameterError(name, "is required (a date such as 2026-12-01)")
    if hasattr(value, "isoformat") and not isinstance(value, datetime):
        text = f"{value.isoformat()} 00:00"  # a date: its midnight in the zone
    elif isinstance(value, str) and len(value.strip()) == 10:
        text = f"{value.strip()} 00:00"
    try:
        return parse_when(value if isinstance(value, datetime) else text, tz=zone)
    except TimeError as exc:
        raise InvalidParameterError(name, str(exc)) from None
