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
    if tz is not None and tz.strip():
        return tz.strip()
    from_env = os.environ.get(ENV_TZ, "").strip()
    return from_env or DEFAULT_TZ
