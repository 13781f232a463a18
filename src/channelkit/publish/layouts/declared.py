"""What a layout of another tool's bulk file is: its `Column`s and the `Layout` they make.

The layouts themselves are data, one TOML file each: the built-in ones ship in
`publish/layouts/builtin/`, a team adds its own (`--layout-file`, or a folder named by
CHANNELKIT_LAYOUTS), and `publish/layouts/files.py` reads them all the same way.
`layouts/read.py` recognises a file by them and translates its rows into the native
columns (channel, title, body, scheduled_at, cover_image_url, tags) in front of the one
validation path; `layouts/write.py` writes a plan back in the same layout.

Each built-in file quotes its `source` (the vendor's page: title, address and what it says
about columns, order, header, dates and zone) and names in `assumption` what the page did
not settle; docs/publishing.md ("Moving from another tool") lists both.

    layout = Layout("later", "Later", (Column("message", ("Caption",), required=True),),
                    dates="none")
    layout.roles()   # {'message'}

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
# How a row without a title column gets its title: the message's first sentence, or its
# first line (for tools whose messages start with a headline on a line of its own).
TITLE_RULES = ("first sentence", "first line")


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
    utc: bool = False  # times are UTC: written with a Z, and read so without an offset
    offset_required: bool = False  # a time without a UTC offset is refused (not guessed)
    pattern: str | None = None  # the format the time header names ("header"; exports)
    source: str = ""  # the vendor's documentation: page title, address, what it says
    assumption: str = ""  # what the source does not settle
    channel: str | None = None  # the channel of every row, when the file names none
    channels: tuple[tuple[str, str], ...] = ()  # a profile or network name -> its channel
    title: str = "first sentence"  # how a row without a title gets one (TITLE_RULES)

    def roles(self) -> set[str]:
        return {column.role for column in self.columns}

    @property
    def a_name(self) -> str:
        """`a Hootsuite`, `an Ayrshare`: the name with the article it reads with (by its
        first letter: the declared names say their vowels as vowels)."""
        return f"{'an' if self.name[:1].casefold() in 'aeiou' else 'a'} {self.name}"
