"""Cron's five fields, and the instants a schedule names in its own time zone.

    Cron.parse("0 8 * * 1", ZoneInfo("Europe/Berlin")).slots(start, end)   # Mondays 08:00, as UTC

Our own parser, not croniter: croniter's answers across a clock change have been wrong
again and again (taichino/croniter#35, #82, #90; pallets-eco/croniter#191, October 2025:
`10 3 * * 0` in Europe/Prague answered an instant an hour after a Sunday's slot), and the
watcher's whole point is no false alarm on those days. Five fields of numbers, ranges,
lists and steps (and month and weekday names) are small, and the rules below are ours to
state and test.

The clock-change rules (docs/reports.md, "Watching the jobs"), those of Vixie cron as its
users describe them ("cron Will Respond To Daylight Saving Changes", unix.com, from the
HP-UX cron manual): a job whose hour field is not `*` and whose time falls in the hour the
clocks skip runs that much later (02:30 on the spring-forward day runs at 03:30), once
even if that is also another of its times; such a job's time that happens twice (the
autumn hour) runs at its first occurrence only. A job with `*` as its hour runs by the
wall clock: at every occurrence of a repeated time, and not in the skipped hour.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo

from channelkit.errors import InvalidParameterError

_NAMES = {
    3: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
    4: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"],
}
_FIELDS = (
    ("minute", 0, 59),
    ("hour", 0, 23),
    ("day of month", 1, 31),
    ("month", 1, 12),
    ("day of week", 0, 7),
)
_DAYS_BACK = 366 * 4  # far enough for any five fields that name a date at all (29 Feb)


@dataclass(frozen=True)
class Cron:
    """A five-field cron expression evaluated in the IANA zone `tz`.

    Cron.parse("30 2 * * *", ZoneInfo("Europe/Berlin")).slots(
        datetime(2027, 3, 28, tzinfo=UTC), datetime(2027, 3, 29, tzinfo=UTC)
    )
    """

    text: str
    tz: ZoneInfo  # resolved where the job is read (watch/config.py)
    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday (7 is read as 0)
    any_day: bool  # the day-of-month field is `*`
    any_weekday: bool
    by_wall_clock: bool  # the hour field is `*`: the clock-change rule of such jobs

    @classmethod
    def parse(cls, text: str, tz: ZoneInfo) -> Cron:
        """Read `text`; an `InvalidParameterError` names the field that is wrong."""
        parts = text.split()
        if len(parts) != len(_FIELDS):
            raise InvalidParameterError(
                "cron", f"{text!r}: expected 5 fields (minute hour day month weekday)"
            )
        values = [_field(part, index) for index, part in enumerate(parts)]
        return cls(
            text=" ".join(parts),
            tz=tz,
            minutes=values[0],
            hours=values[1],
            days=values[2],
            months=values[3],
            weekdays=frozenset(v % 7 for v in values[4]),
            any_day=parts[2].startswith("*"),
            any_weekday=parts[4].startswith("*"),
            by_wall_clock=parts[1] == "*",
        )

    def _on(self, day: date) -> bool:
        if day.month not in self.months:
            return False
        by_day = day.day in self.days
        by_weekday = (day.isoweekday() % 7) in self.weekdays
        if self.any_day or self.any_weekday:  # cron's rule: both restricted means either
            return by_day and by_weekday
        return by_day or by_weekday

    def slots(self, start: datetime, end: datetime) -> list[datetime]:
        """The instants (UTC) in [start, end) at which the job is due."""
        zone = self.tz
        first = start.astimezone(zone).date() - timedelta(days=1)
        last = end.astimezone(zone).date() + timedelta(days=1)
        found: set[datetime] = set()
        day = first
        while day <= last:
            found.update(t for t in _day_slots(self, day) if start <= t < end)
            day += timedelta(days=1)
        return sorted(found)

    def last_slot(self, until: datetime) -> datetime | None:
        """The latest instant at or before `until` at which the job was due."""
        zone = self.tz
        day = until.astimezone(zone).date() + timedelta(days=1)
        for _ in range(_DAYS_BACK):
            earlier = [t for t in _day_slots(self, day) if t <= until]
            if earlier:
                return max(earlier)
            day -= timedelta(days=1)
        return None


@lru_cache(maxsize=4096)
def _day_slots(cron: Cron, day: date) -> tuple[datetime, ...]:
    """The UTC instants of the job's times on the local `day`, by the clock-change rules."""
    if not cron._on(day):
        return ()
    zone = cron.tz
    found: set[datetime] = set()
    for hour in sorted(cron.hours):
        for minute in sorted(cron.minutes):
            wall = datetime.combine(day, time(hour, minute))
            first = wall.replace(tzinfo=zone)
            second = wall.replace(tzinfo=zone, fold=1)
            skipped = first.astimezone(UTC).astimezone(zone).replace(tzinfo=None) != wall
            if skipped:
                if not cron.by_wall_clock:
                    # zoneinfo reads a skipped time with the offset before the change:
                    # 02:30+01:00 is 03:30+02:00, the time moved on by the hour skipped.
                    found.add(first.astimezone(UTC))
                continue
            found.add(first.astimezone(UTC))
            if cron.by_wall_clock and second.utcoffset() != first.utcoffset():
                found.add(second.astimezone(UTC))  # the repeated hour, by the wall clock
    return tuple(sorted(found))


def _field(text: str, index: int) -> frozenset[int]:
    name, low, high = _FIELDS[index]
    values: set[int] = set()
    for part in text.split(","):
        values |= _part(part, index, name, low, high)
    return frozenset(values)


def _part(part: str, index: int, name: str, low: int, high: int) -> set[int]:
    body, _, step_text = part.partition("/")
    step = _number(step_text, index, name) if step_text else 1
    if step < 1:
        raise InvalidParameterError("cron", f"{name}: step {step_text!r} must be 1 or more")
    if body == "*":
        first, last = low, high
    elif "-" in body:
        a, _, b = body.partition("-")
        first, last = _number(a, index, name), _number(b, index, name)
    else:
        first = _number(body, index, name)
        last = high if step_text else first
    if not (low <= first <= high and low <= last <= high) or first > last:
        raise InvalidParameterError(
            "cron", f"{name}: {part!r} is outside {low}-{high} (or a range that runs backwards)"
        )
    return set(range(first, last + 1, step))


def _number(text: str, index: int, name: str) -> int:
    names = _NAMES.get(index)
    if names and text.lower() in names:
        return names.index(text.lower()) + (1 if index == 3 else 0)
    if not text.isdigit():
        raise InvalidParameterError("cron", f"{name}: {text!r} is not a number")
    return int(text)
