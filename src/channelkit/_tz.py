"""The one timezone resolver: an explicit argument, else `CHANNELKIT_TZ`, else UTC.

Every command with `--tz` and every function with `tz=` asks it, so a cron job that sets
`CHANNELKIT_TZ=Europe/Berlin` gets Berlin days everywhere.
"""

from __future__ import annotations

import os

from channelkit._constants import DEFAULT_TZ, ENV_TZ


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
