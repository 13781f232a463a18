"""Checking one post before it is sent: the rules every publishing path shares.

`ck.schedule`, the spreadsheet plan and the widgets all call `validate_post`, so a mistake
gets the same message wherever it is made. Pure: no I/O (only `ChannelIndex.from_client`
asks a client for the channel list).
"""

from __future__ import annotations

import difflib
import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol
from urllib.parse import urlsplit

from channelkit._constants import IDEMPOTENCY_KEY_PREFIX, PUBLISH_LEAD_TIME_SECONDS
from channelkit._spec import (
    BODY_MAX_CHARS,
    PRIORITIES,
    TAG_MAX_CHARS,
    TAGS_MAX_COUNT,
    TITLE_MAX_CHARS,
)
from channelkit.publish.times import TimeError, combine_date_time, load_zone, parse_when

__all__ = [
    "FIELDS",
    "ChannelIndex",
    "ChannelInfo",
    "FieldError",
    "PostRequest",
    "validate_post",
]

# Keys `validate_post` reads. "date" and "time" are the two-column alternative to
# "scheduled_at"; their errors are reported on "scheduled_at".
FIELDS = (
    "channel",
    "title",
    "body",
    "scheduled_at",
    "date",
    "time",
    "priority",
    "tags",
    "cover_image_url",
    "timezone",
)
DEFAULT_LEAD_TIME = timedelta(seconds=PUBLISH_LEAD_TIME_SECONDS)


@dataclass(frozen=True)
class FieldError:
    """One problem with one field: `field` is a `FIELDS` name, `message` says what to fix."""

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


@dataclass(frozen=True)
class ChannelInfo:
    """The parts of a channel that publishing needs (for dropdowns and messages)."""

    id: str
    name: str
    slug: str
    visibility: str = "organization"
    is_archived: bool = False

    @property
    def label(self) -> str:
        """`Name (slug)`, how a channel is shown to people."""
        return f"{self.name} ({self.slug})"


@dataclass(frozen=True)
class PostRequest:
    """A post that passed validation, ready for `client.posts.create`.

        request = validate_post({"channel": "all-hands", "title": "Hi", "body": "..."},
                                channels=index, tz="Europe/Berlin", now=now)
        if isinstance(request, PostRequest):
            client.posts.create(**request.to_create_kwargs(),
                                idempotency_key=request.idempotency_key())

    `scheduled_at` is aware UTC, or None to publish at once. `channel_name` and `tz` only
    serve previews (local time, channel shown by name).
    """

    channel_id: str
    title: str
    body: str
    priority: str
    tags: tuple[str, ...]
    scheduled_at: datetime | None
    cover_image_url: str | None
    channel_name: str | None = None
    tz: str | None = None

    def to_create_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for `client.posts.create`; optional fields only when set."""
        kwargs: dict[str, Any] = {
            "channel_id": self.channel_id,
            "title": self.title,
            "body": self.body,
            "priority": self.priority,
            "tags": list(self.tags),
        }
        if self.scheduled_at is not None:
            kwargs["scheduled_at"] = self.scheduled_at
        if self.cover_image_url is not None:
            kwargs["cover_image_url"] = self.cover_image_url
        return kwargs

    def idempotency_key(self) -> str:
        """A key derived from the post's content: sending the same post twice creates it once."""
        payload = self.to_create_kwargs()
        if self.scheduled_at is not None:
            payload["scheduled_at"] = self.scheduled_at.strftime("%Y-%m-%dT%H:%M:%SZ")
        canonical = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return IDEMPOTENCY_KEY_PREFIX + hashlib.sha256(canonical.encode()).hexdigest()

    def local_time(self) -> datetime | None:
        """`scheduled_at` in the zone it was given in (UTC when none was)."""
        if self.scheduled_at is None or not self.tz:
            return self.scheduled_at
        return self.scheduled_at.astimezone(load_zone(self.tz))


class _ChannelLister(Protocol):
    def list(self) -> Iterable[Any]: ...


class _HasChannels(Protocol):
    @property
    def channels(self) -> _ChannelLister: ...


class ChannelIndex:
    """The channels an API key can see, to resolve what people type as a channel.

    index = ChannelIndex.from_client(client)
    index.resolve("all-hands")     # ChannelInfo, by id, slug or exact name
    index.resolve("News")          # FieldError listing candidates when ambiguous
    [c.name for c in index.channels]   # the channels one can publish in
    """

    def __init__(self, channels: Iterable[ChannelInfo]) -> None:
        self._all = tuple(channels)
        self._by_key: dict[str, list[ChannelInfo]] = {}
        for channel in self._all:
            for key in {channel.id, channel.slug, channel.name} - {""}:
                self._by_key.setdefault(key, []).append(channel)

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
        return next((c for c in self._by_key.get(channel_id, ()) if c.id == channel_id), None)

    def resolve(self, ref: str) -> ChannelInfo | FieldError:
        """The channel `ref` names (id, slug or exact name), or why there is none."""
        ref = ref.strip()
        candidates = self._by_key.get(ref, [])
        by_id = [channel for channel in candidates if channel.id == ref]
        if by_id:
            candidates = by_id
        if not candidates:
            return FieldError("channel", self._unknown_message(ref))
        if len(candidates) > 1:
            listed = ", ".join(f"{c.name} [{c.id}, slug {c.slug}]" for c in candidates)
            return FieldError(
                "channel",
                f"{ref!r} matches {len(candidates)} channels: {listed}; use the id or slug",
            )
        channel = candidates[0]
        if channel.is_archived:
            return FieldError(
                "channel",
                f"channel {channel.label} is archived; choose another channel or unarchive it",
            )
        return channel

    def _unknown_message(self, ref: str) -> str:
        message = f"no channel {ref!r} (id, slug or exact name) visible to this API key"
        folded = {key.casefold(): key for key in self._by_key}
        close = folded.get(ref.casefold())
        if close is None:
            matches = difflib.get_close_matches(ref.casefold(), list(folded), n=1, cutoff=0.75)
            close = folded[matches[0]] if matches else None
        return f"{message}; did you mean {close!r}?" if close else message


def validate_post(
    fields: Mapping[str, object],
    *,
    channels: ChannelIndex | None,
    tz: str | None,
    now: datetime,
    lead_time: timedelta = DEFAULT_LEAD_TIME,
    confirm_urgent: bool = False,
    require_time: bool = False,
) -> PostRequest | list[FieldError]:
    """Check one post; return the request to send, or every problem found.

    `fields` uses the `FIELDS` keys; values may be text, numbers, datetimes or lists, as
    forms and spreadsheets give them. `channels=None` skips channel lookup (the request then
    carries the reference as given). `tz` reads naive times unless the post has its own
    `timezone`. A missing time means "publish now" unless `require_time`. `now` must be aware.
    """
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        raise ValueError(f"unknown post fields {unknown}; expected some of {list(FIELDS)}")
    if now.tzinfo is None:
        raise ValueError("now must be an aware datetime")
    errors: list[FieldError] = []

    channel_ref = _text(fields.get("channel"))
    channel: ChannelInfo | None = None
    if not channel_ref:
        errors.append(FieldError("channel", "channel is required (id, slug or exact name)"))
    elif channels is not None:
        resolved = channels.resolve(channel_ref)
        if isinstance(resolved, FieldError):
            errors.append(resolved)
        else:
            channel = resolved

    title = _text(fields.get("title"))
    _check_length("title", title, TITLE_MAX_CHARS, errors)
    body = _text(fields.get("body"))
    _check_length("body", body, BODY_MAX_CHARS, errors)

    priority = _text(fields.get("priority")).lower() or "normal"
    if priority not in PRIORITIES:
        errors.append(FieldError("priority", f"{priority!r} is not one of {', '.join(PRIORITIES)}"))
    elif priority == "urgent" and not confirm_urgent:
        errors.append(
            FieldError(
                "priority",
                "urgent bypasses readers' notification preferences; confirm it explicitly "
                "(confirm_urgent=True, or --confirm-urgent on the command line)",
            )
        )

    tags = _tags(fields.get("tags"), errors)
    cover = _cover_url(fields.get("cover_image_url"), errors)
    zone_name = _zone(fields.get("timezone"), tz, errors)
    scheduled_at = _scheduled_at(fields, zone_name, now, lead_time, require_time, errors)

    if errors:
        return errors
    return PostRequest(
        channel_id=channel.id if channel is not None else channel_ref,
        title=title,
        body=body,
        priority=priority,
        tags=tags,
        scheduled_at=scheduled_at,
        cover_image_url=cover,
        channel_name=channel.name if channel is not None else None,
        tz=zone_name,
    )


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
    )


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def _check_length(field: str, text: str, limit: int, errors: list[FieldError]) -> None:
    if not text:
        errors.append(FieldError(field, f"{field} is required"))
    elif len(text) > limit:
        errors.append(FieldError(field, f"{field} is {len(text):,} characters; at most {limit:,}"))


def _tags(value: object, errors: list[FieldError]) -> tuple[str, ...]:
    if value is None:
        raw: list[str] = []
    elif isinstance(value, str):
        raw = value.split(",")
    elif isinstance(value, Iterable):
        raw = [_text(item) for item in value]
    else:
        raw = [_text(value)]
    tags = tuple(dict.fromkeys(tag.strip() for tag in raw if tag.strip()))
    for tag in tags:
        if len(tag) > TAG_MAX_CHARS:
            errors.append(
                FieldError(
                    "tags",
                    f"tag {tag[:20] + '…'!r} is {len(tag)} characters; at most {TAG_MAX_CHARS}",
                )
            )
    if len(tags) > TAGS_MAX_COUNT:
        errors.append(FieldError("tags", f"{len(tags)} tags; at most {TAGS_MAX_COUNT}"))
    return tags


def _cover_url(value: object, errors: list[FieldError]) -> str | None:
    url = _text(value)
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme.lower() not in {"http", "https"} or not parts.netloc or " " in url:
        shown = url if len(url) <= 60 else url[:59] + "…"
        errors.append(
            FieldError(
                "cover_image_url",
                f"{shown!r} is not an absolute http(s) URL (like https://example.com/cover.png)",
            )
        )
        return None
    return url


def _zone(value: object, default: str | None, errors: list[FieldError]) -> str | None:
    zone_name = _text(value) or (default.strip() if default else None)
    if zone_name:
        try:
            return load_zone(zone_name).key
        except TimeError as exc:
            errors.append(FieldError("timezone", str(exc)))
    return None


def _scheduled_at(
    fields: Mapping[str, object],
    zone_name: str | None,
    now: datetime,
    lead_time: timedelta,
    require_time: bool,
    errors: list[FieldError],
) -> datetime | None:
    value = fields.get("scheduled_at")
    day, clock = fields.get("date"), fields.get("time")
    has_value = _text(value) != ""
    has_day, has_clock = _text(day) != "", _text(clock) != ""
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
            moment = parse_when(value, zone_name=zone_name)
        else:
            moment = combine_date_time(day, clock, zone_name=zone_name)
    except TimeError as exc:
        errors.append(FieldError("scheduled_at", str(exc)))
        return None
    if moment < now + lead_time:
        minutes = int(lead_time.total_seconds() // 60)
        reason = "is in the past" if moment <= now else f"is less than {minutes} minutes ahead"
        errors.append(
            FieldError(
                "scheduled_at",
                f"{_wall(moment, zone_name)} {reason}; schedule at least {minutes} minutes "
                f"after now ({_wall(now, zone_name)})",
            )
        )
        return None
    return moment


def _wall(moment: datetime, zone_name: str | None) -> str:
    zone = load_zone(zone_name) if zone_name else UTC
    return f"{moment.astimezone(zone):%Y-%m-%d %H:%M} {zone_name or 'UTC'}"
