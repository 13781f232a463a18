"""What people type as a publishing time, turned into an aware UTC datetime.

Accepted: aware or naive `datetime`, ISO-like text (`2026-12-01 09:00`, `2026-12-01T09:00:00Z`,
`2026-12-01 09:00+01:00`), Excel date serials (numbers, as spreadsheets store dates), and a
separate date and time. Naive times are read in a time zone; a wall time that a daylight
saving change skips or repeats is an error, never a silent guess. Pure: no I/O.

This is the one parser of every entry point (spreadsheets, `ck.schedule`, widgets, calendar
files), and it keeps the service's rules (`channelkit._spec`): fractions of a second are
dropped first, before anything else sees the time (the service keeps whole seconds, so
idempotency keys and duplicate checks agree with it); offsets beyond +-18:00 and instants
outside 0001..9999 (in UTC) are refused. Whatever the input, the only exception is
`TimeError`, which callers report as a row error.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

from channelkit import _tz
from channelkit._constants import DURATION_MAX_DAYS, EXCEL_SERIAL_MAX, EXCEL_SERIAL_MIN
from channelkit._spec import OFFSET_MAX, to_instant
from channelkit.errors import InvalidParameterError, TimeError

_EXCEL_EPOCH = datetime(1899, 12, 30)  # serial 1 = 1900-01-01 once Excel's leap bug is past
_ISO = re.compile(
    r"(?P<y>\d{4})-(?P<mo>\d{1,2})-(?P<d>\d{1,2})"
    r"(?:[ T]+(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,]\d+)?)?)?"
    r"\s*(?P<off>Z|z|UTC|[+-]\d{2}:?\d{2})?"
)
# 20/12/2026 or 12.20.2026: day and month in either order, read only when one order works
_SLASHED = re.compile(
    r"(?P<a>\d{1,2})(?P<sep>[./])(?P<b>\d{1,2})(?P=sep)(?P<y>\d{4})(?P<rest>.*)", re.DOTALL
)
_SECOND = timedelta(seconds=1)
_DATE = re.compile(r"(?P<y>\d{4})-(?P<mo>\d{1,2})-(?P<d>\d{1,2})")
_TIME = re.compile(r"(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.\d+)?)?")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?")
_FORMAT_HINT = "use YYYY-MM-DD HH:MM, for example 2026-12-01 09:00"
_SHORT_YEAR = re.compile(r"(?P<date>\d{1,2}(?P<sep>[./-])\d{1,2}(?P=sep)(?P<yy>\d{2}))(?=$|[\sT,])")


_DURATION = re.compile(
    r"\s*(?:(?P<d>\d+)\s*d)?\s*(?:(?P<h>\d+)\s*h)?\s*(?:(?P<m>\d+)\s*m(?:in)?)?\s*"
)


def time_zone(name: str) -> ZoneInfo:
    """The IANA time zone `name`, or `UnknownZoneError` (a `TimeError`, so a row error with
    the one message of every entry, `_tz.unknown_zone`)."""
    return _tz.load_zone(name, param="")


def format_offset(offset: timedelta | None) -> str:
    """`+02:00` style text for a UTC offset."""
    minutes = int((offset or timedelta()).total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    hours, minutes = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def localize(naive: datetime, zone: ZoneInfo) -> datetime:
    """Read the wall time `naive` in `zone`; return it in UTC.

    Raises `TimeError` for wall times that do not exist (clocks jump forward) or exist twice
    (clocks go back): both are real mistakes in a publishing plan.
    """
    naive = naive.replace(microsecond=0)
    first = naive.replace(tzinfo=zone, fold=0)
    second = naive.replace(tzinfo=zone, fold=1)
    try:
        offsets = first.utcoffset(), second.utcoffset()
        wall_again = first.astimezone(UTC).astimezone(zone).replace(tzinfo=None)
    except (OverflowError, ValueError):  # a wall time at the very edge of year 1 or 9999
        return _checked(first)
    if offsets[0] != offsets[1]:
        shown = naive.strftime("%Y-%m-%d %H:%M")
        if wall_again != naive:
            # Read with the offset before and after the change, the wall time lands on
            # either side of the skipped hour: those are the two times meant.
            before = second.astimezone(UTC).astimezone(zone)
            after = first.astimezone(UTC).astimezone(zone)
            raise TimeError(
                f"{shown} does not exist in {zone.key}: the clocks skip forward that night "
                f"(daylight saving time); choose {before:%H:%M} (before the change) or "
                f"{after:%H:%M} (after it)"
            )
        raise TimeError(
            f"{shown} happens twice in {zone.key}: the clocks go back that night; add the "
            f"offset to say which, {shown}{format_offset(first.utcoffset())} (first) or "
            f"{shown}{format_offset(second.utcoffset())} (second)"
        )
    return _checked(first)


def offset_if_repeated(local: datetime) -> str:
    """`+02:00` when the wall time of the aware `local` happens twice in its zone (the
    clocks go back that night: the wall time alone does not say which), else ""."""
    other = local.replace(fold=1 - local.fold)
    return format_offset(local.utcoffset()) if other.utcoffset() != local.utcoffset() else ""


def checked_duration(seconds: int, text: str, *, param: str) -> timedelta:
    """`seconds` as a duration, or one line naming `param` beyond DURATION_MAX_DAYS (no
    shift, window or age is that long: a typo, which `timedelta` would meet with an
    OverflowError)."""
    if seconds > DURATION_MAX_DAYS * 86_400:
        raise InvalidParameterError(
            param, f"{text.strip()!r} is longer than {DURATION_MAX_DAYS:,} days; give less"
        )
    return timedelta(seconds=seconds)


def parse_gap(text: str, *, param: str = "min_gap") -> timedelta:
    """`"2h"`, `"90m"`, `"1h30m"`, `"1d"` as a duration; `InvalidParameterError` (naming
    `param`) otherwise."""
    match = _DURATION.fullmatch(text.lower())
    if not text.strip() or match is None or not (match["d"] or match["h"] or match["m"]):
        raise InvalidParameterError(
            param, f"{text!r} is not a duration; write it like 2h, 90m, 1h30m or 1d"
        )
    minutes = (int(match["d"] or 0) * 24 + int(match["h"] or 0)) * 60 + int(match["m"] or 0)
    return checked_duration(minutes * 60, text, param=param)


def shifted(moment: datetime, by: timedelta, zone: ZoneInfo) -> datetime:
    """`moment` moved `by` as people mean it, in UTC: its whole days on the local calendar
    of `zone` (09:00 a day later is 09:00 again across a clock change), the rest as
    elapsed time. A wall time the change skips or repeats is a `TimeError` naming both
    choices, never a silent guess.

    >>> berlin = ZoneInfo("Europe/Berlin")
    >>> shifted(datetime(2027, 10, 30, 7, tzinfo=UTC), timedelta(days=1), berlin)
    datetime.datetime(2027, 10, 31, 8, 0, tzinfo=datetime.timezone.utc)
    """
    wall = moment.astimezone(zone).replace(tzinfo=None)
    try:
        moved = wall + timedelta(days=by.days)
    except OverflowError:
        raise TimeError(f"{_show(moment)} moved by {by.days:,} days is past year 9999") from None
    return _checked(localize(moved, zone) + (by - timedelta(days=by.days)))


def missed_time(
    scheduled_at: datetime,
    now: datetime,
    publish_missed: bool,
    shift: timedelta | None,
    tz: ZoneInfo,
) -> datetime | None | str:
    """When a post that waited (held, or awaiting approval) goes out: its time; a missed
    one's time plus `shift` (its days on the calendar of `tz`: `shifted`), or None (at
    once) with `publish_missed`; "missed" when it keeps waiting. The one rule of `release`
    and `approve`."""
    if scheduled_at > now:
        return scheduled_at
    if shift is not None:
        moved = shifted(scheduled_at, shift, tz)
        return moved if moved > now else "missed"
    return None if publish_missed else "missed"


def parse_when(value: object, *, tz: ZoneInfo | None) -> datetime:
    """`value` as an aware UTC datetime; naive values are read in `tz`.

    >>> parse_when("2026-12-01 09:00:30.5", tz=ZoneInfo("Europe/Berlin")).isoformat()
    '2026-12-01T08:00:30+00:00'
    """
    return _guarded(lambda: _to_utc(_to_datetime(value), tz, shown=value), value)


def combine_date_time(date_value: object, time_value: object, *, tz: ZoneInfo | None) -> datetime:
    """A separate date and time of day (two spreadsheet columns) as an aware UTC datetime."""

    def combine() -> datetime:
        day = _to_date(date_value)
        clock = _to_time(time_value)
        return _to_utc(datetime.combine(day, clock), tz, shown=f"{day} {clock:%H:%M}")

    return _guarded(combine, f"{date_value} {time_value}")


def _guarded(parse: Callable[[], datetime], shown: object) -> datetime:
    """`parse()`, with anything but a `TimeError` (a value no rule foresaw) turned into one."""
    try:
        return parse()
    except TimeError:
        raise
    except (ValueError, OverflowError, TypeError, ArithmeticError) as exc:
        raise TimeError(f"{_show(shown)} is not a usable date and time ({exc})") from None


def _checked(moment: datetime) -> datetime:
    """An aware `moment` in UTC, whole seconds, within the service's range, or `TimeError`."""
    try:
        seconds = to_instant(moment)  # the service's own rule; never overflows
    except ValueError as exc:
        raise TimeError(f"{_show(moment)} {exc}") from None
    return datetime(1970, 1, 1, tzinfo=UTC) + seconds * _SECOND


def excel_serial_to_datetime(serial: float) -> datetime:
    """A naive datetime for an Excel serial (1900 date system), to the second."""
    if not EXCEL_SERIAL_MIN <= serial <= EXCEL_SERIAL_MAX + 1:
        raise TimeError(
            f"{_show_number(serial)} is not a date between 2000 and 2099 (as an Excel date "
            f"number); {_FORMAT_HINT}"
        )
    # Whole seconds, truncated like every other time; rounding to microseconds first keeps
    # binary noise (09:00:29.9999999 for 09:00:30) from losing a second.
    microseconds = round(serial * 86_400 * 1_000_000)
    return _EXCEL_EPOCH + timedelta(seconds=microseconds // 1_000_000)


def _to_utc(moment: datetime, tz: ZoneInfo | None, *, shown: object) -> datetime:
    moment = moment.replace(microsecond=0)  # before anything else: the service keeps seconds
    if moment.tzinfo is not None and moment.utcoffset() is not None:
        return _checked(moment)
    if tz is None:
        raise TimeError(
            f"{_show(shown)} has no time zone: give a time zone (tz, or a timezone column) "
            "or write the offset, for example 2026-12-01 09:00+01:00"
        )
    return localize(moment.replace(tzinfo=None), tz)


def _to_datetime(value: object) -> datetime:
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        raise TimeError(f"{value.isoformat()} has no time of day; add one, e.g. {value} 09:00")
    if isinstance(value, bool):
        raise TimeError(f"{value!r} is not a date and time; {_FORMAT_HINT}")
    if isinstance(value, int | float):
        return excel_serial_to_datetime(_float(value))
    if isinstance(value, str):
        return _parse_text(value.strip())
    raise TimeError(f"{_show(value)} is not a date and time; {_FORMAT_HINT}")


def _parse_text(text: str) -> datetime:
    if _NUMBER.fullmatch(text):
        return excel_serial_to_datetime(float(text))
    match = _ISO.fullmatch(_day_first_to_iso(text) or text)
    if match is None and (hint := short_year(text)) is not None:
        raise TimeError(hint)
    if match is None:
        ambiguous = re.match(r"\d{1,2}[./]\d{1,2}[./]", text) is not None
        hint = "day and month order is ambiguous; " if ambiguous else ""
        raise TimeError(f"cannot read {text!r} as a date and time; {hint}{_FORMAT_HINT}")
    if match["h"] is None:
        raise TimeError(f"{text!r} has no time of day; add one, e.g. {text} 09:00")
    try:
        moment = datetime(
            int(match["y"]),
            int(match["mo"]),
            int(match["d"]),
            int(match["h"]),
            int(match["mi"]),
            int(match["s"] or 0),  # a fraction of a second is dropped, as the service does
        )
    except ValueError as exc:
        raise TimeError(f"{text!r} is not a valid date and time ({exc})") from None
    offset = match["off"]
    if offset is None:
        return moment
    return moment.replace(tzinfo=_offset_zone(offset))


def _day_first_to_iso(text: str) -> str | None:
    """`12/20/2026 09:00` as `2026-12-20 09:00` when only one order of day and month is a
    date (20 cannot be a month), or when both orders give the same date (`05/05/2026`);
    None when the text is not of that form or could be read both ways."""
    match = _SLASHED.fullmatch(text)
    if match is None:
        return None
    a, b = int(match["a"]), int(match["b"])
    readings = {(month, day) for month, day in ((a, b), (b, a)) if 1 <= month <= 12}
    if len(readings) != 1:
        return None  # both orders possible (or neither): refused, naming the ambiguity
    ((month, day),) = readings
    return f"{match['y']}-{month:02d}-{day:02d}{match['rest']}"


def short_year(text: str) -> str | None:
    """The one-line hint for a date written with a two-digit year (`03/04/27 10:00`), which
    no reader can place in a century for certain; None for any other text."""
    match = _SHORT_YEAR.match(text.strip())
    if match is None:
        return None
    return (
        f"{text.strip()!r} writes the year with two digits ({match['yy']}): write all four "
        f"(20{match['yy']}?), or the date as YYYY-MM-DD"
    )


def _offset_zone(text: str) -> tzinfo:
    if text.upper() in {"Z", "UTC"}:
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:])
    offset = timedelta(hours=hours, minutes=minutes)
    if minutes >= 60 or offset > OFFSET_MAX:
        raise TimeError(
            f"the UTC offset {text} is not possible: offsets go from -18:00 to +18:00 (minutes "
            "below 60), for example +01:00"
        )
    return timezone(sign * offset)


def _to_date(value: object) -> date:
    if isinstance(value, datetime):
        if value.time() != time():
            raise TimeError(f"date {_show(value)} also has a time of day; put only the date there")
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return excel_serial_to_datetime(float(value)).date()
    if isinstance(value, str):
        text = value.strip()
        if _NUMBER.fullmatch(text):
            return excel_serial_to_datetime(float(text)).date()
        match = _DATE.fullmatch(_day_first_to_iso(text) or text)
        if match is not None:
            try:
                return date(int(match["y"]), int(match["mo"]), int(match["d"]))
            except ValueError as exc:
                raise TimeError(f"{text!r} is not a valid date ({exc})") from None
        if (hint := short_year(text)) is not None:
            raise TimeError(hint)
    raise TimeError(f"cannot read {_show(value)} as a date; use YYYY-MM-DD, e.g. 2026-12-01")


def _to_time(value: object) -> time:
    if isinstance(value, datetime):
        return value.time().replace(microsecond=0)
    if isinstance(value, time):
        if value.tzinfo is not None:
            raise TimeError(f"time {value} carries its own offset; give the offset with the date")
        return value.replace(microsecond=0)
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value < 1:
        return excel_serial_to_datetime(EXCEL_SERIAL_MIN + float(value)).time()
    if isinstance(value, str):
        match = _TIME.fullmatch(value.strip())
        if match is not None:
            try:
                return time(int(match["h"]), int(match["mi"]), int(match["s"] or 0))
            except ValueError as exc:
                raise TimeError(f"{value.strip()!r} is not a valid time ({exc})") from None
    raise TimeError(f"cannot read {_show(value)} as a time of day; use HH:MM, e.g. 09:00")


def _show(value: object) -> str:
    if isinstance(value, datetime):
        offset = value.utcoffset() if value.tzinfo is not None else None
        zone = "" if offset is None else format_offset(offset)
        return f"{value.year:04d}-{value:%m-%d %H:%M}{zone}"
    if isinstance(value, float):
        return _show_number(value)
    text = str(value)
    return repr(text if len(text) <= 40 else text[:39] + "…")


def _float(value: float) -> float:
    try:
        return float(value)
    except OverflowError:  # an integer beyond any float: certainly no date
        return math.inf


def _show_number(value: float) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() and abs(number) < 1e15 else f"{number:g}"
