"""What a submission did, row by row, as DataFrames and files people can open.

The failed-rows file has the input's own columns plus `error`, so it can be fixed and
submitted again (the reader ignores an `error` column). Files are written to a temporary
name and moved into place: a crash never leaves a half-written results file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from channelkit._constants import SPREADSHEET_ERROR_COLUMN
from channelkit._files import as_new_file
from channelkit.publish.columns import normalise_header
from channelkit.publish.spreadsheet import Sheet
from channelkit.publish.validation import PostRequest

if TYPE_CHECKING:
    import pandas as pd

    from channelkit.publish.plan import PlanRow

DONE_STATUSES = ("created", "exists")


@dataclass(frozen=True)
class RowResult:
    """One row's outcome.

    `status`: `created` (sent now, or replayed by its idempotency key), `exists` (already
    scheduled, not sent again), `failed` (the service refused it or could not be reached),
    `invalid` (not sent: validation errors) or `not_sent` (the submission stopped first).
    """

    number: int
    status: str
    request: PostRequest | None = None
    post_id: str | None = None
    post_status: str | None = None
    error: str | None = None


class SubmitResult:
    """The outcome of `Plan.submit`, one `RowResult` per spreadsheet row.

    result = plan.submit(client)
    result.preview()                     # row, status, post id, error
    result.to_excel("results.xlsx")
    if not result.ok:
        result.failed_rows_file("fix-me.xlsx")   # fix, then submit that file
    """

    def __init__(self, sheet: Sheet, rows: Sequence[RowResult]) -> None:
        self.sheet = sheet
        self.rows = tuple(rows)

    def __repr__(self) -> str:
        counts = ", ".join(f"{count} {status}" for status, count in self.counts().items())
        return f"<SubmitResult {self.sheet.source!r}: {counts}>"

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
        """One line per row: status, post id, post status, channel, title, time, error."""
        import pandas as pd

        records = []
        for row in self.rows:
            request = row.request
            records.append(
                {
                    "row": row.number,
                    "status": row.status,
                    "post_id": row.post_id,
                    "post_status": row.post_status,
                    "channel_id": request.channel_id if request else None,
                    "title": request.title if request else None,
                    "scheduled_at_utc": _utc_text(request),
                    "error": row.error,
                }
            )
        return pd.DataFrame.from_records(records, columns=list(_RESULT_COLUMNS))

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
    "scheduled_at_utc",
    "error",
)


def plan_frame(rows: Sequence[PlanRow]) -> pd.DataFrame:
    """The DataFrame behind `Plan.preview()`."""
    import pandas as pd

    records = []
    for row in rows:
        request = row.request
        local = request.local_time() if request else None
        records.append(
            {
                "row": row.number,
                "status": row.status,
                "errors": row.message,
                "channel": (request.channel_name or request.channel_id) if request else None,
                "channel_id": request.channel_id if request and request.channel_name else None,
                "title": request.title if request else None,
                "scheduled_at_utc": _utc_text(request),
                "local_time": f"{local:%Y-%m-%d %H:%M} {request.tz or 'UTC'}"
                if local and request
                else None,
                "priority": request.priority if request else None,
                "tags": ", ".join(request.tags) if request else None,
                "existing_post_id": row.existing_post_id,
            }
        )
    return pd.DataFrame.from_records(records, columns=list(_PLAN_COLUMNS))


_PLAN_COLUMNS = (
    "row",
    "status",
    "errors",
    "channel",
    "channel_id",
    "title",
    "scheduled_at_utc",
    "local_time",
    "priority",
    "tags",
    "existing_post_id",
)


def write_table(frame: pd.DataFrame, path: str | Path, *, kind: str) -> Path:
    """Write `frame` as `kind` ("xlsx" or "csv") to `path` atomically."""
    target = Path(path)
    handle, temporary = tempfile.mkstemp(
        prefix=f".{target.name}.", suffix=f".{kind}", dir=target.parent
    )
    os.close(handle)
    try:
        if kind == "csv":
            frame.to_csv(temporary, index=False, encoding="utf-8")
        else:
            _write_xlsx(frame, temporary)
        as_new_file(temporary)  # for the team, not 0600 like mkstemp
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _write_xlsx(frame: pd.DataFrame, path: str) -> None:
    import pandas as pd
    from openpyxl import Workbook

    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None  # a new workbook has one sheet
    sheet.append([str(column) for column in frame.columns])
    for record in frame.itertuples(index=False, name=None):
        row = [None if value is None or pd.isna(value) else value for value in record]
        sheet.append(row)
        for cell in sheet[sheet.max_row]:
            if isinstance(cell.value, str) and cell.value.startswith("="):
                cell.data_type = "s"  # user text such as "=1+1" stays text, never a formula
    workbook.save(path)


def _utc_text(request: PostRequest | None) -> str | None:
    if request is None or request.scheduled_at is None:
        return None
    return request.scheduled_at.strftime("%Y-%m-%dT%H:%M:%SZ")
