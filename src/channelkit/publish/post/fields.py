"""The post fields publishing offers, derived from the contract (`_spec.POST_FIELDS`).

Every field a create request takes becomes a spreadsheet column, a `ck.schedule` keyword,
a composer control and a calendar column, checked by `validate_post` with the contract's
own rules (required or optional, `TEXT_RULES`, choices, URLs). A new field in `_spec.py`
reaches all of them without an edit here: its words (label, column note) are derived from
the contract; `_WORDS` only keeps the wording people already know for the existing ones.

    from channelkit.publish.post.fields import PUBLISH_FIELDS, arranged
    [f.name for f in PUBLISH_FIELDS]   # ['channel', 'title', 'body', 'priority', ...]
    arranged(("channel", "title"), tail=("timezone",))   # a surface's order, complete

Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

from channelkit._spec import (
    POST_FIELDS,
    TAGS_MAX_COUNT,
    TEXT_RULES,
    URL_MAX_CHARS,
    Field,
    TextRule,
    create_fields,
)

__all__ = ["PUBLISH_FIELDS", "PostField", "arranged", "by_name"]

# Kinds of writable post fields that publishing reads, checks and shows by kind; the
# channel (an id) and the time (an instant) have their own columns and controls.
_KINDS = ("text", "enum", "tags", "url")
_APART = {"channel_id": "id", "scheduled_at": "instant"}


@dataclass(frozen=True)
class PostField:
    """One writable post field as publishing shows it.

        field = by_name("title")
        field.api, field.required, field.label      # ('title', True, 'Title')

    `name` is the key `validate_post` reads, the spreadsheet column, the composer control
    and the calendar column (`channel` for the contract's `channel_id`); `api` is the
    contract's name, which requests and posts use.
    """

    name: str
    spec: Field
    label: str
    description: str
    aliases: tuple[str, ...] = ()
    placeholder: str = ""
    example: str = ""  # what a URL should look like, in messages
    # Copied from `spec` once: validation reads them for every cell of a sheet.
    api: str = dataclasses.field(init=False)
    kind: str = dataclasses.field(init=False)
    required: bool = dataclasses.field(init=False)
    multiline: bool = dataclasses.field(init=False)

    def __post_init__(self) -> None:
        rule = self.rule
        object.__setattr__(self, "api", self.spec.name)
        object.__setattr__(self, "kind", self.spec.kind)
        object.__setattr__(self, "required", self.spec.create == "required")
        object.__setattr__(self, "multiline", rule is not None and rule.multiline)

    @property
    def rule(self) -> TextRule | None:
        """The `TEXT_RULES` entry of a text field (of each tag, for tags)."""
        return TEXT_RULES[self.spec.text] if self.spec.text else None


@dataclass(frozen=True)
class _Words:
    name: str | None = None
    label: str | None = None
    description: str | None = None
    aliases: tuple[str, ...] = ()
    placeholder: str = ""
    example: str = ""


# The wording people already know for the existing fields (column notes of the template,
# composer labels). A field missing here gets words derived from the contract.
_WORDS: dict[str, _Words] = {
    "channel_id": _Words(
        "channel",
        "Channel",
        "Channel id, slug or name, in any case (required).",
        ("channel_id", "channel_slug", "channel_name"),
    ),
    "title": _Words(
        description="Headline, 1 to 200 characters (required).",
        aliases=("headline",),
        placeholder="Headline",
    ),
    "body": _Words(
        description="Markdown, 1 to 50,000 characters (required).",
        aliases=("text", "content"),
        placeholder="Markdown: **bold**, lists, [links](https://example.com)",
    ),
    "priority": _Words(
        description="normal (default), high or urgent. Urgent bypasses readers' notification "
        "preferences and is only sent when confirmed (--confirm-urgent).",
    ),
    "tags": _Words(
        description="Comma-separated, at most 20 tags of 1 to 50 characters.", aliases=("tag",)
    ),
    "scheduled_at": _Words(
        label="Publish at",
        description="When to publish: YYYY-MM-DD HH:MM in the row's time zone, or with an "
        "offset (2026-12-01 09:00+01:00). Required, unless the date and time columns are "
        "used. At least 5 minutes ahead.",
        aliases=("scheduled", "publish_at", "datetime", "date_time"),
    ),
    "cover_image_url": _Words(
        label="Cover URL",
        description="Optional absolute http(s) URL of a cover image.",
        aliases=("cover_image", "cover_url", "cover"),
        placeholder="https://… (optional)",
        example="https://example.com/cover.png",
    ),
}


def _derived_description(spec: Field) -> str:
    """A column note from the contract: what the field is and its limits."""
    need = "Required" if spec.create == "required" else "Optional"
    if spec.kind == "text" and spec.text:
        rule = TEXT_RULES[spec.text]
        limits = f"{need}, {rule.min_chars:,} to {rule.max_chars:,} characters."
    elif spec.kind == "enum":
        default = f" (default {spec.default})" if spec.default else ""
        limits = f"{need}: {', '.join(spec.choices)}{default}."
    elif spec.kind == "tags" and spec.text:
        limits = (
            f"{need}, comma-separated, at most {TAGS_MAX_COUNT} items of "
            f"1 to {TEXT_RULES[spec.text].max_chars} characters."
        )
    elif spec.kind == "url":
        limits = f"{need} absolute http(s) URL, at most {URL_MAX_CHARS:,} characters."
    else:
        limits = f"{need}."
    return f"{spec.description.rstrip('.')}. {limits}" if spec.description else limits


def _publish_field(spec: Field) -> PostField:
    if spec.kind not in _KINDS and _APART.get(spec.name) != spec.kind:
        raise NotImplementedError(
            f"post field {spec.name!r} has kind {spec.kind!r}, which publishing cannot read "
            f"from a spreadsheet yet (it knows {', '.join(_KINDS)})"
        )
    words = _WORDS.get(spec.name, _Words())
    name = words.name or spec.name
    return PostField(
        name=name,
        spec=spec,
        label=words.label or name.replace("_", " ").capitalize(),
        description=words.description or _derived_description(spec),
        aliases=words.aliases,
        placeholder=words.placeholder or ("(optional)" if spec.create == "optional" else ""),
        example=words.example or "https://example.com/page",
    )


# Every field a create request takes, in the contract's order.
PUBLISH_FIELDS: tuple[PostField, ...] = tuple(
    _publish_field(spec) for spec in create_fields(POST_FIELDS)
)
_BY_NAME = {field.name: field for field in PUBLISH_FIELDS}


def by_name(name: str) -> PostField:
    """The field publishing calls `name` (KeyError for another name)."""
    return _BY_NAME[name]


def arranged(head: Sequence[str], tail: Sequence[str] = ()) -> tuple[str, ...]:
    """A surface's names: `head` in its own order, then every publishing field it does not
    name (in the contract's order), then `tail`. A new contract field lands in every
    surface this way, and no surface can forget one."""
    named = {*head, *tail}
    rest = tuple(field.name for field in PUBLISH_FIELDS if field.name not in named)
    return (*head, *rest, *tail)
