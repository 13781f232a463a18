"""The day/month order of a channelkit posts file's dates, judged over the whole column.

A posts file writes dates YYYY-MM-DD, but a spreadsheet set to another locale writes
`02/03/2027 10:00`. Such dates are read by the rule other tools' files follow
(`layout_times.settle`, docs/metrics.md "Day/month order"): rows written both ways refuse
the column, one row alone never settles the others, and a date both orders read
differently is refused as ambiguous unless the column or `--date-order` settles it. A date
read for certain is handed on as `YYYY-MM-DD HH:MM`, which `publish.times` reads.

    rows, problems = settled_dates(("channel", "scheduled_at"), rows, picked=None)

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from channelkit.errors import FieldError
from channelkit.publish.layouts.stamps import Stamp, native_text, settle, stamp

_DATE_FIELDS = ("scheduled_at", "date")

Rows = list[tuple[int, tuple[object, ...]]]


def settled_dates(
    fields: Sequence[str | None], rows: Sequence[tuple[int, tuple[object, ...]]], picked: str | None
) -> tuple[Rows, dict[int, tuple[FieldError, ...]]]:
    """The rows with each A/B/YYYY date read for certain rewritten as YYYY-MM-DD, and per
    row number the errors of the dates that cannot be (ambiguous, or the column written
    both ways). `picked` is the user's `--date-order` (`dmy`, `mdy` or None)."""
    kept: Rows = list(rows)
    problems: dict[int, tuple[FieldError, ...]] = {}
    for index, field in enumerate(fields):
        if field not in _DATE_FIELDS:
            continue
        stamps: dict[int, Stamp] = {}
        for number, cells in kept:
            read = stamp(cells[index]) if isinstance(cells[index], str) else None
            if isinstance(read, Stamp) and not read.ordered:
                stamps[number] = read
        if not stamps:
            continue
        order = settle(stamps, picked)
        for position, (number, cells) in enumerate(kept):
            read = stamps.get(number)
            if read is None:
                continue
            day = order.day(read)
            if isinstance(day, str):
                problems[number] = (*problems.get(number, ()), FieldError("scheduled_at", day))
                continue
            text = (
                native_text(day, read.clock, read.offset)
                if read.clock is not None
                else day.isoformat()
            )
            kept[position] = (number, (*cells[:index], text, *cells[index + 1 :]))
    return kept, problems
