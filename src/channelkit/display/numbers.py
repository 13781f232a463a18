"""Numbers, dates and changes as people read them: 12,345 · 57.2% · +1,204 · −10.7 points.

The one formatter of notebooks (tables, tiles, the card) and reports (pages, emails,
charts), so a number reads the same wherever it is shown. Pure: values in, text out.
Missing values (None, NaN, pandas' NA) read as an em dash, never as "nan" or "<NA>";
negative numbers carry the minus sign (U+2212), never a hyphen.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

MISSING = "\u2014"
_UNIT = re.compile(r"(?<=\d)[^\d]+$")
MINUS = "\u2212"


def missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(value != value)  # NaN is unequal to itself; pandas.NA raises on bool()
    except TypeError:
        return True


def _minus(text: str) -> str:
    return text.replace("-", MINUS)


def whole(value: Any) -> str:
    """Rounded to a whole number: `12345.4` → `12,345`."""
    if missing(value):
        return MISSING
    return _minus(f"{round(float(value)):,}")


def count(value: Any, digits: int = 1) -> str:
    """`12345.0` → `12,345`; a fraction keeps `digits` decimals (`2.5` → `2.5`)."""
    if missing(value):
        return MISSING
    number = float(value)
    if number.is_integer():
        return whole(number)
    return _minus(f"{number:,.{digits}f}")


def percent(value: Any) -> str:
    """A ratio as a percentage: `0.57214` → `57.2%`."""
    if missing(value) or math.isinf(float(value)):
        return MISSING
    return _minus(f"{float(value) * 100:.1f}%")


def signed(value: Any, *, rate: bool = False) -> str:
    """A change: `+1,204` for counts, `−10.7 points` (percentage points) for rates."""
    if missing(value):
        return MISSING
    number = float(value)
    if rate:
        text = f"{number * 100:+.1f} points"
    elif number.is_integer():
        text = f"{round(number):+,}"
    else:
        text = f"{number:+,.1f}"
    return _minus(text)


def signed_percent(value: Any) -> str:
    """A relative change: `-0.2042` → `−20.4%`; one that rounds to nothing is `0.0%`
    (an interval's end at 0.9999 of the rest is no "−0.0%")."""
    if missing(value) or math.isinf(float(value)):
        return MISSING
    text = f"{float(value) * 100:+.1f}%"
    return "0.0%" if float(text[:-1]) == 0 else _minus(text)


def relative(value: Any) -> str:
    """A ratio to a baseline as a percentage against it: `1.17` → `+17.0%`, `0.71` →
    `−29.0%` (read 29% less than the rest)."""
    if missing(value) or math.isinf(float(value)):
        return MISSING
    return signed_percent(float(value) - 1)


def days(value: Any) -> str:
    """A number of days: `2.5` → `2.5 days`, `1` → `1 day`."""
    if missing(value):
        return MISSING
    return f"{count(value)} day{'' if float(value) == 1 else 's'}"


def signed_days(value: Any) -> str:
    """A change in days: `+2 days`, `−0.5 days`."""
    if missing(value):
        return MISSING
    return f"{signed(value)} day{'' if abs(float(value)) == 1 else 's'}"


def hour(value: Any) -> str:
    """An hour of the day: `9` → `09:00`."""
    return MISSING if missing(value) else f"{int(value):02d}:00"


def interval(value: Any, low: Any, high: Any, shown: Callable[[Any], str]) -> str:
    """A value and its interval in one cell: `66.3% (65.9–66.7%)`, `−29.0% (−48.9% to
    −2.5%)` (signed ends are joined by "to": a dash between signs misreads)."""
    text = shown(value)
    if missing(low) or missing(high):
        return text
    first, last = shown(low), shown(high)
    if signed_ends(first, last):
        return f"{text} ({first} to {last})"
    unit = _unit(first)  # said once, after the last end: "65.9–66.7%", "0–1 day"
    if unit and unit.removesuffix("s") == _unit(last).removesuffix("s"):
        first = first.removesuffix(unit)
    return f"{text} ({first}\u2013{last})"


def _unit(text: str) -> str:
    """What follows a number's last digit: "%" of "66.7%", " days" of "3 days"."""
    found = _UNIT.search(text)
    return found[0] if found else ""


def signed_ends(first: str, last: str) -> bool:
    """Whether an interval's ends carry signs: joined by "to", not a dash."""
    return first[:1] in ("+", MINUS) or last[:1] in ("+", MINUS)


def direction(value: Any) -> str:
    """`up`, `down` or `flat`: the CSS class of a change."""
    if missing(value) or float(value) == 0:
        return "flat"
    return "up" if float(value) > 0 else "down"


def news(row: Mapping[Any, Any]) -> str:
    """The CSS class of a KPI row's change (`wh.kpis()`): `up` or `down` only when it is
    news. A value within its usual range is `flat` whatever its change: an ordinary week's
    wobble coloured red reads as a loss, the very misreading the usual range is there to end.
    """
    low: Any = row.get("usual_low")
    high: Any = row.get("usual_high")
    value: Any = row.get("value")
    if not any(missing(v) for v in (low, high, value)) and low <= value <= high:
        return "flat"
    return direction(row.get("delta"))


def day(value: Any) -> str:
    """The date alone: `2026-03-29`, also of a timestamp."""
    if missing(value):
        return MISSING
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def moment(value: Any) -> str:
    """A date, or a time to the minute (midnight shows as the date alone)."""
    if missing(value):
        return MISSING
    if isinstance(value, datetime):
        if (value.hour, value.minute, value.second) == (0, 0, 0):
            return value.date().isoformat()
        zone = value.tzname() or ""
        return f"{value:%Y-%m-%d %H:%M} {zone}".strip()
    return day(value)


def local_time(value: Any, tz: ZoneInfo) -> str:
    """An aware timestamp shown in `tz`, to the minute: `2026-11-20 09:30`."""
    if missing(value):
        return MISSING
    if not isinstance(value, datetime):
        return str(value)
    shown: datetime = value
    if shown.tzinfo is not None:
        shown = shown.astimezone(tz)
    return shown.strftime("%Y-%m-%d %H:%M")


def age(seconds: float) -> str:
    """How long ago, in the largest unit that says it: `3 minutes`, `2 hours`, `5 days`."""
    seconds = max(0.0, seconds)
    for unit, size in (("day", 86_400), ("hour", 3_600), ("minute", 60)):
        if seconds >= size:
            amount = int(seconds // size)
            return f"{amount} {unit}{'' if amount == 1 else 's'}"
    return "less than a minute"
