"""The words every surface says about what a KPI covers, from this one place.

The notebook's KPI table, the Explorer's tiles, the report, the email and the chat cards
all say a same-age comparison, a provisional number and a value outside its usual range
with these words, so a reader meets one phrase for one thing wherever she reads it:

    from channelkit.display import notes

    notes.kpi_notes(row)        # ["below its usual range (50.8%–52.0%)", "provisional"]
    notes.provisional_line(rows)  # "Provisional: posts of the last days are still ..."

Counts' ranges are whole numbers ("128–180 posts", never "127.5 – 179.7"). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from channelkit.display import numbers
from channelkit.display.kinds import COUNT, KINDS, Kind

SAME_AGE = "compared at the same age"
LIFETIME = "compared with lifetime readers (both periods are older than the reach time)"
PROVISIONAL = "provisional"
PROVISIONAL_WHY = "posts of the last days are still gathering readers; compared at the same age"
SMALL_BASE = "small base"
TO_DATE = "to date"  # a period not over yet: its days so far, against the same days before

Row = Mapping[Any, Any]


def usual_range(row: Row, kind: Kind | None = None) -> str | None:
    """ "50.8%–52.0%" for a rate, "128–180" for a count (`kind`, else the row's `kind`,
    else a count); None without a range; "−801 to 2,174" when it starts below zero."""
    low: Any = row.get("usual_low")
    high: Any = row.get("usual_high")
    if numbers.missing(low) or numbers.missing(high):
        return None
    shown = kind or KINDS.get(str(row.get("kind")), COUNT)
    # A dash after a minus sign reads as a second minus: "−801 to 2,174".
    joint = " to " if float(low) < 0 else "\u2013"
    return f"{shown.text(low)}{joint}{shown.text(high)}"


def usual_side(row: Row) -> str | None:
    """ "within", "below" or "above" its usual range; None without a range or a value."""
    low: Any = row.get("usual_low")
    high: Any = row.get("usual_high")
    value: Any = row.get("value")
    if numbers.missing(low) or numbers.missing(high) or numbers.missing(value):
        return None
    if float(value) < float(low):
        return "below"
    return "above" if float(value) > float(high) else "within"


def outside_usual(row: Row) -> str | None:
    """ "below its usual range (50.8%–52.0%)" (or above); None within it or without one."""
    side = usual_side(row)
    if side is None or side == "within":
        return None
    return f"{side} its usual range ({usual_range(row)})"


def is_provisional(row: Row) -> bool:
    value = row.get("provisional")
    return not numbers.missing(value) and bool(value)


def kpi_notes(row: Row) -> list[str]:
    """What a KPI row's reader must know: outside its usual range, provisional, small base."""
    found = [outside_usual(row)]
    found.append(PROVISIONAL if is_provisional(row) else None)
    small = row.get("small_base")
    found.append(SMALL_BASE if not numbers.missing(small) and bool(small) else None)
    return [note for note in found if note is not None]


def provisional_line(rows: Iterable[Row]) -> str | None:
    """The one line of why, when any of the rows is provisional."""
    return provisional_said(PROVISIONAL for row in rows if is_provisional(row))


def provisional_said(flags: Iterable[str]) -> str | None:
    """The one line of why, when `flags` (of a report's sentences and tiles) say provisional."""
    if PROVISIONAL in flags:
        return f"{PROVISIONAL.capitalize()}: {PROVISIONAL_WHY}."
    return None


def to_date_name(name: str, *, long: bool = True) -> str:
    """A running period's name: "November 2026 to date" (long) or "Nov 2026 (to date)"."""
    return f"{name} {TO_DATE}" if long else f"{name} ({TO_DATE})"
