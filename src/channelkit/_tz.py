"""Which time zone to use: the one resolver every command and function shares.

resolve_tz("Europe/Berlin")   # 'Europe/Berlin': an argument always wins
resolve_tz(None)              # CHANNELKIT_TZ when set, else 'UTC'
"""

from __future__ import annotations

import os
import zoneinfo

from channelkit._constants import ENV_TZ, TZ_DEFAULT
from channelkit.errors import InvalidParameterError


def resolve_tz(tz: str | None = None) -> str:
    """`tz` when given, else the `CHANNELKIT_TZ` environment variable, else UTC.

    Blank values count as not given. An argument is returned as given (stripped): its
    caller checks it and reports it in its own terms (a flag, a row, a parameter). A zone
    taken from the environment is checked here, so that a typo in it is reported as
    CHANNELKIT_TZ's, not as a parameter the user never passed.
    """
    if tz is not None and tz.strip():
        return tz.strip()
    name = os.environ.get(ENV_TZ, "").strip()
    if not name:
        return TZ_DEFAULT
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
        raise InvalidParameterError(
            ENV_TZ, f"{name!r} is not an IANA time zone name (e.g. 'UTC', 'Europe/Berlin')"
        ) from None
    return name
