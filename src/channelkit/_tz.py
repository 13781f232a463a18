"""Time zones: the one resolver (an argument, else `CHANNELKIT_TZ`, else a default) and the
one check, so that every entry point (a `--tz` option, `tz=` of a metric, a sheet's timezone
column, a delivery config) refuses an unknown zone with the same words.
"""

from __future__ import annotations

import os
from functools import lru_cache
from typing import overload
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from channelkit._constants import DEFAULT_TZ, ENV_TZ
from channelkit._suggest import nearest
from channelkit.errors import UnknownZoneError

UTC_ZONE = ZoneInfo("UTC")  # for times the service gives (always UTC), and a zone not given
DEFAULT_ZONE = ZoneInfo(DEFAULT_TZ)  # `DEFAULT_TZ` resolved, for options' defaults


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


@overload
def resolve_zone(tz: object, *, default: ZoneInfo = ...) -> ZoneInfo: ...
@overload
def resolve_zone(tz: object, *, default: None) -> ZoneInfo | None: ...
def resolve_zone(tz: object, *, default: ZoneInfo | None = DEFAULT_ZONE) -> ZoneInfo | None:
    """The one resolver of every edge that takes a zone: `tz` (a name in any case, or a
    `ZoneInfo`, resolved at an outer edge already and used as it is), else `CHANNELKIT_TZ`
    when set, else `default`. A blank name counts as not given. Anything else (an unknown
    name, a number) is refused by `load_zone`, naming `tz` or `CHANNELKIT_TZ`, whichever
    gave it.

    Publishing passes `default=None`: a naive time read as UTC by accident would go out at
    the wrong hour, so there no zone at all stays an error, said by the caller.

    >>> resolve_zone(" europe/berlin ").key
    'Europe/Berlin'
    >>> resolve_zone(ZoneInfo("Asia/Tokyo"), default=None).key
    'Asia/Tokyo'
    """
    if isinstance(tz, ZoneInfo):
        return tz
    if tz is None or (isinstance(tz, str) and not tz.strip()):  # not given
        named = os.environ.get(ENV_TZ, "").strip()
        return load_zone(named, param=ENV_TZ) if named else default
    return load_zone(tz, param="tz")


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
