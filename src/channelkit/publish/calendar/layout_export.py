"""`channelkit calendar export --layout`: a window's scheduled posts in another tool's file."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from channelkit.publish.calendar.round_trip import calendar_frame
from channelkit.publish.layouts.declared import Layout
from channelkit.publish.layouts.library import layout_named
from channelkit.publish.layouts.read import Choices
from channelkit.publish.layouts.write import LayoutPost, layout_names, layout_rows, write_layout
from channelkit.publish.post.times import parse_when
from channelkit.publish.post.validation import ChannelIndex

if TYPE_CHECKING:
    from channelkit.client import Client


def export_layout(
    path: str | Path,
    *,
    layout: str | Layout,
    start: object,
    end: object,
    client: Client,
    tz: ZoneInfo,
    channel: str | Sequence[str] | None = None,
    choices: Choices | None = None,
) -> tuple[Path, int, int]:
    """Write the scheduled posts of `[start, end)` to `path` in `layout` (one, or the key
    of a known one: built-in or the team's); returns the path, the posts written and the
    drafts left out (a bulk file has no draft state). `choices.names` (`--map`) give the
    file's names for channels; `choices.date_order` the day/month order of tools that let
    the user pick it."""
    found = layout_named(layout) if isinstance(layout, str) else layout
    choices = choices or Choices()
    frame = calendar_frame(client, start=start, end=end, tz=tz, channel=channel)
    index = ChannelIndex.from_client(client)
    names = layout_names(index, choices, found)
    time_column = next(column for column in frame.columns if column.startswith("scheduled_at"))
    posts = [
        LayoutPost(
            channel=str(record["channel"]),
            title=str(record["title"]),
            body=str(record["body"] or ""),
            scheduled_at=parse_when(record[time_column], tz=tz),
            tz=tz,
            cover_image_url=record.get("cover_image_url") or None,
            tags=tuple(tag.strip() for tag in str(record["tags"] or "").split(",") if tag.strip()),
        )
        for record in frame.to_dict("records")
        if record["status"] == "scheduled"
    ]
    header, rows = layout_rows(found, posts, date_order=choices.date_order, names=names)
    drafts = len(frame) - len(posts)
    return write_layout(Path(path), header, rows), len(posts), drafts
