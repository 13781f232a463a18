"""Numbers as people read them in a table: 12,345 · 57.2% · +1,204 · −10.7 pts. Pure.

Missing values (None, NaN, pandas' NA) read as an em dash, never as "nan" or "<NA>".
"""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any

MISSING = "\u2014"
MINUS = "\u2212"


def missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN is unequal to itself; pandas.NA raises on bool()
    except TypeError:
        return True


def count(value: Any) -> str:
    """`12345.0` → `12,345`; a fraction keeps one decimal (`2.5` → `2.5`)."""
    if missing(value):
        return MISSING
    number = float(value)
    text = f"{round(number):,}" if number.is_integer() else f"{number:,.1f}"
    return text.replace("-", MINUS)


def percent(value: Any) -> str:
    """A ratio as a percentage: `0.57214` → `57.2%`."""
    if missing(value) or math.isinf(float(value)):
        return MISSING
    return f"{float(value) * 100:.1f}%".replace("-", MINUS)


def signed(value: Any, *, rate: bool = False) -> str:
    """A change: `+1,204` for counts, `−10.7 pts` (percentage points) for rates."""
    if missing(value):
        return MISSING
    number = float(value)
    if rate:
        text = f"{number * 100:+.1f} pts"
    elif number.is_integer():
        text = f"{round(number):+,}"
    else:
        text = f"{number:+,.1f}"
    return text.replace("-", MINUS)


def signed_percent(value: Any) -> str:
    """A relative change: `-0.2042` → `−20.4%`."""
    if missing(value) or math.isinf(float(value)):
        return MISSING
    return f"{float(value) * 100:+.1f}%".replace("-", MINUS)


def moment(value: Any) -> str:
    """A date, or a time to the minute (midnight shows as the date alone)."""
    if missing(value):
        return MISSING
    if isinstance(value, datetime):
        if (value.hour, value.minute, value.second) == (0, 0, 0):
            return value.date().isoformat()
        zone = value.tzname() or ""
        return f"{value:%Y-%m-%d %H:%M} {zone}".strip()
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def age(seconds: float) -> str:
    """How long ago, in the largest unit that says it: `3 minutes`, `2 hours`, `5 days`."""
    seconds = max(0.0, seconds)
    for unit, size in (("day", 86_400), ("hour", 3_600), ("minute", 60)):
        if seconds >= size:
            amount = int(seconds // size)
            return f"{amount} {unit}{'' if amount == 1 else 's'}"
    return "less than a minute"
