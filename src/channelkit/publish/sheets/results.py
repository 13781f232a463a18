"""What a submission did, row by row, as DataFrames and files people can open.

The failed-rows file has the input's own columns plus `error`, so it can be fixed and
submitted again (the reader ignores an `error` column). Files are written to a temporary
name and moved into place: a crash never leaves a half-written results file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from channelkit._constants import SPREADSHEET_ERROR_COLUMN
from channelkit._tz import UTC_ZONE
from channelkit.display.frames import titled_html
from channelkit.publish.post.duplicates import DuplicateGroup
from channelkit.publish.post.row_types import DONE_STATUSES, PlanRow, RowResult
from channelkit.publish.post.validation import PostRequest
from channelkit.publish.sheets.columns import normalise_header
from channelkit.publish.sheets.sheet import Sheet

if TYPE_CHECKING:
    import pandas as pd


class SubmitResult:
    """The outcome of `Plan.submit`, one `RowResult` per spreadsheet row.

    result = plan.submit(client)
    result.preview()                     # row, status, post id, error
    result.to_excel("results.xlsx")
    if not result.ok:
        result.failed_rows_file("fix-me.xlsx")   # fix, then submit that file
    """

    def __init__(
        self,
        sheet: Sheet,
        rows: Sequence[RowResult],
        *,
        duplicates: Sequence[DuplicateGroup] = (),
    ) -> None:
        self.sheet = sheet
        self.rows = tuple(rows)
        # Places holding several scheduled copies after sending (someone else submitted too).
        self.duplicates = tuple(duplicates)

    def __repr__(self) -> str:
        counts = ", ".join(f"{count} {status}" for status, count in self.counts().items())
        return f"<SubmitResult {self.sheet.source!r}: {counts}>"

    def _repr_html_(self) -> str:
        """In a notebook: the counts over the rows of `preview()`."""
        return titled_html(self.preview(), repr(self).strip("<>"))

    def counts(self) -> dict[str, int]:
        """How many rows ended in each status (only statuses that occur)."""
        counts: dict[str, int] = {}
        for row in self.rows:
            counts[row.status] = counts.get(row.status, 0) + 1
        return counts

    @property
    def created(self) -> int:
        return sum(1 for row in self.rows if row.status == "created")

    @property
    def ok(self) -> bool:
        """True when every row is now scheduled (created now or before)."""
        return all(row.status in DONE_STATUSES for row in self.rows)

    def preview(self) -> pd.DataFrame:
        """One line per row: status, post id, post status, channel, title, time (UTC, and
        local in a column named with its zone), error, and a note for posts sent before.
        Title and time are the post's as the service has it now, when known."""
        import pandas as pd

        local = _LocalColumn(row.request for row in self.rows)
        records = []
        for row in self.rows:
            request = row.request
            when = row.post.scheduled_at if row.post is not None else _requested(request)
            records.append(
                {
                    "row": row.number,
                    "status": row.status,
                    "post_id": row.post_id,
                    "post_status": row.post_status,
                    "channel": row.channel,
                    "channel_id": request.channel_id if request else None,
                    "title": row.post.title if row.post is not None else row.title,
                    "scheduled_at_utc": _utc(when),
                    local.name: local.text(when, request),
                    "error": row.error,
                    "note": row.note,
                }
            )
        columns = [*_RESULT_COLUMNS[:8], local.name, *_RESULT_COLUMNS[8:]]
        return pd.DataFrame.from_records(records, columns=columns)

    def to_excel(self, path: str | Path) -> Path:
        """Write `preview()` to an .xlsx file; returns the path."""
        return write_table(self.preview(), path, kind="xlsx")

    def to_csv(self, path: str | Path) -> Path:
        """Write `preview()` to a UTF-8 CSV file; returns the path."""
        return write_table(self.preview(), path, kind="csv")

    def failed_rows_file(self, path: str | Path) -> Path | None:
        """The rows not scheduled, in the input's columns plus `error` (.xlsx or .csv).

        Returns None (and writes nothing) when every row is scheduled.
        """
        import pandas as pd

        failed = {row.number: row for row in self.rows if row.status not in DONE_STATUSES}
        if not failed:
            return None
        keep = [
            index
            for index, header in enumerate(self.sheet.headers)
            if header and normalise_header(header) != SPREADSHEET_ERROR_COLUMN
        ]
        headers = [self.sheet.headers[index] for index in keep]
        records = [
            [sheet_row.cells[index] for index in keep] + [failed[sheet_row.number].error]
            for sheet_row in self.sheet.rows
            if sheet_row.number in failed
        ]
        frame = pd.DataFrame(records, columns=[*headers, SPREADSHEET_ERROR_COLUMN], dtype=object)
        kind = "csv" if Path(path).suffix.lower() == ".csv" else "xlsx"
        return write_table(frame, path, kind=kind)


_RESULT_COLUMNS = (
    "row",
    "status",
    "post_id",
    "post_status",
    "channel_id",
    "title",
    "channel",
    "scheduled_at_utc",
    "error",
    "note",
)


def plan_frame(rows: Sequence[PlanRow]) -> pd.DataFrame:
    """The DataFrame behind `Plan.preview()`."""
    import pandas as pd

    local = _LocalColumn(row.request for row in rows)
    records = []
    for row in rows:
        request = row.request
        records.append(
            {
                "row": row.number,
                "status": row.status,
                "errors": row.message,
                "value": row.values() or None,
                "channel": row.channel,
                "channel_id": request.channel_id if request and request.channel_name else None,
                "title": row.title,
                "scheduled_at_utc": _utc_text(request),
                local.name: local.text(_requested(request), request),
                "priority": request.priority if request else None,
                "tags": ", ".join(request.tags) if request else None,
                "existing_post_id": row.existing_post_id,
                "sent_before": row.sent_before.describe() if row.sent_before else None,
                "likely_duplicate": row.likely_duplicate.describe()
                if row.likely_duplicate
                else None,
            }
        )
    columns = [*_PLAN_COLUMNS[:8], local.name, *_PLAN_COLUMNS[8:]]
    return pd.DataFrame.from_records(records, columns=columns)


_PLAN_COLUMNS = (
    "row",
    "status",
    "errors",
    "value",
    "channel",
    "channel_id",
    "title",
    "scheduled_at_utc",
    "priority",
    "tags",
    "existing_post_id",
    "sent_before",
    "likely_duplicate",
)


def write_table(frame: pd.DataFrame, path: str | Path, *, kind: str) -> Path:
    """Write `frame` as `kind` ("xlsx" or "csv") to `path` atomically, through the one safe
    writer (`channelkit.export`): a title like `=HYPERLINK(...)` stays text, never a formula.
    """
    from channelkit.export import to_csv, to_excel

    if kind == "csv":
        return to_csv(frame, path, with_header_block=False)
    return to_excel(frame, path)


def _utc_text(request: PostRequest | None) -> str | None:
    return _utc(_requested(request))


def _requested(request: PostRequest | None) -> datetime | None:
    return request.scheduled_at if request is not None else None


def _utc(when: datetime | None) -> str | None:
    return None if when is None else when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class _LocalColumn:
    """The local-time column of a results file, named with its zone: `scheduled_at
    (Europe/Berlin)` when every row has that zone, else `scheduled_at (local)` with the
    zone in each value."""

    def __init__(self, requests: Iterable[PostRequest | None]) -> None:
        zones = {request.tz or UTC_ZONE for request in requests if request is not None}
        self.zone = zones.pop() if len(zones) == 1 else None
        self.name = f"scheduled_at ({self.zone.key if self.zone else 'local'})"

    def text(self, when: datetime | None, request: PostRequest | None) -> str | None:
        if when is None or request is None:
            return None
        zone = request.tz or UTC_ZONE
        wall = when.astimezone(zone)
        return f"{wall:%Y-%m-%d %H:%M}" if self.zone else f"{wall:%Y-%m-%d %H:%M} {zone.key}"
