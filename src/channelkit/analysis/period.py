"""The analysis period: `[start, end)` in a timezone, and the whole days it covers.

Users give `start`/`end` as dates, datetimes or ISO strings. A date (or a bare
`YYYY-MM-DD`) means local midnight in `tz`; a naive datetime is local wall time in `tz`;
an aware datetime is converted to `tz`. Daily rows are whole UTC days that cannot be
split, so a daily row counts in the period when the local midnight of its date lies in
`[start, end)`: for periods that start and end at midnight that is simply
`start_day <= date < end_day`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from channelkit.errors import InvalidParameterError

Moment = date | datetime | str


def check_tz(tz: str) -> ZoneInfo:
    """The `ZoneInfo` for an IANA name, or an error naming `tz`."""
    if not isinstance(tz, str) or not tz.strip():
        raise InvalidParameterError("tz", f"{tz!r} is not an IANA timezone name")
    try:
        return ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidParameterError(
            "tz", f"{tz!r} is not an IANA timezone name (e.g. 'UTC', 'Europe/Berlin')"
        ) from None


def to_local(value: Moment, zone: ZoneInfo, *, param: str) -> datetime:
    """`value` as an aware datetime in `zone` (see the module docstring for the rules)."""
    if isinstance(value, str):
        text = value.strip()
        try:
            value = date.fromisoformat(text) if len(text) == 10 else datetime.fromisoformat(text)
        except ValueError:
            raise InvalidParameterError(
                param, f"{value!r} is not a date (YYYY-MM-DD) or an ISO 8601 date-time"
            ) from None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            return value.replace(tzinfo=zone)
        return value.astimezone(zone)
    if isinstance(value, date):
        return datetime.combine(value, time(), tzinfo=zone)
    raise InvalidParameterError(
        param, f"expected a date, a datetime or an ISO string, got {type(value).__name__}"
    )


def _day_at_or_after(moment: datetime) -> date:
    day = moment.date()
    return day if moment.timetz().replace(tzinfo=None) == time() else day + timedelta(days=1)


@dataclass(frozen=True)
class Period:
    """A half-open period `[start, end)` in `tz`; either end may be open (None).

    >>> p = Period.resolve("2026-03-23", "2026-03-30", "Europe/Berlin")
    >>> p.start_day, p.end_day, p.previous().start_day
    (datetime.date(2026, 3, 23), datetime.date(2026, 3, 30), datetime.date(2026, 3, 16))
    """

    tz: str
    start: datetime | None = None
    end: datetime | None = None

    @classmethod
    def resolve(cls, start: Moment | None, end: Moment | None, tz: str) -> Period:
        zone = check_tz(tz)
        lo = None if start is None else to_local(start, zone, param="start")
        hi = None if end is None else to_local(end, zone, param="end")
        if lo is not None and hi is not None and hi <= lo:
            raise InvalidParameterError(
                "end", f"{hi.isoformat()} is not after start {lo.isoformat()}"
            )
        return cls(tz=tz, start=lo, end=hi)

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.tz)

    @property
    def start_day(self) -> date | None:
        """First UTC date of the daily rows counted in the period."""
        return None if self.start is None else _day_at_or_after(self.start)

    @property
    def end_day(self) -> date | None:
        """First UTC date after the daily rows counted in the period."""
        return None if self.end is None else _day_at_or_after(self.end)

    @property
    def is_whole_days(self) -> bool:
        return all(m is None or m.timetz().replace(tzinfo=None) == time() for m in self.bounds)

    @property
    def bounds(self) -> tuple[datetime | None, datetime | None]:
        return self.start, self.end

    def previous(self) -> Period:
        """The period of the same length immediately before this one.

        Lengths are measured in local wall time, so the week before a DST change is a
        whole week too.
        """
        if self.start is None or self.end is None:
            raise InvalidParameterError("start", "a previous period needs both start and end")
        wall_start = self.start.replace(tzinfo=None)
        length = self.end.replace(tzinfo=None) - wall_start
        return Period(
            tz=self.tz, start=(wall_start - length).replace(tzinfo=self.zone), end=self.start
        )

    @property
    def label(self) -> str:
        """Human-readable period with its timezone, e.g. `2026-03-23 to 2026-03-29 (UTC)`."""
        if self.start is None and self.end is None:
            return f"all time ({self.tz})"
        if self.is_whole_days:
            first = None if self.start is None else self.start.date().isoformat()
            last = None if self.end is None else (self.end.date() - timedelta(days=1)).isoformat()
        else:
            first = None if self.start is None else self.start.strftime("%Y-%m-%d %H:%M")
            last = None if self.end is None else self.end.strftime("%Y-%m-%d %H:%M")
        if first is None:
            return f"until {last} ({self.tz})"
        if last is None:
            return f"from {first} ({self.tz})"
        if first == last:
            return f"{first} ({self.tz})"
        return f"{first} to {last} ({self.tz})"
