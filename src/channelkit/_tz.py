"""Time zones: the one resolver (an argument, else `CHANNELKIT_TZ`, else UTC) and the one
check, so that every entry point (a `--tz` option, `tz=` of a metric, a sheet's timezone
column, a delivery config) refuses an unknown zone with the same words.
"""

from __future__ import annotations

import os
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from channelkit._constants import DEFAULT_TZ, ENV_TZ
from channelkit._suggest import nearest
from channelkit.errors import UnknownZoneError

UTC_ZONE = ZoneInfo("UTC")  # for times the service gives (always UTC), and a zone not given
DEFAULT_ZONE = ZoneInfo(DEFAULT_TZ)  # `DEFAULT_TZ` resolved, for options' defaults


def resolve_tz(tz: str | None) -> str:
    """`tz` when given (stripped), else `CHANNELKIT_TZ` when set, else "UTC".

    >>> resolve_tz("Europe/Berlin")
    'Europe/Berlin'
    """
    return given_tz(tz) or DEFAULT_TZ


def given_tz(tz: str | None) -> str | None:
    """`tz` when given (stripped), else `CHANNELKIT_TZ` when set, else None.

    For publishing, where a naive time must not be read as UTC by accident (it would go
    out at the wrong hour): there, no zone at all stays an error.
    """
    if tz is not None and tz.strip():
        return tz.strip()
    return os.environ.get(ENV_TZ, "").strip() or None


def load_zone(name: object, *, param: str = "tz") -> ZoneInfo:
    """The `ZoneInfo` of an IANA name in any case, or the one error of every entry: an
    `UnknownZoneError` with the one message (`unknown_zone`), naming `param` (where the name
    came from; "" inside a publishing row, whose column the row error names).

    >>> load_zone(" europe/berlin ").key
    'Europe/Berlin'
    """
    if isinstance(name, str) and name.strip():
        zone = _zone(name.strip())
        if zone is not None:
            return zone
    raise UnknownZoneError(param, unknown_zone(name))


def checked_zone(tz: str | ZoneInfo | None) -> ZoneInfo:
    """The zone to use (`resolve_tz`), as the `ZoneInfo` every function below an edge takes,
    checked: an unknown one is refused, naming `tz` or `CHANNELKIT_TZ`, whichever gave it.
    A `ZoneInfo` (resolved already, at an outer edge) is used as it is, never looked up again.

    >>> checked_zone(" europe/berlin ").key
    'Europe/Berlin'
    """
    if isinstance(tz, ZoneInfo):
        return tz
    return load_zone(resolve_tz(tz), param=_named_by(tz))


def given_zone(tz: str | ZoneInfo | None) -> ZoneInfo | None:
    """`given_tz`, checked, for the library's publishing entries (`ck.schedule`,
    `load_spreadsheet`, `hold`, ...): refused before any work is done; a `ZoneInfo` is used
    as it is.

    >>> given_zone(" europe/berlin ").key
    'Europe/Berlin'
    """
    if isinstance(tz, ZoneInfo):
        return tz
    zone = given_tz(tz)
    return None if zone is None else load_zone(zone, param=_named_by(tz))


def _named_by(tz: str | None) -> str:
    """Where a zone came from: the argument when given, else the environment."""
    return "tz" if tz is not None and tz.strip() else ENV_TZ


def unknown_zone(name: object) -> str:
    """The one message for a name that is not a time zone, with the nearest name.

    >>> unknown_zone("Europe/Berln").endswith("(did you mean 'Europe/Berlin'?)")
    True
    """
    text = f"{name!r} is not a time zone; use an IANA name such as 'Europe/Berlin' or 'UTC'"
    if not isinstance(name, str) or not name.strip():
        return text
    close = nearest(name, available_timezones(), n=1)
    return f"{text} (did you mean {close[0]!r}?)" if close else text


@lru_cache(maxsize=256)
def _zone(name: str) -> ZoneInfo | None:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        pass
    # Zone names are case-sensitive files; people type "europe/berlin".
    folded = [known for known in available_timezones() if known.casefold() == name.casefold()]
    return ZoneInfo(folded[0]) if len(folded) == 1 else None
