"""Posting slots: filling blank times from a schedule, and posts crowding one channel.

    rule = parse_slots("mon-fri 09:00,13:30")       # ((0, 09:00), (0, 13:30), (1, ...
    next_free_slot(rule, "Europe/Berlin", after=now, taken=[...], min_gap=timedelta(0))
    too_close(placed, timedelta(hours=2))          # pairs of posts closer than 2 hours

A slot is a weekday and a wall time in the channel's time zone; wall times that a
daylight-saving change skips or repeats are passed over. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from channelkit._constants import PUBLISH_SLOT_HORIZON_DAYS
from channelkit._tz import UTC_ZONE
from channelkit.errors import InvalidParameterError, TimeError
from channelkit.publish.post.row_types import cell_text
from channelkit.publish.post.times import localize, time_zone
from channelkit.publish.sheets.sheet import Sheet, SheetRow

WEEKDAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
Slot = tuple[int, time]  # weekday (0 = Monday), wall time
_TIME_FIELDS = ("scheduled_at", "date", "time")
_CLOCK = re.compile(r"(?P<h>\d{1,2}):(?P<m>\d{2})")


def parse_slots(text: str) -> tuple[Slot, ...]:
    """`"mon-fri 09:00,13:30"` (groups joined by `;`, e.g. `"mon-fri 09:00; sat 11:00"`).

    Days: names (`mon`), ranges (`mon-fri`), lists (`mon,wed`), `daily`; a group without
    days means every day. Raises `InvalidParameterError` (param `slots`) for anything else.
    """
    slots: set[Slot] = set()
    for group in text.split(";"):
        group = group.strip()
        if not group:
            continue
        days_text, _, times_text = group.rpartition(" ")
        days = _days(days_text.strip()) if days_text.strip() else range(7)
        for clock in times_text.split(","):
            wall = _clock(clock.strip())
            slots.update((day, wall) for day in days)
    if not slots:
        raise InvalidParameterError(
            "slots", f"{text!r} names no slot; write days and times, e.g. 'mon-fri 09:00,13:30'"
        )
    return tuple(sorted(slots))


def next_free_slot(
    slots: Sequence[Slot],
    zone: ZoneInfo,
    *,
    after: datetime,
    taken: Iterable[datetime],
    min_gap: timedelta,
) -> datetime | None:
    """The first slot at or after `after` that no `taken` time is closer to than `min_gap`
    (or, with no gap, that no taken time occupies); None within the horizon."""
    busy = sorted(taken)
    first_day = after.astimezone(zone).date()
    for offset in range(PUBLISH_SLOT_HORIZON_DAYS):
        if offset > (date.max - first_day).days:
            return None  # the calendar ends (year 9999) before the horizon does
        day = first_day + timedelta(days=offset)
        for weekday, wall in slots:
            if weekday != day.weekday():
                continue
            moment = _moment(day, wall, zone)
            if moment is None or moment < after:
                continue
            if all(_apart(moment, other, min_gap) for other in busy):
                return moment
    return None


@dataclass(frozen=True)
class Filled:
    """A blank time filled from the slots: the row, its channel and the chosen time."""

    row: int
    channel: str
    moment: datetime
    zone: ZoneInfo


def fill_blank_times(
    sheet: Sheet,
    *,
    slots_for: Callable[[str], Sequence[Slot]],
    channel_key: Callable[[str], str],
    default_zone: ZoneInfo | None,
    after: datetime,
    taken: Mapping[str, Iterable[datetime]],
    min_gap: timedelta,
) -> tuple[Sheet, list[Filled], list[int]]:
    """`sheet` with blank times of new rows (no `id`) filled, in row order, per channel.

    `channel_key` turns a channel cell into the key of `taken` (a channel id when it can
    be resolved); `slots_for(key)` gives that channel's slots. Returns the new sheet, what
    was filled, and the rows for which no slot was free within the horizon.
    """
    fields = list(sheet.fields)
    busy = {key: list(times) for key, times in taken.items()}
    filled: list[Filled] = []
    missing: list[int] = []
    rows: list[SheetRow] = []
    for sheet_row in sheet.rows:
        values = dict(zip(fields, sheet_row.cells, strict=True))
        channel = fillable_channel(values)
        if channel is None:
            rows.append(sheet_row)
            continue
        key = channel_key(channel)
        try:
            zone = _row_zone(values, sheet.zone or default_zone)
            moment = next_free_slot(
                slots_for(key), zone, after=after, taken=busy.get(key, ()), min_gap=min_gap
            )
        except TimeError:
            moment = None  # an unknown zone: validation names it on the row
        if moment is None:
            missing.append(sheet_row.number)
            rows.append(sheet_row)
            continue
        busy.setdefault(key, []).append(moment)
        filled.append(Filled(sheet_row.number, channel, moment, zone))
        rows.append(SheetRow(sheet_row.number, _with_time(fields, sheet_row.cells, moment, zone)))
    return dataclasses.replace(sheet, rows=tuple(rows)), filled, missing


def fillable_channel(values: Mapping[str | None, object]) -> str | None:
    """The channel of a new row (no `id`) whose time is blank: a row slots may fill."""
    blank = all(cell_text(values.get(name)) is None for name in _TIME_FIELDS)
    if not blank or cell_text(values.get("id")) is not None:
        return None
    return cell_text(values.get("channel"))


def _with_time(
    fields: Sequence[str | None], cells: Sequence[object], moment: datetime, zone: ZoneInfo
) -> tuple[object, ...]:
    local = moment.astimezone(zone)
    updated = list(cells)
    for index, name in enumerate(fields):
        if name == "scheduled_at":
            updated[index] = f"{local:%Y-%m-%d %H:%M}"
        elif name == "date" and "scheduled_at" not in fields:
            updated[index] = f"{local:%Y-%m-%d}"
        elif name == "time" and "scheduled_at" not in fields:
            updated[index] = f"{local:%H:%M}"
    return tuple(updated)


@dataclass(frozen=True)
class PlacedPost:
    """A post at its time in a channel: a row of the file (`row`) or one on the service."""

    channel: str
    moment: datetime
    label: str
    row: int | None = None


def too_close(placed: Iterable[PlacedPost], gap: timedelta) -> list[tuple[PlacedPost, PlacedPost]]:
    """Neighbouring posts of one channel closer than `gap`; at least one from the file."""
    by_channel: dict[str, list[PlacedPost]] = {}
    for item in placed:
        by_channel.setdefault(item.channel, []).append(item)
    pairs: list[tuple[PlacedPost, PlacedPost]] = []
    for items in by_channel.values():
        items.sort(key=lambda item: (item.moment, item.row is None, item.row or 0))
        for first, second in zip(items, items[1:], strict=False):
            close = second.moment - first.moment < gap
            if close and (first.row is not None or second.row is not None):
                pairs.append((first, second))
    pairs.sort(key=lambda pair: min(p.row or 0 for p in pair if p.row is not None))
    return pairs


def describe_gap(delta: timedelta) -> str:
    """`1h 30m`, `45m`, `0m` (same time)."""
    minutes = int(delta.total_seconds() // 60)
    hours, minutes = divmod(abs(minutes), 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m"


def _apart(moment: datetime, other: datetime, gap: timedelta) -> bool:
    distance = abs(moment - other)
    return distance >= gap if gap > timedelta(0) else distance > timedelta(0)


def _row_zone(values: Mapping[str | None, object], default: ZoneInfo | None) -> ZoneInfo:
    """The row's own timezone cell (a `TimeError` when it names no zone), else `default`,
    else UTC."""
    named = cell_text(values.get("timezone"))
    return time_zone(named) if named else default or UTC_ZONE


def _moment(day: date, wall: time, zone: ZoneInfo) -> datetime | None:
    try:
        return localize(datetime.combine(day, wall), zone)
    except TimeError:
        return None  # skipped or repeated by a daylight-saving change: not a usable slot


def _days(text: str) -> list[int]:
    if text.lower() in ("daily", "every day", "all"):
        return list(range(7))
    days: list[int] = []
    for part in text.lower().split(","):
        first, _, last = part.strip().partition("-")
        start, end = _weekday(first), _weekday(last) if last else _weekday(first)
        span = (end - start) % 7
        days.extend((start + step) % 7 for step in range(span + 1))
    return days


def _weekday(text: str) -> int:
    key = text.strip()[:3]
    if key not in WEEKDAY_NAMES:
        raise InvalidParameterError(
            "slots", f"{text.strip()!r} is not a weekday; use mon, tue, wed, thu, fri, sat, sun"
        )
    return WEEKDAY_NAMES.index(key)


def _clock(text: str) -> time:
    match = _CLOCK.fullmatch(text)
    if match is None or int(match["h"]) > 23 or int(match["m"]) > 59:
        raise InvalidParameterError(
            "slots", f"{text!r} is not a time of day; write HH:MM, e.g. 09:00"
        )
    return time(int(match["h"]), int(match["m"]))
