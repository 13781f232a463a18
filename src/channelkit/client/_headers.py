"""Parsing of the response headers the client acts on. Pure: no I/O, no clock.

Anything missing or malformed parses to None, so that a misbehaving server degrades the
client to "no information" rather than to an exception in the middle of a walk.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime

_INT = re.compile(r"\s*\+?(\d{1,15})\s*")
_NUMBER = re.compile(r"\s*\+?(\d{1,15}(?:\.\d+)?)\s*")


@dataclass(frozen=True)
class RateLimitHeaders:
    """`X-RateLimit-Limit/Remaining/Reset` as sent; `reset` is Unix seconds (decisions.md)."""

    limit: int | None
    remaining: int
    reset: float | None


def parse_rate_limit(headers: Mapping[str, str]) -> RateLimitHeaders | None:
    """The rate-limit headers of a response, or None when it carries none usable."""
    limit = _parse_int(headers.get("x-ratelimit-limit"))
    remaining = _parse_int(headers.get("x-ratelimit-remaining"))
    reset = _parse_number(headers.get("x-ratelimit-reset"))
    if remaining is None:
        return None
    return RateLimitHeaders(limit=limit, remaining=remaining, reset=reset)


def parse_retry_after(value: str | None, *, server_now: float) -> float | None:
    """`Retry-After` in seconds: delta-seconds (the interface's form) or an HTTP date.

    A date in the past gives 0; the caller applies its own floor.
    """
    if value is None:
        return None
    seconds = _parse_number(value)
    if seconds is not None:
        return seconds
    when = parse_http_date(value)
    return None if when is None else max(0.0, when - server_now)


def parse_http_date(value: str | None) -> float | None:
    """An RFC 9110 date (`Date`, `Retry-After`) as Unix seconds, or None."""
    if not value:
        return None
    try:
        parsed = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if parsed.tzinfo is None:  # RFC 9110 dates are always GMT
        return None
    return parsed.timestamp()


def _parse_int(value: str | None) -> int | None:
    if value is None:
        return None
    match = _INT.fullmatch(value)
    return int(match.group(1)) if match else None


def _parse_number(value: str | None) -> float | None:
    if value is None:
        return None
    match = _NUMBER.fullmatch(value)
    return float(match.group(1)) if match else None
