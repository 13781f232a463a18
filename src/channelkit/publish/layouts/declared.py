"""Other tools' bulk-scheduling layouts, declared as data: one `Layout` per tool.

A file that is not a channelkit posts file may be one of these; `layout_read` recognises
it by the declarations below and translates its rows into the native columns (channel,
title, body, scheduled_at, cover_image_url, tags) in front of the one validation path;
`layout_write` writes a plan back in the same layout. Adding a tool is adding a
declaration here, not code.

The templates are reconstructed from the tools' public help pages as remembered (no
network here); docs/publishing.md ("Moving from another tool") lists the assumptions.

    layout = LAYOUTS["buffer"]
    [column.role for column in layout.columns]   # ['message', 'image', 'tags', 'when']

Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

# What a column holds, and the native field it becomes (for messages and hints).
ROLE_FIELDS = {
    "when": "scheduled_at",  # date and time in one cell
    "date": "scheduled_at",  # the day; a `time` column gives the time of day
    "time": "scheduled_at",
    "year": "scheduled_at",  # the time in five cells: year, month, day, hour, minute
    "month": "scheduled_at",
    "day": "scheduled_at",
    "hour": "scheduled_at",
    "minute": "scheduled_at",
    "message": "body",
    "title": "title",
    "link": "body",  # kept in the body as a Markdown link
    "image": "cover_image_url",
    "tags": "tags",
    "profile": "channel",  # names a profile or network: mapped to a channel
    "network": "channel",  # one TRUE/FALSE column per network, named by its header
    "unsupported": "",  # must stay empty: channelkit posts cannot carry it (videos, ...)
    "ignored": "",  # read and left out: it means nothing for a channelkit post
}
# How a layout writes its dates:
# - "year-first": its template allows only YYYY-MM-DD (settled by the layout);
# - "either": the user picks day/month order when uploading, so the file settles it (enough
#   rows with a day above 12 one way, `layout_times.enough`; never one row alone) or
#   --date-order does; otherwise ambiguous dates are refused;
# - "cells": year, month, day, hour and minute in cells of their own;
# - "header": the time column's header carries its format, `(yyyy-MM-dd HH:mm:ss)`;
# - "none": no time column: times come from --slots.
DATE_RULES = ("year-first", "either", "cells", "header", "none")


@dataclass(frozen=True)
class Column:
    """One column of a layout: its role and the headers it is written with (none for a
    positional layout, whose columns are known by their place)."""

    role: str
    headers: tuple[str, ...] = ()
    required: bool = False
    repeats: bool = False  # one column per network, several picture columns, ...

    @property
    def label(self) -> str:
        """The header the template writes (a positional column: what it holds)."""
        return self.headers[0] if self.headers else self.role.replace("when", "date-time")

    def matches(self, key: str) -> bool:
        """Whether the header `key` (case-folded, see `layout_read`) is this column's."""
        return key in {header.casefold() for header in self.headers}


@dataclass(frozen=True)
class Layout:
    """A tool's bulk file: its columns (in the template's order), whether row 1 holds
    headers, how it writes dates, and whether the plan can be written back in it."""

    key: str
    name: str
    columns: tuple[Column, ...]
    dates: str
    written: str = "%Y-%m-%d %H:%M"  # how an export writes times (day first for "either")
    has_header: bool = True
    exportable: bool = True
    utc: bool = False  # times written in UTC with a Z (the tool reads them so)
    pattern: str | None = None  # for "header": the format the time header names
    assumption: str = ""

    def roles(self) -> set[str]:
        return {column.role for column in self.columns}

    @property
    def a_name(self) -> str:
        """`a Hootsuite`, `an Ayrshare`: the name with the article it reads with (by its
        first letter: the declared names say their vowels as vowels)."""
        return f"{'an' if self.name[:1].casefold() in 'aeiou' else 'a'} {self.name}"


_NETWORKS = (
    "Facebook",
    "Twitter",
    "X",
    "LinkedIn",
    "Instagram",
    "Pinterest",
    "TikTok",
    "YouTube",
    "GMB",
    "Google Business Profile",
    "Threads",
    "Bluesky",
)

LAYOUTS: dict[str, Layout] = {
    layout.key: layout
    for layout in (
        Layout(
            "hootsuite",
            "Hootsuite",
            (Column("when", required=True), Column("message", required=True), Column("link")),
            dates="either",
            written="%d/%m/%Y %H:%M",
            has_header=False,
            assumption="no header row; A: date and time (24-hour, day/month order picked at "
            "upload), B: message, C: optional link",
        ),
        Layout(
            "sprout",
            "Sprout Social",
            (
                Column("date", ("date", "Date"), required=True),
                Column("time", ("time_24hr", "Time"), required=True),
                Column("message", ("message_text", "Message"), required=True),
                Column("link", ("link_url", "Link")),
                Column("image", ("image_url", "Image URL")),
                Column("profile", ("profile", "Profile")),
                Column("tags", ("tags", "Tags")),
            ),
            dates="either",
            written="%d/%m/%Y %H:%M",
            assumption="template: date, time_24hr, message_text, link_url, image_url, profile, "
            "tags; exports spell them Date, Time, Message, Link, Image URL",
        ),
        Layout(
            "buffer",
            "Buffer",
            (
                Column("message", ("Text",), required=True),
                Column("image", ("Image URL",)),
                Column("tags", ("Tags",)),
                Column("when", ("Posting Time",), required=True),
            ),
            dates="year-first",
            assumption="Text, Image URL, Tags, Posting Time (YYYY-MM-DD HH:MM)",
        ),
        Layout(
            "metricool",
            "Metricool",
            (
                Column("message", ("Text",), required=True),
                Column("date", ("Date",), required=True),
                Column("time", ("Time",), required=True),
                Column("ignored", ("Draft",)),
                Column("network", _NETWORKS, repeats=True),
                Column(
                    "image",
                    tuple(f"Picture Url {n}" for n in range(1, 11)) + ("Picture Url",),
                    repeats=True,
                ),
            ),
            dates="year-first",
            assumption="Text, Date (YYYY-MM-DD), Time (HH:MM), Draft, one TRUE/FALSE column per "
            "network (Facebook, Twitter, LinkedIn, ...), Picture Url 1..10",
        ),
        Layout(
            "socialbee",
            "SocialBee",
            (
                Column("message", ("text",), required=True),
                Column("link", ("link",)),
                Column("image", ("imageUrls",)),
                Column("unsupported", ("gifUrls", "videoUrls"), repeats=True),
                Column("when", ("postAtSpecificTime",), required=True),
            ),
            dates="header",
            written="%Y-%m-%d %H:%M:%S",
            pattern="yyyy-MM-dd HH:mm:ss",
            assumption="text, link, imageUrls, gifUrls, videoUrls, postAtSpecificTime "
            "(yyyy-MM-dd HH:mm:ss): the time header carries its own format",
        ),
        Layout(
            "publer",
            "Publer",
            (
                Column("when", ("Date",), required=True),
                Column("message", ("Message", "Text"), required=True),
                Column("link", ("Link(s)", "Links", "Link")),
                Column("image", ("Media URL(s)", "Media URLs", "Media URL")),
                Column("title", ("Title",)),
                Column("tags", ("Label(s)", "Labels")),
            ),
            dates="either",
            written="%Y/%m/%d %H:%M",
            assumption="Date, Message, Link(s), Media URL(s), Title, Label(s); a header may go on "
            "after ' - ' (Date - Intl. format or prompt); YYYY/MM/DD preferred, other orders "
            "allowed",
        ),
        Layout(
            "postcron",
            "Postcron",
            (
                Column("year", required=True),
                Column("month", required=True),
                Column("day", required=True),
                Column("hour", required=True),
                Column("minute", required=True),
                Column("message", required=True),
                Column("link"),
                Column("image"),
            ),
            dates="cells",
            has_header=False,
            assumption="no header row; year, month, day, hour, minute, message, link, image URL",
        ),
        Layout(
            "oktopost",
            "Oktopost",
            (
                Column("message", ("Message",), required=True),
                Column("link", ("Link", "URL")),
                Column("image", ("Image URL", "Image")),
                Column("tags", ("Tags",)),
            ),
            dates="none",
            exportable=False,  # no time column: a plan written back would lose its times
            assumption="Message, Link, Image URL, Tags; no time column (times from --slots)",
        ),
        Layout(
            "ayrshare",
            "Ayrshare",
            (
                Column("message", ("post",), required=True),
                Column("profile", ("platforms",)),
                Column("image", ("mediaUrls",)),
                Column("when", ("scheduleDate",), required=True),
            ),
            dates="year-first",
            written="%Y-%m-%dT%H:%M:%SZ",
            utc=True,
            assumption="post, platforms, mediaUrls, scheduleDate (YYYY-MM-DDThh:mm:ssZ, UTC)",
        ),
        Layout(
            "postfast",
            "PostFast",
            (
                Column("message", ("content",), required=True),
                Column("when", ("scheduledAt",), required=True),
                Column("profile", ("platform",)),
                Column("image", ("mediaUrl",)),
            ),
            dates="year-first",
            assumption="content, scheduledAt (ISO 8601), platform, mediaUrl",
        ),
    )
}
