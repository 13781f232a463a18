"""Other tools' bulk-scheduling layouts, declared as data: one `Layout` per tool.

A file that is not a channelkit posts file may be one of these; `layout_read` recognises
it by the declarations below and translates its rows into the native columns (channel,
title, body, scheduled_at, cover_image_url, tags) in front of the one validation path;
`layout_write` writes a plan back in the same layout. Adding a tool is adding a
declaration here, not code.

Each declaration quotes its `source` (the vendor's page: title, address and what it says
about columns, order, header, dates and zone) and names in `assumption` what the page did
not settle; docs/publishing.md ("Moving from another tool") lists both.

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
    utc: bool = False  # times are UTC: written with a Z, and read so without an offset
    offset_required: bool = False  # a time without a UTC offset is refused (not guessed)
    pattern: str | None = None  # the format the time header names ("header"; exports)
    source: str = ""  # the vendor's documentation: page title, address, what it says
    assumption: str = ""  # what the source does not settle

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
            source="Hootsuite's own help page was not found in the stored pages. Two users' "
            "write-ups agree: 'The Business of Writing: Using Hootsuite Pro's bulk message "
            "scheduler' (kim-iverson-headlee.blogspot.com/2016/08/the-business-of-writing-"
            "using-hootsuite.html): 'three components each: the date and time stamp, the "
            "message, and the link'; 'POST #8: Hootsuite bulk messaging explained' "
            "(jycalcano.blogspot.com/2015/07/post-8-hootsuite-bulk-messaging.html): the "
            "upload form asks 'which format your .csv file is using for the date and time "
            "(mm/dd/yyyy hh:mm)'",
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
            source="'How do I use bulk scheduling?' (support.sproutsocial.com/hc/en-us/"
            "articles/115005864203): required headers date ('dd/mm/yyyy or mm/dd/yyyy "
            "format, depending on the import preferences you specify'), time_24hr ('24-hour "
            "format'), message_text; 'All column headers are case sensitive'; the page "
            "offers to 'rename columns for importing'",
            assumption="the optional columns link_url, image_url, profile, tags and the "
            "export spellings Date, Time, Message, Link, Image URL were not visible in the "
            "stored page",
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
            source="not found: no Buffer page on bulk CSV files in the stored pages",
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
            source="not found: no Metricool page on its CSV template in the stored pages "
            "(searched in English and Spanish); the template's further columns (alt text, "
            "document title, shortener, first comment) are unverified and not declared",
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
            source="'How do I Import Content via CSV?' (help.socialbee.com/article/80-how-do-"
            "i-import-content-via-csv): the columns text, link (a link preview; 'filling in "
            "this row will override all other media rows'), imageUrls, gifUrls, videoUrls, "
            "postAtSpecificTime, in that order",
            assumption="the format of postAtSpecificTime was cut off in the stored page; the "
            "time header is taken to carry its format, `(yyyy-MM-dd HH:mm:ss)`, as the "
            "white-label family's does",
        ),
        Layout(
            "social-planner",
            "Social Planner",
            (
                Column("when", ("postAtSpecificTime",), required=True),
                Column("message", ("content",), required=True),
                Column("link", ("link",)),
                Column("image", ("imageUrls",)),
                Column("unsupported", ("gifUrl", "videoUrls", "videoUrl"), repeats=True),
                *(
                    Column("ignored", (header,))
                    for header in (
                        "postType",
                        "watermark",
                        "category",
                        "followUpComment",
                        "gbpPostType",
                        "gbpCallToAction",
                        "youtubeTitle",
                        "youtubePrivacy",
                        "youtubeVideoType",
                        "pinterestBoardId",
                        "linkedInDocumentUrl",
                    )
                ),
            ),
            dates="year-first",
            written="%Y-%m-%d %H:%M:%S",
            pattern="yyyy-MM-dd HH:mm:ss",
            source="the white-label 'Social Planner' tools that copy SocialBee's format: "
            "'Bulk Scheduling Social Planner Posts Using CSV or XLSX' (help.kyriossystems."
            "com/en/articles/13662132): columns 'postAtSpecificTime (yyyy-MM-dd HH:mm: ss)' "
            "('24-hour time format', 'Include seconds', e.g. 2022-12-15 08:00:00), content, "
            "'link (OGmetaURL)' ('Only one link'), imageUrls ('separated by a comma and a "
            "space', up to 10), gifUrl ('Only one GIF'), videoUrls; CSV or XLSX. 'Bulk "
            "scheduling via CSV' (help.hoopai.com/marketing/social-csv-import): Basic CSV "
            "postAtSpecificTime, content, link, imageUrls, videoUrl; Advanced CSV adds "
            "postType, watermark, category, followUpComment, gbpPostType, gbpCallToAction, "
            "youtubeTitle, youtubePrivacy, youtubeVideoType, pinterestBoardId, "
            "linkedInDocumentUrl (read and left out: a channelkit post has none of them); "
            "accepted dates YYYY-MM-DD HH:mm[:ss], YYYY/MM/DD HH:mm[:ss], M/D/YYYY H:mm[:ss]",
            assumption="M/D/YYYY dates (month first, on hoopai's page) are not read yet: "
            "they are refused as not year first",
        ),
        Layout(
            "publer",
            "Publer",
            (
                Column("when", ("Date",), required=True),
                Column("message", ("Text", "Message"), required=True),
                Column("link", ("Link(s)", "Links", "Link")),
                Column("image", ("Media URL(s)", "Media URLs", "Media URL")),
                Column("title", ("Title",)),
                Column("tags", ("Label(s)", "Labels")),
            ),
            dates="either",
            written="%Y-%m-%d %H:%M",
            source="'The Ultimate CSV Bulk Scheduler for Social Media' (publer.com/blog/"
            "ultimate-csv-bulk-scheduler-social-media/): 'The new CSV template has twelve "
            "columns' ('it's important not to remove them'): 1 Date ('the international "
            'format (YYYY-MM-DD HH-MM), such as "2029-11-19 20:35", or ... a simple prompt '
            "in English, such as \"next Friday at 2 PM\"'), 2 Text, 3 Link(s) ('multiple "
            "links ... separated by a comma'), 4 Media URL(s). The older six-column "
            "template, 'What CSV template should I use?' (help.publer.io/en/article/what-"
            "csv-template-should-i-use-18qhxcq/): Date ('The preferred date format is "
            "YYYY/MM/DD ... HH:MM (24 hour ...), but other formats will work too'), "
            "Message, ..., Labels (#6)",
            assumption="columns 5 to 12 of the new template were cut off in the stored "
            "pages: Title and Label(s) are declared, the others are not (a file with them "
            "is not recognised yet); an English prompt is refused, asking for the date",
        ),
        Layout(
            "postcron",
            "Postcron",
            (
                Column("message", required=True),
                Column("year", required=True),
                Column("month", required=True),
                Column("day", required=True),
                Column("hour", required=True),
                Column("minute", required=True),
                Column("image"),
                Column("link"),
            ),
            dates="cells",
            has_header=False,
            source="'How to create a spreadsheet for the Bulk Uploader' (intercom.help/"
            "postcron/en/articles/6904404-how-to-create-a-spreadsheet-for-the-bulk-"
            "uploader): 'it necessarily needs to consist of eight columns (from A to H)'; "
            "'each spreadsheet row will become a post' (no header row); A the text, B year, "
            "C month, D day, E hour ('you should use the 24-hour system'), F minute, G the "
            "image URL ('For multi-image posts ... each URL separated by a comma'), H the "
            "link; the same in Spanish, 'Cómo crear un archivo .csv para el Bulk Uploader' "
            "(intercom.help/postcron/en/articles/6980787)",
        ),
        Layout(
            "oktopost",
            "Oktopost",
            (
                Column("profile", ("Network",), required=True),
                Column("message", ("Message",), required=True),
                Column("link", ("LinkUrl",)),
                Column("ignored", ("LinkTitle",)),
                Column("image", ("ImageUrl",)),
                Column("ignored", ("Description",)),
                Column("ignored", ("Picture",)),
            ),
            dates="none",
            exportable=False,  # no time column: a plan written back would lose its times
            source="the community page 'Importing Message Assets' was not found in the "
            "stored pages; the field names are those of Oktopost's message API, 'Messages' "
            "(developers.oktopost.com/docs/api/publishing/messages): Network, Message, "
            "ImageUrl, Description, LinkTitle, LinkUrl, Picture; no time: a message is "
            "'a reusable content template' scheduled later",
            assumption="Network mandatory; LinkTitle, Description (the link preview's) and "
            "Picture are read and left out; times from --slots",
        ),
        Layout(
            "ayrshare",
            "Ayrshare",
            (
                Column("message", ("post",), required=True),
                Column("profile", ("platforms",), required=True),
                Column("image", ("mediaUrls",), required=True),
                Column("when", ("scheduleDate",), required=True),
            ),
            dates="year-first",
            written="%Y-%m-%dT%H:%M:%SZ",
            utc=True,
            source="'Bulk Post' (ayrshare.com/docs/apis/post/bulk-post): 'The CSV file "
            "contains the following fields (template below) and are required': post, "
            "platforms ('Comma separated list of platforms, e.g. \"twitter, facebook, "
            "instagram\"'), mediaUrls, scheduleDate ('Datetime to schedule the post in UTC "
            "format ... YYYY-MM-DDThh:mm:ssZ')",
            assumption="a scheduleDate written without the Z is UTC all the same",
        ),
        Layout(
            "postfast",
            "PostFast",
            (
                Column("when", ("scheduled_at",), required=True),
                Column("profile", ("account_id",), required=True),
                Column("message", ("content",), required=True),
                Column("image", ("media_urls",)),
                *(
                    Column("ignored", (header,))
                    for header in (
                        "first_comment",
                        "fb_content_type",
                        "ig_publish_type",
                        "yt_is_short",
                        "pinterest_board_id",
                    )
                ),
            ),
            dates="year-first",
            written="%Y-%m-%dT%H:%M:%SZ",
            utc=True,
            offset_required=True,
            source="'CSV format reference for bulk import' (help.postfa.st/publishing-"
            "scheduling/csv-format-for-bulk-import): 'The first row must be the column "
            "headers'; required scheduled_at ('ISO-8601 datetime with a timezone offset', "
            "'The safest form is UTC with a Z suffix: 2026-05-01T10:00:00Z'), account_id "
            "('UUID of a connected social account'), content; optional media_urls "
            "('Comma-separated list of media URLs'), first_comment; platform-specific "
            "fb_content_type, ig_publish_type, yt_is_short, pinterest_board_id (read and "
            "left out)",
            assumption="account_id is mapped to a channel with --map ACCOUNT_ID=CHANNEL, and "
            "written back from it",
        ),
    )
}
