"""Turning Python arguments into query parameters and JSON bodies. Pure.

Timestamps go out as RFC 3339 in UTC with a `Z`, dates as `YYYY-MM-DD` (decisions.md);
a naive datetime, or a string without an offset, is refused here with the parameter's
name rather than sent for the server to refuse.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import quote

from channelkit.errors import InvalidParameterError

Timestamp = datetime | date | str

_RFC3339 = re.compile(
    r"\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?P<offset>[Zz]|[+-]\d{2}:\d{2})?)?"
)


def format_timestamp(name: str, value: Timestamp) -> str:
    """`value` as the interface's timestamp text; `name` is the parameter, for messages."""
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise InvalidParameterError(
                name,
                f"naive datetime {value.isoformat()} has no time zone; pass an aware "
                "one, e.g. datetime(..., tzinfo=timezone.utc)",
            )
        text = value.astimezone(UTC).isoformat()
        return text.removesuffix("+00:00") + "Z"
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, str):
        match = _RFC3339.fullmatch(value.strip())
        if match is None:
            raise InvalidParameterError(
                name,
                f"{value!r} is not an RFC 3339 timestamp (2026-11-21T09:30:00Z) "
                "or a date (2026-11-21)",
            )
        if "T" in value.upper() or " " in value.strip():
            if match.group("offset") is None:
                raise InvalidParameterError(
                    name, f"{value!r} has no UTC offset; add one, e.g. {value.strip()}Z"
                )
        try:
            datetime.fromisoformat(value.strip().replace("z", "Z"))
        except ValueError:
            raise InvalidParameterError(name, f"{value!r} is not a valid date/time") from None
        return value.strip()
    raise InvalidParameterError(
        name, f"expected a datetime, date or RFC 3339 string, got {type(value).__name__}"
    )


def query_params(params: Mapping[str, Any]) -> dict[str, str]:
    """Query parameters as strings; None values are left out."""
    out: dict[str, str] = {}
    for name, value in params.items():
        if value is None:
            continue
        out[name] = _query_value(name, value)
    return out


def _query_value(name: str, value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date):
        return format_timestamp(name, value)
    if isinstance(value, str | int | float):
        return str(value)
    raise InvalidParameterError(
        name, f"expected a string, number, bool or date, got {type(value).__name__}"
    )


class NotGiven:
    """The default of an update argument left out: the field stays as it is, whereas `None`
    clears a field the contract lets clear (as openai-python's `NOT_GIVEN`).

    client.posts.update(post_id, title="New")              # cover image untouched
    client.posts.update(post_id, cover_image_url=None)     # cover image removed
    """

    _instance: NotGiven | None = None

    def __new__(cls) -> NotGiven:  # one sentinel, so `is NOT_GIVEN` always holds
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN = NotGiven()


def json_body(fields: Mapping[str, Any], *, keep_none: bool = False) -> dict[str, Any]:
    """A JSON request body, timestamps formatted; None values left out unless `keep_none`."""
    body: dict[str, Any] = {}
    for name, value in fields.items():
        if value is None and not keep_none:
            continue
        if isinstance(value, datetime | date):
            value = format_timestamp(name, value)
        elif isinstance(value, tuple | list):
            value = list(value)
        body[name] = value
    return body


def check_limit(limit: int, maximum: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= maximum:
        raise InvalidParameterError(
            "limit", f"must be an integer from 1 to {maximum}, got {limit!r}"
        )
    return limit


def path_id(name: str, value: str) -> str:
    """An ID as one URL path segment (so `../x` cannot reach another path)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidParameterError(name, f"expected a non-empty ID string, got {value!r}")
    return quote(value, safe="")
