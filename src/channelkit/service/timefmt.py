"""Timestamps as the contract wants them: RFC 3339 UTC `Z` out, offset-or-date in.

The service keeps every instant as whole Unix seconds; fractions in requests are truncated.
"""

from __future__ import annotations

import re
import time
from datetime import date, datetime

from channelkit.service.errors import bad_request

# What requests may send: RFC 3339 with an offset, or a bare date. The OpenAPI document
# publishes the same pattern, so the schema and the service agree on every string.
REQUEST_TIMESTAMP_PATTERN = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"([Tt][0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?([Zz]|[+-][0-9]{2}:[0-9]{2}))?$"
)
_REQUEST_TIMESTAMP = re.compile(REQUEST_TIMESTAMP_PATTERN.removesuffix("$"))
_NAIVE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt ][0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]+)?)?")
SECONDS_PER_DAY = 86_400


def parse_instant(value: str, param: str) -> float:
    """Parse a request timestamp into Unix seconds, or raise a 400 naming `param`."""
    if _REQUEST_TIMESTAMP.fullmatch(value):
        if len(value) == 10:
            try:
                return float(day_start(day_number(date.fromisoformat(value))))
            except ValueError:
                raise bad_request(param, f"{value!r} is not a valid date") from None
        # datetime.fromisoformat takes at most microseconds, and upper-case T and Z
        normalised = re.sub(r"(\.[0-9]{6})[0-9]+", r"\1", value.upper())
        try:
            return datetime.fromisoformat(normalised).timestamp()
        except ValueError:
            raise bad_request(param, f"{value!r} is not a valid timestamp") from None
    if _NAIVE.fullmatch(value):
        raise bad_request(
            param,
            f"{value!r} has no UTC offset; add one (e.g. 'Z' or '+02:00') or send a bare date",
        )
    raise bad_request(
        param,
        f"{value!r} is not an RFC 3339 timestamp (2026-11-21T09:30:00Z) or a date (2026-11-21)",
    )


def parse_date(value: str, param: str) -> int:
    """Parse a bare `YYYY-MM-DD` (or a timestamp, taking its UTC day) into a day number."""
    return int(parse_instant(value, param) // SECONDS_PER_DAY)


def format_instant(seconds: int) -> str:
    # gmtime + f-string: several times faster than datetime.strftime, and lists
    # format a few hundred timestamps per page
    t = time.gmtime(seconds)
    return f"{t[0]:04d}-{t[1]:02d}-{t[2]:02d}T{t[3]:02d}:{t[4]:02d}:{t[5]:02d}Z"


def format_day(day: int) -> str:
    return date.fromordinal(_EPOCH_ORDINAL + day).isoformat()


def day_number(day: date) -> int:
    """Days since 1970-01-01."""
    return day.toordinal() - _EPOCH_ORDINAL


def day_start(day: int) -> int:
    return day * SECONDS_PER_DAY


def day_of(seconds: float) -> int:
    return int(seconds // SECONDS_PER_DAY)


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
