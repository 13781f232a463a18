"""What a header means by the words it is made of, and a layout file drafted from them.

Another tool names its columns in its own words: `post_link` is a link, `Caption` and
`Copy` the post's text, `Page` and `Profile` where it goes. A header's words (split at
`_`, spaces and camelCase) are looked up in a small table of meanings, most telling
first (`image_url` is an image before it is a link); spelling distance plays no part.

    meaning("post_link")          # 'link'
    print(draft_layout("later.csv", ["Date", "Caption", "Profile", "post_link"]))

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from channelkit.publish.layouts.declared import ROLE_FIELDS
from channelkit.publish.layouts.files import BLANK, toml_value
from channelkit.publish.post.validation import cell_value

# (role, the words that give a header that role), in the order they are tried.
MEANINGS: tuple[tuple[str, frozenset[str]], ...] = (
    ("unsupported", frozenset({"video", "videos", "gif", "gifs", "reel", "reels"})),
    ("ignored", frozenset({"alt", "comment", "comments", "draft", "shortener", "note", "notes"})),
    ("image", frozenset({"image", "images", "picture", "pictures", "photo", "photos", "media"})),
    ("link", frozenset({"link", "links", "url", "urls", "href", "website"})),
    ("tags", frozenset({"tag", "tags", "label", "labels", "hashtags", "category", "campaign"})),
    (
        "profile",
        frozenset(
            {"page", "pages", "profile", "profiles", "account", "accounts", "network"}
            | {"networks", "platform", "platforms", "social", "channel", "channels"}
        ),
    ),
    ("title", frozenset({"title", "headline", "subject"})),
    (
        "when",
        frozenset({"date", "time", "datetime", "scheduled", "schedule", "publish", "posting"}),
    ),
    (
        "message",
        frozenset({"message", "caption", "copy", "text", "content", "body", "post", "status"}),
    ),
)
# The role in the users' words, for hints.
SAID = {
    "unsupported": "a video or GIF (a channelkit post cannot carry one)",
    "ignored": "something a channelkit post leaves out",
    "image": "an image (channelkit: cover_image_url)",
    "link": "a link (channelkit keeps links in the body)",
    "tags": "tags (channelkit: tags)",
    "profile": "where the post goes, a profile or page (channelkit: channel)",
    "title": "a title (channelkit: title)",
    "when": "the date and time (channelkit: scheduled_at)",
    "message": "the post's text (channelkit: body)",
}
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def meaning(header: str) -> str | None:
    """The role `header` reads as by its words, or None when no word tells."""
    words = {word.casefold() for word in _WORD.findall(header)}
    return next((role for role, known in MEANINGS if words & known), None)


def draft_layout(
    source: str, headers: Sequence[str], rows: Sequence[tuple[int, Sequence[object]]] = ()
) -> str:
    """A layout file for a file with `headers`, each column given the role its header
    means (`ignored` where none tells), with the blanks the user fills in marked FILL IN:
    the tool's name, and the channel of each profile name the `rows` give (or of every
    post, when no column names one)."""
    roles = [(header, meaning(header) or "ignored") for header in headers if header]
    if sum(role == "when" for _, role in roles) > 1:  # the day and the time of day apart
        roles = [
            (header, _date_or_time(header) if role == "when" else role) for header, role in roles
        ]
    timed = any(ROLE_FIELDS[role] == "scheduled_at" for _, role in roles)
    lines = [
        f"# A layout for {source}, drafted from its headers: check each column's role,",
        f'# fill in each "{BLANK}", save it as a .toml file and give it with --layout-file.',
        f'name = "{BLANK}"  # the tool\'s name, as messages say it',
        # "either": dates written A/B/YYYY are read in the order --date-order names.
        f'dates = "{"either" if timed else "none"}"  # year-first, either, cells, header, none',
        'title = "first sentence"  # or "first line": how a post gets its title',
    ]
    profiles = [index for index, header in enumerate(headers) if meaning(header) == "profile"]
    if not profiles:
        lines.append(f'channel = "{BLANK}"  # the channel of every post (no column says it)')
    for header, role in roles:
        required = role in ("message", "when", "date", "time")
        lines += [
            "",
            "[[columns]]",
            f"role = {toml_value(role)}",
            f"headers = {toml_value([header])}",
        ]
        if required:
            lines.append("required = true")
    names = _names(rows, profiles)
    if names:
        lines += ["", "[channels]  # the channel each profile of the file goes to"]
        lines += [f'{toml_value(name)} = "{BLANK}"' for name in names]
    return "\n".join(lines) + "\n"


def _names(rows: Sequence[tuple[int, Sequence[object]]], columns: Sequence[int]) -> list[str]:
    """The profile names the rows give in `columns` (comma-separated in a cell), in order."""
    names: dict[str, None] = {}
    for _, cells in rows:
        for index in columns:
            text = cell_value(cells[index] if index < len(cells) else None)
            names.update(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    return list(names)


def _date_or_time(header: str) -> str:
    words = {word.casefold() for word in _WORD.findall(header)}
    return "time" if "time" in words and "date" not in words else "date"
