"""Timestamps as the contract wants them: RFC 3339 UTC `Z` out, offset-or-date in.

The service keeps every instant as whole Unix seconds; fractions in requests are truncated.
"""

from __future__ import annotations

import re
import time
from datetime import date, datetime

from channelkit.service.errors import bad_request

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
# RFC 3339 date-time with a mandatory offset (`Z` or +hh:mm); `T` or a space between parts.
_DATETIME = re.compile(
    r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$"
)
_NAIVE = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$")
SECONDS_PER_DAY = 86_400


def parse_instant(value: str, param: str) -> float:
    """Parse a request timestamp into Unix seconds, or raise a 400 naming `param`."""
    text = value.strip()
    if _DATE.match(text):
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise bad_request(param, f"{value!r} is not a valid date") from None
        return float(day_start(day_number(day)))
    if _DATETIME.match(text):
        normalised = text.replace("z", "Z").replace("t", "T")
        # datetime.fromisoformat accepts at most microseconds
        normalised = re.sub(r"\.(\d{6})\d+", r".\1", normalised)
        try:
            return datetime.fromisoformat(normalised).timestamp()
        except ValueError:
            raise bad_request(param, f"{value!r} is not a valid timestamp") from None
    if _NAIVE.match(text):
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
