"""A plan written back in another tool's bulk layout (`channelkit calendar export --layout`).

Each post becomes one row of the layout (publish/layouts/declared.py): the time as the tool writes
it (day/month in the order the user names for tools that let the user pick), the body as
the message (a link `layout_read` added at its end goes back to the link column), the
channel as the file's profile or network name (`--map`, inverted). Reading the file back
with the same choices gives the same posts: import → export → import changes nothing.

    header, rows = layout_rows(LAYOUTS["hootsuite"], posts, date_order="dmy", names={})

`export_layout` fetches the scheduled posts of a window (as `calendar export` does) and
writes them; `write_layout` writes rows with the safe writer's rules.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from channelkit.errors import InvalidParameterError
from channelkit.publish.layouts.declared import Layout
from channelkit.publish.layouts.read import Choices
from channelkit.publish.layouts.stamps import ORDERS
from channelkit.publish.post.validation import ChannelIndex, ChannelInfo

if TYPE_CHECKING:
    pass

_TRAILING_LINKS = re.compile(r"(?P<message>.*?)\n\n(?P<links>(?:<[^<>\s]+>\n?)+)", re.DOTALL)


@dataclass(frozen=True)
class LayoutPost:
    """What a layout row holds of a post: its channel (slug), texts and aware time."""

    channel: str
    title: str
    body: str
    scheduled_at: datetime
    tz: ZoneInfo
    cover_image_url: str | None = None
    tags: tuple[str, ...] = ()


def layout_rows(
    layout: Layout,
    posts: Sequence[LayoutPost],
    *,
    date_order: str | None,
    names: Mapping[str, str],
) -> tuple[list[str] | None, list[list[object]]]:
    """The header (None for a layout without one) and one row per post.

    `names` maps a channel (slug) to the file's profile or network name for it."""
    if not layout.exportable:
        raise InvalidParameterError(
            "layout", f"{layout.name} files have no time column: a plan cannot be written back"
        )
    _check_names(layout, posts, names)
    swap = _swap(layout, date_order)
    networks = list(dict.fromkeys(names.values())) if "network" in layout.roles() else []
    header: list[str] = []
    for column in layout.columns:
        if column.role == "network":
            header.extend(networks)
        elif column.role == "unsupported":
            header.extend(column.headers)  # written empty, as the template has them
        elif column.role == "when" and layout.pattern:
            header.append(f"{column.label} ({layout.pattern})")
        else:
            header.append(column.label)
    rows = [_row(layout, post, swap, names, networks) for post in posts]
    return (header if layout.has_header else None), rows


def layout_names(index: ChannelIndex, choices: Choices, layout: Layout) -> dict[str, str]:
    """Channel (slug, as the calendar writes it) → the file's name for it (`--map`, then
    the layout file's `[channels]`, inverted; the first name mapped to a channel wins)."""
    names: dict[str, str] = {}
    for name, ref in (*choices.names, *layout.channels):
        channel = index.resolve(ref)
        if not isinstance(channel, ChannelInfo):
            raise InvalidParameterError("map", f"{name}={ref}: {channel.message}")
        names.setdefault(channel.slug or channel.name, name)
    return names


def write_layout(path: Path, header: list[str] | None, rows: list[list[object]]) -> Path:
    """Write the rows to `path` (.csv, or .xlsx for layouts with a header row), atomically;
    text that a spreadsheet would run as a formula stays text."""
    from channelkit.export import LINE_END, safe_row, to_excel, written_atomically

    if path.suffix.lower() == ".xlsx":
        if header is None:
            raise InvalidParameterError("path", "a layout without a header row is written as .csv")
        import pandas as pd

        frame = pd.DataFrame(rows, columns=header).astype(object)
        return to_excel({"posts": frame}, path)
    with written_atomically(path, suffix=".csv") as temporary:
        with temporary.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, lineterminator=LINE_END)
            if header is not None:
                writer.writerow(safe_row(header))
            for row in rows:
                writer.writerow(safe_row(row))
    return path


def split_links(body: str) -> tuple[str, list[str]]:
    """The message and the links `layout_read.with_links` put at the end of a body."""
    match = _TRAILING_LINKS.fullmatch(body)
    if match is None:
        return body, []
    links = [line.strip()[1:-1] for line in match["links"].splitlines() if line.strip()]
    return match["message"], links


def _row(
    layout: Layout,
    post: LayoutPost,
    swap: bool,
    names: Mapping[str, str],
    networks: Sequence[str],
) -> list[object]:
    has_link = "link" in layout.roles()
    message, links = split_links(post.body) if has_link else (post.body, [])
    moment = post.scheduled_at.astimezone(UTC if layout.utc else post.tz)
    written = _format(layout.written, swap)
    date_part, _, time_part = written.partition(" ")
    name = names.get(post.channel, post.channel)
    values: dict[str, object] = {
        "when": moment.strftime(written),
        "date": moment.strftime(date_part),
        "time": moment.strftime(time_part),
        "year": moment.year,
        "month": moment.month,
        "day": moment.day,
        "hour": moment.hour,
        "minute": moment.minute,
        "message": message,
        "title": post.title,
        "link": ", ".join(links) or None,
        "image": post.cover_image_url,
        "tags": ", ".join(post.tags) or None,
        "profile": name,
    }
    row: list[object] = []
    images = 0
    for column in layout.columns:
        if column.role == "network":
            row.extend("TRUE" if network == name else "FALSE" for network in networks)
        elif column.role == "unsupported":
            row.extend(None for _ in column.headers)
        elif column.role == "image":
            images += 1
            row.append(values["image"] if images == 1 else None)
        else:
            row.append(values.get(column.role))
    return row


def _check_names(layout: Layout, posts: Sequence[LayoutPost], names: Mapping[str, str]) -> None:
    """A layout whose uploader requires a profile name (PostFast's account_id, Ayrshare's
    platforms) gets one for every channel from `--map`: a slug is not a name it knows."""
    column = next((c for c in layout.columns if c.role == "profile" and c.required), None)
    missing = sorted({post.channel for post in posts} - set(names))
    if column is None or not missing:
        return
    label = column.label
    raise InvalidParameterError(
        "map",
        f"{layout.name} files name each post's {label}, which channelkit cannot know: "
        f"no {label} for {', '.join(missing)}; give --map {label.upper()}=CHANNEL for each",
    )


def _swap(layout: Layout, date_order: str | None) -> bool:
    """Whether to write month first: the layout's times are day first unless the user's
    order says otherwise (only layouts that let the user pick; year-first ones never)."""
    if layout.dates != "either" or layout.written.startswith("%Y"):
        return False
    if date_order not in ORDERS:
        raise InvalidParameterError(
            "date_order",
            f"{layout.name} files write the day and month in the order picked at upload: "
            "say which with --date-order dmy or --date-order mdy",
        )
    return date_order == "mdy"


def _format(written: str, swap: bool) -> str:
    if not swap:
        return written
    return written.replace("%d", "\0").replace("%m", "%d").replace("\0", "%m")
