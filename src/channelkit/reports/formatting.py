"""How numbers, dates and changes read in a report: plain functions, no I/O.

Missing values (None, NaN, pandas' NA) read as an em dash, never as "nan"; negative
numbers carry the minus sign (U+2212) that the changes carry, never a hyphen.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

MISSING = "\u2014"
MINUS = "\u2212"


def is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        # pandas.NA raises on bool(); NaN is the only float unequal to itself
        return bool(value != value)
    except TypeError:
        return True


def fmt_int(value: Any) -> str:
    """`12345` → `12,345`."""
    if is_missing(value):
        return MISSING
    return f"{round(float(value)):,}".replace("-", MINUS)


def fmt_number(value: Any, digits: int = 1) -> str:
    """Whole numbers without decimals, others with `digits` decimals."""
    if is_missing(value):
        return MISSING
    number = float(value)
    if number.is_integer():
        return fmt_int(number)
    return f"{number:,.{digits}f}".replace("-", MINUS)


def fmt_ratio(value: Any) -> str:
    """A ratio with two decimals, always: `1` → `1.00`, `1.234` → `1.23`."""
    if is_missing(value):
        return MISSING
    return f"{float(value):,.2f}".replace("-", MINUS)


def fmt_pct(value: Any, digits: int = 1) -> str:
    """A ratio as a percentage: `0.0425` → `4.3%`."""
    if is_missing(value):
        return MISSING
    return f"{float(value) * 100:.{digits}f}%".replace("-", MINUS)


def fmt_signed_pct(value: Any, digits: int = 1) -> str:
    """A relative change: `0.125` → `+12.5%`, `-0.5` → `−50.0%`."""
    if is_missing(value) or math.isinf(float(value)):
        return MISSING
    text = f"{float(value) * 100:+.{digits}f}%"
    return text.replace("-", MINUS)


def fmt_signed(value: Any, *, percent_points: bool = False) -> str:
    """An absolute change: `+1,204`, or `+0.4 pp` for a change of a rate."""
    if is_missing(value):
        return MISSING
    number = float(value)
    if percent_points:
        text = f"{number * 100:+.1f} pp"
    elif number.is_integer():
        text = f"{round(number):+,}"
    else:
        text = f"{number:+,.1f}"
    return text.replace("-", MINUS)


def fmt_date(value: Any) -> str:
    if is_missing(value):
        return MISSING
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def fmt_datetime(value: Any, tz: str) -> str:
    """An aware timestamp shown in `tz`, to the minute: `2026-11-20 09:30`."""
    if is_missing(value):
        return MISSING
    if not isinstance(value, datetime):
        return str(value)
    moment: datetime = value
    if moment.tzinfo is not None:
        moment = moment.astimezone(ZoneInfo(tz))
    return moment.strftime("%Y-%m-%d %H:%M")


def direction(value: Any) -> str:
    """`up`, `down` or `flat`: the CSS class of a change."""
    if is_missing(value) or float(value) == 0:
        return "flat"
    return "up" if float(value) > 0 else "down"
