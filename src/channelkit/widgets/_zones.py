"""Time zones offered by the widgets' dropdowns, and which one is selected first."""

from __future__ import annotations

import zoneinfo
from functools import lru_cache

from channelkit._tz import resolve_zone
from channelkit.errors import FieldError, PostValidationError, UnknownZoneError


@lru_cache(maxsize=1)
def zone_options() -> tuple[str, ...]:
    """UTC, then every IANA region/city zone (aliases such as `EST` left out), sorted."""
    regional = sorted(name for name in zoneinfo.available_timezones() if "/" in name)
    return ("UTC", *(name for name in regional if not name.startswith(("Etc/", "SystemV/"))))


def initial_zone(tz: str | None) -> str:
    """`tz`, else CHANNELKIT_TZ, else UTC; an unknown name raises `PostValidationError`."""
    try:
        return resolve_zone(tz).key
    except UnknownZoneError as exc:  # the widget's own words: a field of the form
        raise PostValidationError([FieldError("timezone", exc.message)]) from None


def options_with(zone: str) -> tuple[str, ...]:
    """The dropdown's options, including `zone` even when it is an alias."""
    options = zone_options()
    return options if zone in options else (zone, *options)
