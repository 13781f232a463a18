"""Timestamps as the contract wants them: RFC 3339 UTC `Z` out, offset-or-date in.

The service keeps every instant as whole Unix seconds; fractions in requests are truncated.
"""

from __future__ import annotations

import time
from datetime import date

from channelkit import _spec
from channelkit.errors import ServiceHTTPError

SECONDS_PER_DAY = 86_400


def instant_param(value: str, param: str) -> int:
    """Parse a request timestamp into whole Unix seconds, or raise a 400 naming `param`."""
    try:
        return _spec.parse_instant(value)
    except ValueError as exc:
        raise ServiceHTTPError.bad_request(param, str(exc)) from None


def format_instant(seconds: int) -> str:
    # gmtime + f-string: several times faster than datetime.strftime, and lists
    # format a few hundred timestamps per page
    t = time.gmtime(seconds)
    return f"{t[0]:04d}-{t[1]:02d}-{t[2]:02d}T{t[3]:02d}:{t[4]:02d}:{t[5]:02d}Z"


def format_day(day: int) -> str:
    return date.fromordinal(_EPOCH_ORDINAL + day).isoformat()


def day_start(day: int) -> int:
    return day * SECONDS_PER_DAY


def day_of(seconds: float) -> int:
    return int(seconds // SECONDS_PER_DAY)


_EPOCH_ORDINAL = date(1970, 1, 1).toordinal()
