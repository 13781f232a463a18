"""The interface contract in one table: what service-spec.md and decisions.md promise.

Dependency-free (stdlib only) and pure, so every layer can import it: the service derives
its routes, request models and validation from it, the client its operation paths and
scopes, the sync its resources and columns, and `channelkit.service.openapi` generates the
published OpenAPI document from it. Defaults that are not part of the contract live in
`channelkit._constants`.

Adding a field to posts or channels: add a `Field` to `POST_FIELDS` / `CHANNEL_FIELDS`
(and its `TEXT_RULES` entry for text) and its keyword to the client's create/update; the
service's request models, storage column, rendering, the OpenAPI document, the client's
request bodies and the warehouse's columns follow (docs/architecture.md). Adding an
endpoint: an `Operation` here and its handler in `channelkit.service.app.HANDLERS`.

    from channelkit import _spec
    _spec.PRIORITIES                       # ('normal', 'high', 'urgent')
    _spec.operation("createPost").scope    # 'posts:write'
    _spec.text_problem("title", "\\u200b")  # 'must not be blank (invisible characters ...)'
    _spec.parse_instant("2026-11-21T09:30:00.5+01:00")  # 1795249800 (whole seconds)
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Literal, get_args

# --- Addresses --------------------------------------------------------------------------
API_VERSION_SEGMENT = "/v1"

# --- Enumerations: each a Literal and its value tuple, from one definition -------------
Priority = Literal["normal", "high", "urgent"]
PRIORITIES: tuple[Priority, ...] = get_args(Priority)
PostStatus = Literal["draft", "scheduled", "published", "archived"]
POST_STATUSES: tuple[PostStatus, ...] = get_args(PostStatus)
Visibility = Literal["organization", "team", "private"]
VISIBILITIES: tuple[Visibility, ...] = get_args(Visibility)
Scope = Literal["posts:read", "posts:write", "channels:read", "channels:write", "analytics:read"]
SCOPES: tuple[Scope, ...] = get_args(Scope)
Plan = Literal["starter", "business", "enterprise"]
PLANS: tuple[Plan, ...] = get_args(Plan)
Method = Literal["GET", "POST", "PATCH", "DELETE"]

# Post status -> the statuses a PATCH may move it to (decisions.md "Posts").
POST_TRANSITIONS: dict[PostStatus, frozenset[PostStatus]] = {
    "draft": frozenset({"scheduled", "published"}),
    "scheduled": frozenset({"draft", "published", "scheduled"}),
    "published": frozenset({"archived"}),
    "archived": frozenset({"published"}),
}

# --- Rate limits ------------------------------------------------------------------------
PLAN_LIMITS: dict[Plan, int] = {"starter": 60, "business": 300, "enterprise": 1000}
RATE_WINDOW_SECONDS = 60.0

# --- Pagination -------------------------------------------------------------------------
PAGE_LIMIT_DEFAULT = 20
PAGE_LIMIT_MAX = 100
CURSOR_MAX_CHARS = 512

# --- Limits of values -------------------------------------------------------------------
TITLE_MAX_CHARS = 200
BODY_MAX_CHARS = 50_000
TAGS_MAX_COUNT = 20
TAG_MAX_CHARS = 50
CHANNEL_NAME_MAX_CHARS = 100
DESCRIPTION_MAX_CHARS = 1_000
URL_MAX_CHARS = 2_048
ID_MAX_CHARS = 64
FILTER_MAX_CHARS = 200  # a query-string value (cursor excepted)
SLUG_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"

# --- Headers ----------------------------------------------------------------------------
IDEMPOTENCY_HEADER = "Idempotency-Key"
IDEMPOTENCY_KEY_MAX_CHARS = 255
IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60
# The local service marks a create answered from an earlier request with the same key.
IDEMPOTENT_REPLAYED_HEADER = "Idempotent-Replayed"
ETAG_HEADER = "ETag"
IF_MATCH_HEADER = "If-Match"
RATE_LIMIT_HEADERS = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")

# --- Text rules (decisions.md "Hardening") ----------------------------------------------


@dataclass(frozen=True)
class TextRule:
    """What a text value may hold: length in characters, lines, blankness."""

    min_chars: int
    max_chars: int
    multiline: bool = False  # newline and tab allowed
    may_be_empty: bool = False


TEXT_RULES: dict[str, TextRule] = {
    "title": TextRule(1, TITLE_MAX_CHARS),
    "body": TextRule(1, BODY_MAX_CHARS, multiline=True),
    "tag": TextRule(1, TAG_MAX_CHARS),
    "name": TextRule(1, CHANNEL_NAME_MAX_CHARS),
    "description": TextRule(0, DESCRIPTION_MAX_CHARS, multiline=True, may_be_empty=True),
}

# What `_is_control` accepts, as character classes (with and without newline and tab).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_LINES = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _is_control(char: str) -> bool:
    """C0 (NUL included), DEL and C1 control characters."""
    code = ord(char)
    return code < 0x20 or 0x7F <= code <= 0x9F


def _is_invisible(char: str) -> bool:
    """Whitespace, and format characters (zero-width spaces and joiners, bidi controls)."""
    return char.isspace() or unicodedata.category(char) == "Cf"


def text_problem(rule_name: str, value: str) -> str | None:
    """Why `value` is not acceptable as a `rule_name` (a `TEXT_RULES` key), or None.

    The service answers the reason as a 400 naming the field; the toolkit's validators
    call the same function, so a value passing locally is never refused for content.
    """
    rule = TEXT_RULES[rule_name]
    if len(value) < rule.min_chars or len(value) > rule.max_chars:
        return f"must be {rule.min_chars}..{rule.max_chars} characters, got {len(value)}"
    # One regex scan, not a Python loop per character: validators run this per cell.
    found = (_CONTROL_BUT_LINES if rule.multiline else _CONTROL).search(value)
    if found is not None:
        allowed = " (newline and tab are allowed)" if rule.multiline else ""
        return (
            f"must not contain control characters{allowed}; found U+{ord(found.group()):04X}"
            f" at character {found.start() + 1}"
        )
    if not rule.may_be_empty or value:
        if all(_is_invisible(char) for char in value):
            return "must not be blank (invisible characters do not count)"
    return None


def url_problem(value: str) -> str | None:
    """Why `value` is not an acceptable `cover_image_url`, or None."""
    from urllib.parse import urlsplit  # stdlib; kept local as only URLs need it

    if len(value) > URL_MAX_CHARS:
        return f"must be at most {URL_MAX_CHARS} characters, got {len(value)}"
    if any(char.isspace() or _is_control(char) for char in value):
        return "must be an absolute http(s) URL without spaces or control characters"
    try:
        parts = urlsplit(value)
        hostname = parts.hostname
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except ValueError:
        return "must be an absolute http(s) URL"
    if parts.scheme not in ("http", "https") or not hostname:
        return "must be an absolute http(s) URL"
    return None


# --- Instants (decisions.md "Addresses and formats" and "Hardening") --------------------
INSTANT_MIN = datetime(1, 1, 1, tzinfo=UTC)
INSTANT_MAX = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
OFFSET_MAX = timedelta(hours=18)
_EPOCH = datetime(1970, 1, 1)
INSTANT_MIN_SECONDS = int((INSTANT_MIN.replace(tzinfo=None) - _EPOCH).total_seconds())
INSTANT_MAX_SECONDS = int((INSTANT_MAX.replace(tzinfo=None) - _EPOCH).total_seconds())

# What requests may send: RFC 3339 with an offset (at most 18:00), or a bare date. The
# OpenAPI document publishes this pattern, so the schema refuses what the service refuses
# (years 0000, months 00 or 13, hours 24, offsets like +99:99) rather than the service alone.
_DATE = r"[0-9]{3}[1-9]|[0-9]{2}[1-9]0|[0-9][1-9]00|[1-9]000"
_DAY = r"-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
_TIME = r"[Tt]([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?"
_OFFSET = r"([Zz]|[+-](0[0-9]|1[0-7]):[0-5][0-9]|[+-]18:00)"
REQUEST_INSTANT_PATTERN = f"^({_DATE}){_DAY}({_TIME}{_OFFSET})?$"
REQUEST_DATE_PATTERN = f"^({_DATE}){_DAY}$"
REQUEST_DATE_TIME_PATTERN = f"^({_DATE}){_DAY}{_TIME}{_OFFSET}$"
_REQUEST_INSTANT = re.compile(REQUEST_INSTANT_PATTERN)
_NAIVE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?")


def to_instant(moment: datetime) -> int:
    """`moment` as whole Unix seconds (fractions truncated), or ValueError saying why not.

    Refuses a naive time, an offset beyond +-18:00, and an instant outside
    0001-01-01T00:00:00Z..9999-12-31T23:59:59Z once converted to UTC (no overflow).
    """
    offset = moment.utcoffset()
    if offset is None:
        raise ValueError("has no UTC offset; add one (e.g. 'Z' or '+02:00')")
    if abs(offset) > OFFSET_MAX:
        raise ValueError("has a UTC offset beyond +-18:00")
    local = int((moment.replace(tzinfo=None, microsecond=0) - _EPOCH).total_seconds())
    seconds = local - int(offset.total_seconds())
    if not INSTANT_MIN_SECONDS <= seconds <= INSTANT_MAX_SECONDS:
        raise ValueError("is outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59Z in UTC")
    return seconds


def parse_instant(text: str) -> int:
    """A request timestamp (RFC 3339 with offset, or a date = 00:00 UTC) as whole Unix
    seconds, or ValueError with a message that quotes `text` and says what to send."""
    if not _REQUEST_INSTANT.fullmatch(text):
        if _NAIVE.fullmatch(text):
            raise ValueError(
                f"{text!r} has no UTC offset; add one (e.g. 'Z' or '+02:00') or send a bare date"
            )
        raise ValueError(
            f"{text!r} is not an RFC 3339 timestamp with an offset of at most 18:00"
            " (2026-11-21T09:30:00Z) or a date (2026-11-21)"
        )
    try:
        if len(text) == 10:
            return to_instant(datetime.combine(date.fromisoformat(text), datetime.min.time(), UTC))
        # fromisoformat takes at most microseconds; the rest is truncated anyway
        moment = datetime.fromisoformat(re.sub(r"(\.[0-9]{6})[0-9]+", r"\1", text.upper()))
        return to_instant(moment)
    except ValueError as exc:
        reason = str(exc) if str(exc).startswith(("has ", "is outside")) else "is not a valid date"
        raise ValueError(f"{text!r} {reason}") from None


# --- Resources and their fields ---------------------------------------------------------
FieldKind = Literal[
    "id", "text", "slug", "enum", "tags", "instant", "url", "count", "flag", "author"
]  # fmt: skip
# The kind of item an operation reads or changes (`Operation.item`); not `_resources.Resource`
ItemKind = Literal["posts", "channels"]


@dataclass(frozen=True)
class Field:
    """One field of a resource as the interface shows it, and how requests may set it.

    `create` is "required", "optional" or None (not accepted on create); `update` says
    whether PATCH accepts it, `clearable` whether PATCH accepts null for it. `text` names
    the `TEXT_RULES` entry of a text field (of each item, for tags).
    """

    name: str
    kind: FieldKind
    description: str = ""
    nullable: bool = False
    create: Literal["required", "optional"] | None = None
    update: bool = False
    clearable: bool = False
    choices: tuple[str, ...] = ()
    default: str | bool | None = None
    text: str | None = None


POST_FIELDS: tuple[Field, ...] = (
    Field("id", "id", "Unique post identifier (`post_...`)."),
    Field("channel_id", "id", "Channel the post belongs to.", create="required", update=True),
    Field("title", "text", "Headline.", create="required", update=True, text="title"),
    Field("body", "text", "Markdown content.", create="required", update=True, text="body"),
    Field(
        "priority",
        "enum",
        "`urgent` bypasses notification preferences.",
        create="optional",
        update=True,
        choices=PRIORITIES,
        default="normal",
    ),
    Field("tags", "tags", "Duplicates are dropped.", create="optional", update=True, text="tag"),
    Field("author", "author", "The user of the key that created the post."),
    Field("status", "enum", "Set by PATCH (see transitions).", update=True, choices=POST_STATUSES),
    Field("published_at", "instant", "When it was published.", nullable=True),
    Field(
        "scheduled_at",
        "instant",
        "Scheduled publication time; omitted on create: now.",
        nullable=True,
        create="optional",
        update=True,
    ),
    Field(
        "cover_image_url",
        "url",
        "An absolute http(s) URL.",
        nullable=True,
        create="optional",
        update=True,
        clearable=True,
    ),
    Field("views", "count", "Number of unique readers."),
    Field("created_at", "instant"),
    Field("updated_at", "instant"),
)

CHANNEL_FIELDS: tuple[Field, ...] = (
    Field("id", "id", "Unique channel identifier (`chan_...`)."),
    Field("name", "text", "Display name.", create="required", update=True, text="name"),
    Field(
        "slug",
        "slug",
        "URL-friendly identifier; derived from the name when omitted.",
        create="optional",
        update=True,
    ),
    Field(
        "description",
        "text",
        "Short summary.",
        create="optional",
        update=True,
        text="description",
        default="",
    ),
    Field(
        "visibility",
        "enum",
        "Who can see the channel.",
        create="optional",
        update=True,
        choices=VISIBILITIES,
        default="organization",
    ),
    Field("subscriber_count", "count", "Number of subscribers."),
    Field("post_count", "count", "Total posts in the channel."),
    Field(
        "is_default",
        "flag",
        "Whether new members are auto-subscribed.",
        create="optional",
        update=True,
        default=False,
    ),
    Field("is_archived", "flag", "Whether the channel is archived.", update=True),
    Field("created_at", "instant"),
    Field("updated_at", "instant"),
)

AUTHOR_FIELDS = ("id", "name", "email")

POST_DAY_COUNTS = ("views", "unique_viewers", "reactions", "comments", "shares", "clicks")
CHANNEL_DAY_COUNTS = (
    "subscribers",
    "subscribers_gained",
    "subscribers_lost",
    "posts_published",
    "views",
)
# analytics rows: keys first, then the counts
POST_DAY_FIELDS = ("post_id", "channel_id", "date", *POST_DAY_COUNTS)
CHANNEL_DAY_FIELDS = ("channel_id", "date", *CHANNEL_DAY_COUNTS)


def field_names(fields: tuple[Field, ...]) -> tuple[str, ...]:
    return tuple(f.name for f in fields)


def create_fields(fields: tuple[Field, ...]) -> tuple[Field, ...]:
    return tuple(f for f in fields if f.create is not None)


def update_fields(fields: tuple[Field, ...]) -> tuple[Field, ...]:
    return tuple(f for f in fields if f.update)


# --- Query parameters -------------------------------------------------------------------
QueryKind = Literal["text", "instant", "priority", "visibility", "limit", "cursor"]
QUERY_PARAMETERS: dict[str, tuple[QueryKind, str]] = {
    "channel_id": ("text", "Only this channel."),
    "author_id": ("text", "Only posts by this user."),
    "post_id": ("text", "Only this post."),
    "tag": ("text", "Only posts carrying this tag."),
    "priority": ("priority", "Only this priority."),
    "visibility": ("visibility", "Only this visibility."),
    "published_after": ("instant", "Only posts published strictly after this."),
    "published_before": ("instant", "Only posts published strictly before this."),
    "start": ("instant", "First day listed (inclusive, UTC)."),
    "end": ("instant", "Day after the last one listed (exclusive)."),
    "limit": ("limit", f"Items per page (default {PAGE_LIMIT_DEFAULT}, 1..{PAGE_LIMIT_MAX})."),
    "cursor": ("cursor", "The `next_cursor` of the previous page, unchanged, same filters."),
}
POST_FILTERS = (
    "channel_id",
    "author_id",
    "tag",
    "priority",
    "published_after",
    "published_before",
)
CHANNEL_FILTERS = ("visibility",)
POST_ANALYTICS_FILTERS = ("post_id", "channel_id", "start", "end")
CHANNEL_ANALYTICS_FILTERS = ("channel_id", "start", "end")
PAGING = ("limit", "cursor")

# --- Paths and operations ---------------------------------------------------------------
POSTS = "/posts"
CHANNELS = "/channels"
ANALYTICS_POSTS = "/analytics/posts"
ANALYTICS_CHANNELS = "/analytics/channels"
Schema = Literal[
    "Post", "Channel", "PostPage", "ChannelPage", "PostDayPage", "ChannelDayPage", "PostCreate",
    "PostUpdate", "ChannelCreate", "ChannelUpdate",
]  # fmt: skip


@dataclass(frozen=True)
class Operation:
    """One endpoint: `method path`, the scope it needs, what it takes and answers.

    `item` is the resource of a single-item operation (`/posts/{id}`), which carries an
    ETag and honours If-Match; `conflicts` says whether 409 is a documented answer.
    """

    id: str
    method: Method
    path: str
    scope: Scope
    summary: str
    status: int = 200
    query: tuple[str, ...] = ()
    request: Schema | None = None
    response: Schema | None = None
    item: ItemKind | None = None
    conflicts: bool = False


def item_path(collection: str) -> str:
    return f"{collection}/{{id}}"


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "listPosts", "GET", POSTS, "posts:read", "List posts, newest first.",
        query=(*POST_FILTERS, *PAGING), response="PostPage",
    ),
    Operation(
        "createPost", "POST", POSTS, "posts:write", "Create a post (published now, or scheduled).",
        status=201, request="PostCreate", response="Post", item="posts", conflicts=True,
    ),
    Operation(
        "getPost", "GET", item_path(POSTS), "posts:read", "Retrieve a post.",
        response="Post", item="posts",
    ),
    Operation(
        "updatePost", "PATCH", item_path(POSTS), "posts:write",
        "Change fields and/or status (see the transitions in docs/api.md).",
        request="PostUpdate", response="Post", item="posts", conflicts=True,
    ),
    Operation(
        "deletePost", "DELETE", item_path(POSTS), "posts:write", "Delete a post.",
        status=204, item="posts", conflicts=True,
    ),
    Operation(
        "listChannels", "GET", CHANNELS, "channels:read",
        "List the channels the key can see, in creation order.",
        query=(*CHANNEL_FILTERS, *PAGING), response="ChannelPage",
    ),
    Operation(
        "createChannel", "POST", CHANNELS, "channels:write", "Create a channel.",
        status=201, request="ChannelCreate", response="Channel", item="channels", conflicts=True,
    ),
    Operation(
        "getChannel", "GET", item_path(CHANNELS), "channels:read", "Retrieve a channel.",
        response="Channel", item="channels",
    ),
    Operation(
        "updateChannel", "PATCH", item_path(CHANNELS), "channels:write",
        "Change a channel (its visibility, default flag or archiving: creator or member only).",
        request="ChannelUpdate", response="Channel", item="channels", conflicts=True,
    ),
    Operation(
        "deleteChannel", "DELETE", item_path(CHANNELS), "channels:write",
        "Delete an empty channel (one with posts: 409; archive it instead).",
        status=204, item="channels", conflicts=True,
    ),
    Operation(
        "listPostAnalytics", "GET", ANALYTICS_POSTS, "analytics:read",
        "Daily engagement rows per post, finished UTC days only.",
        query=(*POST_ANALYTICS_FILTERS, *PAGING), response="PostDayPage",
    ),
    Operation(
        "listChannelAnalytics", "GET", ANALYTICS_CHANNELS, "analytics:read",
        "Daily rows per channel, finished UTC days only.",
        query=(*CHANNEL_ANALYTICS_FILTERS, *PAGING), response="ChannelDayPage",
    ),
)  # fmt: skip

_BY_ID = {op.id: op for op in OPERATIONS}


def operation(operation_id: str) -> Operation:
    """The operation named `operation_id` (KeyError for an unknown name)."""
    return _BY_ID[operation_id]
