"""Checking one post before it is sent: the rules every publishing path shares.

`ck.schedule`, the spreadsheet plan and the widgets all call `validate_post`, so a mistake
gets the same message wherever it is made. Pure: no I/O (only `ChannelIndex.from_client`
asks a client for the channel list).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache, cached_property
from typing import Any, Protocol
from zoneinfo import ZoneInfo

from channelkit._channels import ChannelLookup
from channelkit._constants import (
    IDEMPOTENCY_KEY_PREFIX,
    PUBLISH_CLOCK_MARGIN_SECONDS,
    PUBLISH_HOLD_TAG_PREFIX,
    PUBLISH_LEAD_TIME_SECONDS,
    PUBLISH_MAX_AHEAD_YEARS,
    PUBLISH_ORIGIN_TAG_PREFIX,
)
from channelkit._spec import TAGS_MAX_COUNT, TEXT_RULES, text_problem, url_problem
from channelkit._tz import resolve_zone
from channelkit.errors import FieldError, InvalidParameterError, TimeError
from channelkit.publish.post.fields import PUBLISH_FIELDS, PostField, arranged
from channelkit.publish.post.origin import is_origin, origin_tag
from channelkit.publish.post.times import combine_date_time, parse_when, time_zone

__all__ = [
    "FIELDS",
    "ChannelIndex",
    "ChannelInfo",
    "FieldError",
    "PostRequest",
    "validate_post",
]

# Keys `validate_post` reads: every post field of the contract (`publish.post_fields`),
# "date" and "time" (the two-column alternative to "scheduled_at"; their errors are
# reported on "scheduled_at") and the row's own "timezone".
FIELDS = arranged(("channel", "title", "body", "scheduled_at", "date", "time"), tail=("timezone",))
# The fields checked by their kind alone (the channel and the time are checked apart).
_BY_KIND = tuple(field for field in PUBLISH_FIELDS if field.name not in ("channel", "scheduled_at"))
DEFAULT_LEAD_TIME = timedelta(seconds=PUBLISH_LEAD_TIME_SECONDS)
CLOCK_MARGIN = timedelta(seconds=PUBLISH_CLOCK_MARGIN_SECONDS)
_MAX_AHEAD = timedelta(days=366 * PUBLISH_MAX_AHEAD_YEARS)


@dataclass(frozen=True)
class ChannelInfo:
    """The parts of a channel that publishing needs (for dropdowns and messages)."""

    id: str
    name: str
    slug: str
    visibility: str = "organization"
    is_archived: bool = False
    readers: int | None = None  # subscribers, when the service says

    @property
    def audience(self) -> str:
        """`all-hands (organisation, 1,204 readers)`: the channel and whom it reaches."""
        reach = {"organization": "organisation", "team": "team", "private": "private"}
        parts = [reach.get(self.visibility, self.visibility)]
        if self.readers is not None:
            parts.append(f"{self.readers:,} reader{'s' if self.readers != 1 else ''}")
        return f"{self.slug or self.name} ({', '.join(parts)})"

    @property
    def label(self) -> str:
        """`Name (slug)`, how a channel is shown to people."""
        return f"{self.name} ({self.slug})"


@dataclass(frozen=True)
class PostRequest:
    """A post that passed validation, ready for `client.posts.create`.

        request = validate_post({"channel": "all-hands", "title": "Hi", "body": "..."},
                                channels=index, tz=ZoneInfo("Europe/Berlin"), now=now)
        if isinstance(request, PostRequest):
            client.posts.create(**request.to_create_kwargs(),
                                idempotency_key=request.idempotency_key())

    `scheduled_at` is aware UTC, or None to publish at once. `channel_name` and `tz` only
    serve previews (local time, channel shown by name). `more` holds the values of contract
    fields without an attribute here (by their contract name); `value(name)` reads any.
    """

    channel_id: str
    title: str
    body: str
    priority: str
    tags: tuple[str, ...]
    scheduled_at: datetime | None
    cover_image_url: str | None
    channel_name: str | None = None
    tz: ZoneInfo | None = None
    more: tuple[tuple[str, object], ...] = ()

    def value(self, api_name: str) -> Any:
        """The value of the contract field `api_name` (None when not set)."""
        if api_name in _ATTRIBUTES:
            return getattr(self, api_name)
        return dict(self.more).get(api_name)

    def to_create_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `client.posts.create`: every contract field that is set
        (tags as a list, always; the others when not None), the tags with the row's origin
        tag (`origin_tag`) when they leave room for it."""
        kwargs = self._fields()
        if len(self.tags) < TAGS_MAX_COUNT:
            kwargs["tags"] = [*kwargs["tags"], self.origin_tag]
        return kwargs

    @property
    def origin_tag(self) -> str:
        """The tag naming the row this post comes from (`channelkit.publish.post.origin`)."""
        return origin_tag(self.channel_id, self.title, self.body, self.scheduled_at)

    def _fields(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        for field in PUBLISH_FIELDS:
            value = self.value(field.api)
            if field.kind == "tags":
                kwargs[field.api] = list(value or ())
            elif value is not None:
                kwargs[field.api] = value
        return kwargs

    def sent_fields(self) -> dict[str, Any]:
        """What is sent, as JSON values (`scheduled_at` as UTC text): what the ledger keeps.
        Without the origin tag, which the row's content gives: the fingerprints of rows
        sent by earlier versions stay what they were."""
        return self._as_json(self._fields())

    def _as_json(self, payload: dict[str, Any]) -> dict[str, Any]:
        if self.scheduled_at is not None:
            payload["scheduled_at"] = self.scheduled_at.strftime("%Y-%m-%dT%H:%M:%SZ")
        return payload

    @cached_property
    def _canonical(self) -> str:
        # Computed once: the ledger and the duplicate checks ask for it.
        return _canonical_json(self.sent_fields())

    @cached_property
    def _wire(self) -> str:
        # The create's body as the service compares it for its idempotency key.
        return _canonical_json(self._as_json(self.to_create_kwargs()))

    def sent_json(self) -> str:
        """`sent_fields()` as canonical JSON text (sorted keys, no spaces)."""
        return self._canonical

    def fingerprint(self) -> str:
        """A hash of what is sent (never of who sends it): one row, one fingerprint."""
        return self._fingerprint

    @cached_property
    def _fingerprint(self) -> str:
        return hashlib.sha256(self._canonical.encode()).hexdigest()

    def idempotency_key(self, service: str = "") -> str:
        """A key derived from the post's content and the service's address (`service`), so
        that whoever sends the same post to the same service, it is created once (the
        service scopes keys to the workspace)."""
        text = f"{service}\n{self._wire}" if service else self._wire
        return IDEMPOTENCY_KEY_PREFIX + hashlib.sha256(text.encode()).hexdigest()

    def local_time(self) -> datetime | None:
        """`scheduled_at` in the zone it was given in (UTC when none was)."""
        if self.scheduled_at is None or self.tz is None:
            return self.scheduled_at
        return self.scheduled_at.astimezone(self.tz)


def _canonical_json(payload: Mapping[str, Any]) -> str:
    return json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


# The contract fields PostRequest has an attribute for (typed access); others go in `more`.
_ATTRIBUTES = frozenset(
    field.api
    for field in PUBLISH_FIELDS
    if field.api in {attribute.name for attribute in dataclasses.fields(PostRequest)}
)
_MORE = tuple(field.api for field in PUBLISH_FIELDS if field.api not in _ATTRIBUTES)


class _ChannelLister(Protocol):
    def list(self) -> Iterable[Any]: ...


class _HasChannels(Protocol):
    @property
    def channels(self) -> _ChannelLister: ...


class ChannelIndex:
    """The channels an API key can see, to resolve what people type as a channel.

    index = ChannelIndex.from_client(client)
    index.resolve("all-hands")     # ChannelInfo, by id, slug or name, in any case
    index.resolve("News")          # FieldError listing candidates when ambiguous
    [c.name for c in index.channels]   # the channels one can publish in
    """

    def __init__(self, channels: Iterable[ChannelInfo]) -> None:
        self._all = tuple(channels)
        self._by_id = {channel.id: channel for channel in self._all}
        self._lookup = ChannelLookup(self._all)  # folded once: one lookup per row

    @classmethod
    def from_channels(cls, channels: Iterable[Mapping[str, Any] | Any]) -> ChannelIndex:
        """From channel mappings (JSON objects) or objects with the Channel attributes."""
        return cls(_channel_info(channel) for channel in channels)

    @classmethod
    def from_client(cls, client: _HasChannels) -> ChannelIndex:
        """Every channel `client`'s key can see (one listing of the service)."""
        return cls.from_channels(client.channels.list())

    @property
    def channels(self) -> tuple[ChannelInfo, ...]:
        """Channels one can publish in (not archived), sorted by name."""
        return tuple(
            sorted(
                (channel for channel in self._all if not channel.is_archived),
                key=lambda channel: (channel.name.casefold(), channel.slug),
            )
        )

    def get(self, channel_id: str) -> ChannelInfo | None:
        """The channel with id `channel_id`, if the key can see it."""
        return self._by_id.get(channel_id)

    def resolve(self, ref: str) -> ChannelInfo | FieldError:
        """The channel `ref` names (id, slug or name, in any case), or why there is none:
        the one matcher of every command (`_channels.match_channel`, by lookup)."""
        try:
            channel = self._lookup.match(ref, seen_by="this API key")
        except InvalidParameterError as exc:
            return FieldError("channel", exc.message)
        if channel.is_archived:
            return FieldError(
                "channel",
                f"channel {channel.label} is archived; choose another channel or unarchive it",
            )
        return channel


class _HasServerTime(Protocol):
    def server_time(self) -> datetime: ...


def service_now(client: _HasServerTime | object | None = None) -> datetime:
    """ "Now" for the lead-time check: the service's clock when a client knows it.

    The service refuses a `scheduled_at` that is not in the future by its own clock, which
    may run ahead of this machine's; `client.server_time()` estimates it from the `Date`
    headers (erring early by a few seconds), and `PUBLISH_CLOCK_MARGIN_SECONDS` more
    covers that error and the time until the post is sent. Without a client: this clock.
    """
    local = datetime.now(UTC)
    server_time = getattr(client, "server_time", None)
    server = server_time() if callable(server_time) else local
    return max(local, server) + CLOCK_MARGIN


def validate_post(
    fields: Mapping[str, object],
    *,
    channels: ChannelIndex | None,
    tz: str | ZoneInfo | None,
    now: datetime,
    lead_time: timedelta = DEFAULT_LEAD_TIME,
    confirm_urgent: bool = False,
    require_time: bool = False,
) -> PostRequest | list[FieldError]:
    """Check one post; return the request to send, or every problem found.

    `fields` uses the `FIELDS` keys; values may be text, numbers, datetimes or lists, as
    forms and spreadsheets give them. `channels=None` skips channel lookup (the request then
    carries the reference as given). `tz` (a name or a `ZoneInfo`; None: no zone, so a naive
    time is an error) reads naive times unless the post has its own `timezone`; an unknown
    name is a bad argument, refused before any field is read (`UnknownZoneError`), not a row
    error. A missing time means "publish now" unless `require_time`. `now` must be aware.
    """
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown post fields {unknown}; expected some of {list(FIELDS)}")
    if now.tzinfo is None:
        raise ValueError("now must be an aware datetime")
    # an edge (public as `ck.publish.validate_post`): a name is resolved here, once; None
    # stays "no zone" (the callers below resolved CHANNELKIT_TZ already)
    given = None if tz is None else resolve_zone(tz, default=None)
    errors: list[FieldError] = []

    channel_ref = cell_value(fields.get("channel"))
    channel: ChannelInfo | None = None
    if not channel_ref:
        errors.append(FieldError("channel", "channel is required (id, slug or name)"))
    elif channels is not None:
        resolved = channels.resolve(channel_ref)
        if isinstance(resolved, FieldError):
            errors.append(resolved)
        else:
            channel = resolved

    values: dict[str, Any] = {
        field.api: check(field, fields.get(field.name), confirm_urgent, errors)
        for field, check in _checks()
    }
    zone = _zone(fields.get("timezone"), given, errors)
    scheduled_at = _scheduled_at(fields, zone, now, lead_time, require_time, errors)

    if errors:
        return errors
    more = tuple((name, values.pop(name)) for name in _MORE)
    return PostRequest(
        channel_id=channel.id if channel is not None else channel_ref,
        scheduled_at=scheduled_at,
        channel_name=channel.name if channel is not None else None,
        tz=zone,
        more=more,
        **values,
    )


_Check = Callable[[PostField, object, bool, list[FieldError]], object]


@cache
def _checks() -> tuple[tuple[PostField, _Check], ...]:
    """Each field checked by its kind alone (the channel and the time are checked apart),
    with the check for its kind: chosen once, not per cell."""
    by_kind: dict[str, _Check] = {
        "tags": lambda field, value, _urgent, errors: _tags(field, value, errors),
        "url": lambda field, value, _urgent, errors: _url(field, value, errors),
        "enum": _choice,
        "text": _checked_text,
    }
    return tuple((field, by_kind[field.kind]) for field in _BY_KIND)


def _checked_text(
    field: PostField, value: object, _confirm_urgent: bool, errors: list[FieldError]
) -> str | None:
    text = cell_value(value)
    if not text and not field.required:
        return None
    assert field.spec.text is not None  # a text field names its rule (_spec.Field)
    _check_text(field.name, field.spec.text, text, errors)
    return text


def _choice(
    field: PostField, value: object, confirm_urgent: bool, errors: list[FieldError]
) -> str | None:
    choice = cell_value(value).lower() or (str(field.spec.default) if field.spec.default else "")
    if not choice:
        if field.required:
            errors.append(FieldError(field.name, f"{field.name} is required"))
        return None
    if choice not in field.spec.choices:
        errors.append(
            FieldError(field.name, f"{choice!r} is not one of {', '.join(field.spec.choices)}")
        )
    elif field.api == "priority" and choice == "urgent" and not confirm_urgent:
        errors.append(
            FieldError(
                field.name,
                "urgent bypasses readers' notification preferences; confirm it explicitly "
                "(confirm_urgent=True, or --confirm-urgent on the command line)",
            )
        )
    return choice


def _channel_info(channel: Mapping[str, Any] | Any) -> ChannelInfo:
    def get(name: str, default: Any = None) -> Any:
        if isinstance(channel, Mapping):
            return channel.get(name, default)
        return getattr(channel, name, default)

    return ChannelInfo(
        id=str(get("id")),
        name=str(get("name") or ""),
        slug=str(get("slug") or ""),
        visibility=str(get("visibility") or "organization"),
        is_archived=bool(get("is_archived")),
        readers=None if get("subscriber_count") is None else int(get("subscriber_count")),
    )


def with_unread(
    result: PostRequest | list[FieldError], unread: Sequence[FieldError]
) -> list[FieldError]:
    """A row's errors with those of what its file could not read for certain (a date of
    another tool's file, an ambiguous A/B/YYYY date) first; validation's errors about the
    same fields go (they would only repeat them about the cell as written)."""
    fields = {error.field for error in unread}
    others = [e for e in result if e.field not in fields] if isinstance(result, list) else []
    return [*unread, *others]


def cell_value(value: object) -> str:
    """A cell as stripped text ("" when blank; `3.0` as `3`, as spreadsheets store it)."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _check_text(field: str, rule: str, text: str, errors: list[FieldError]) -> None:
    """The service's own rule for `rule` (`_spec.TEXT_RULES`): what passes here, it accepts."""
    limit = TEXT_RULES[rule].max_chars
    if not text:
        errors.append(FieldError(field, f"{field} is required"))
    elif len(text) > limit:
        errors.append(FieldError(field, f"{field} is {len(text):,} characters; at most {limit:,}"))
    elif (problem := text_problem(rule, text)) is not None:
        errors.append(FieldError(field, f"{field} {problem}"))


_RESERVED = (
    f"is channelkit's own mark ({PUBLISH_ORIGIN_TAG_PREFIX}… names the row a post came from, "
    f"{PUBLISH_HOLD_TAG_PREFIX}… a hold): channelkit writes it; remove it from the row"
)


def _tags(field: PostField, value: object, errors: list[FieldError]) -> tuple[str, ...]:
    if value is None:
        raw: list[str] = []
    elif isinstance(value, str):
        raw = value.split(",")
    elif isinstance(value, Iterable):
        raw = [cell_value(item) for item in value]
    else:
        raw = [cell_value(value)]
    tags = tuple(dict.fromkeys(tag.strip() for tag in raw if tag.strip()))
    rule = field.spec.text or "tag"
    limit = TEXT_RULES[rule].max_chars
    for tag in tags:
        shown = tag if len(tag) <= 20 else tag[:20] + "…"
        if len(tag) > limit:
            errors.append(
                FieldError(field.name, f"tag {shown!r} is {len(tag)} characters; at most {limit}")
            )
        elif (problem := text_problem(rule, tag)) is not None:
            errors.append(FieldError(field.name, f"tag {shown!r} {problem}"))
        elif is_origin(tag) or tag.startswith(PUBLISH_HOLD_TAG_PREFIX):
            errors.append(FieldError(field.name, f"tag {shown!r} {_RESERVED}"))
    if len(tags) > TAGS_MAX_COUNT:
        errors.append(FieldError(field.name, f"{len(tags)} tags; at most {TAGS_MAX_COUNT}"))
    return tags


def _url(field: PostField, value: object, errors: list[FieldError]) -> str | None:
    url = cell_value(value)
    if not url:
        return None
    problem = url_problem(url)  # the service's own rule
    if problem is not None:
        shown = url if len(url) <= 60 else url[:59] + "…"
        reason = problem.replace("must be an absolute", "is not an absolute", 1)
        errors.append(FieldError(field.name, f"{shown!r} {reason} (like {field.example})"))
        return None
    return url


def _zone(value: object, default: ZoneInfo | None, errors: list[FieldError]) -> ZoneInfo | None:
    """The row's own timezone cell (the edge where a row names its zone), else `default`."""
    name = cell_value(value)
    if not name:
        return default
    try:
        return time_zone(name)
    except TimeError as exc:
        errors.append(FieldError("timezone", str(exc)))
    return None


def _scheduled_at(
    fields: Mapping[str, object],
    zone: ZoneInfo | None,
    now: datetime,
    lead_time: timedelta,
    require_time: bool,
    errors: list[FieldError],
) -> datetime | None:
    value = fields.get("scheduled_at")
    day, clock = fields.get("date"), fields.get("time")
    has_value = cell_value(value) != ""
    has_day, has_clock = cell_value(day) != "", cell_value(clock) != ""
    if has_value and (has_day or has_clock):
        errors.append(
            FieldError("scheduled_at", "give either scheduled_at or date and time, not both")
        )
        return None
    if has_day != has_clock:
        missing = "time" if has_day else "date"
        message = f"{missing} is missing (date and time go together)"
        errors.append(FieldError("scheduled_at", message))
        return None
    if not (has_value or has_day):
        if require_time:
            errors.append(FieldError("scheduled_at", "scheduled_at is required"))
        return None
    if any(error.field == "timezone" for error in errors):
        return None  # the time cannot be read without its zone; that error is already listed
    try:
        if has_value:
            moment = parse_when(value, tz=zone)
        else:
            moment = combine_date_time(day, clock, tz=zone)
    except TimeError as exc:
        errors.append(FieldError("scheduled_at", str(exc)))
        return None
    if moment < now + lead_time:
        minutes = int(lead_time.total_seconds() // 60)
        reason = "is in the past" if moment <= now else f"is less than {minutes} minutes ahead"
        errors.append(
            FieldError(
                "scheduled_at",
                f"{_wall(moment, zone)} {reason}; schedule at least {minutes} minutes "
                f"after now ({_wall(now, zone)})",
            )
        )
        return None
    # from this machine's clock too: a calendar checks its rows with no "now" of its own
    if moment - max(now, datetime.now(UTC)) > _MAX_AHEAD:
        errors.append(
            FieldError(
                "scheduled_at",
                f"{_wall(moment, zone)} is more than {PUBLISH_MAX_AHEAD_YEARS} years "
                "ahead; check the year",
            )
        )
        return None
    return moment


def _wall(moment: datetime, zone: ZoneInfo | None) -> str:
    shown = zone or UTC
    return f"{moment.astimezone(shown):%Y-%m-%d %H:%M} {zone.key if zone else 'UTC'}"
