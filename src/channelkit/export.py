"""Frames out of the notebook: the one safe writer of CSV and Excel files.

    import channelkit as ck

    monthly = wh.kpis(period="2026-10", by="channel")
    ck.to_excel({"KPIs": monthly, "Top posts": wh.top_posts(period="2026-10")}, "oct.xlsx")
    ck.to_csv(monthly, "oct-kpis.csv")

Every cell is written as a plain value a spreadsheet understands: tz-aware datetimes as
local wall time with the zone in the column header ("published_at (Europe/Berlin)"), lists
as "a, b", missing values as empty cells, NumPy scalars as numbers. Text that a spreadsheet
would run as a formula (starting with `=`, `+`, `-`, `@`, tab or carriage return) stays
text: in CSV it is prefixed with `'` (the OWASP rule), in Excel it is stored as a string
cell, never a formula. `frame.attrs` (period, comparison, filters, warnings) go in a short
header block above the table. Files are written to a temporary file beside the target and
renamed, so a reader sees the old file or the new one, never half of one, and are created
with the permissions the user's umask gives any new file.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from channelkit.errors import InvalidParameterError

if TYPE_CHECKING:
    from openpyxl.worksheet.worksheet import Worksheet

__all__ = [
    "FORMULA_PREFIXES",
    "csv_text",
    "header_block",
    "plain_cell",
    "safe_cell",
    "safe_row",
    "to_csv",
    "to_excel",
    "write_csv_rows",
    "written_atomically",
]

#: First characters that make a spreadsheet treat a cell as a formula (OWASP CSV injection).
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
#: The attrs shown in the header block, in order, with their labels.
HEADER_ATTRS = (
    ("title", "Title"),
    ("period", "Period"),
    ("previous_period", "Compared with"),
    ("filters", "Filters"),
    ("tz", "Time zone"),
    ("complete", "Complete"),
    ("warnings", "Warnings"),
)
# RFC 4180 line ends: csv quotes a field holding either CR or LF only when both are in the
# line terminator, and a bare CR left unquoted splits the row for every reader.
LINE_END = "\r\n"
EXCEL_MAX_ROWS = 1_048_576
EXCEL_SHEET_NAME_MAX = 31
_SHEET_NAME_FORBIDDEN = re.compile(r"[\[\]:*?/\\]")
# Control characters an XLSX file cannot hold (openpyxl refuses them): dropped.
_XML_ILLEGAL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_UMASK_LOCK = threading.Lock()

Cell = str | int | float | bool | datetime | date | time | None


def plain_cell(value: object) -> Cell:
    """`value` as a plain Python value a spreadsheet holds, without formula escaping.

    >>> plain_cell(np.int64(3)), plain_cell(["a", "b"]), plain_cell(float("nan"))
    (3, 'a, b', None)
    """
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    # Moments first: NumPy counts a timedelta64 among its integers, and int() refuses it.
    if isinstance(value, _MOMENTS):
        return _plain_moment(value)
    if isinstance(value, _NUMBERS):
        return _plain_number(value)
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return json.dumps({str(k): plain_cell(v) for k, v in value.items()}, default=str)
    if isinstance(value, list | tuple | set | frozenset | np.ndarray | pd.Series):
        return _joined(value)
    if hasattr(value, "as_py"):  # a pyarrow scalar (Arrow-backed columns)
        return plain_cell(value.as_py())
    return str(value)


_Number = bool | np.bool_ | np.integer[Any] | float | np.floating[Any] | int | Decimal
_NUMBERS = (bool, np.bool_, np.integer, float, np.floating, int, Decimal)
_Moment = np.datetime64 | datetime | date | time | timedelta | np.timedelta64
_MOMENTS = (np.datetime64, datetime, date, time, timedelta, np.timedelta64)


def _plain_number(value: _Number) -> Cell:
    """A number as Python's own: NaN is empty, infinities are text (no sheet holds them)."""
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        number = float(value)
        if math.isnan(number):
            return None
        return number if math.isfinite(number) else str(number)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _plain_moment(value: _Moment) -> Cell:
    """A date or time as Python's own; an aware one as text, a duration as text."""
    if isinstance(value, np.datetime64):
        if np.isnat(value):
            return None
        value = pd.Timestamp(value)
    if isinstance(value, pd.Timestamp):
        value = value.to_pydatetime()
    if isinstance(value, datetime):
        # No column context here: keep the offset in the text so the instant is exact.
        return value.isoformat(sep=" ") if value.tzinfo is not None else value
    if isinstance(value, date | time):
        return value
    return str(pd.Timedelta(value))


def _joined(value: Iterable[object]) -> str:
    """A collection as "a, b" without its missing items (a set's in a stable order)."""
    items = sorted(value, key=str) if isinstance(value, set | frozenset) else list(value)
    return ", ".join(str(plain_cell(item)) for item in items if plain_cell(item) is not None)


def safe_cell(value: object) -> Cell:
    """`plain_cell(value)`, with text that would run as a formula prefixed by `'`.

    For CSV and any other plain-text sheet (OWASP's rule for CSV injection).

    >>> safe_cell("=HYPERLINK(\\"http://x\\")"), safe_cell("-2 hours"), safe_cell(-2)
    ('\\'=HYPERLINK("http://x")', "'-2 hours", -2)
    """
    return _escaped(plain_cell(value))


def safe_row(values: Iterable[object]) -> list[Cell]:
    """`safe_cell` of every value of a row (for `csv.writer` rows written by hand)."""
    return [safe_cell(value) for value in values]


def header_block(attrs: Mapping[Any, object]) -> list[tuple[str, Cell]]:
    """The (label, value) lines describing a frame, from its `attrs`; empty if none apply.

    >>> header_block({"period": "October 2026", "filters": {"channel": ["All Hands"]}})
    [('Period', 'October 2026'), ('Filters', 'channel: All Hands')]
    """
    lines: list[tuple[str, Cell]] = []
    for key, label in HEADER_ATTRS:
        value = attrs.get(key)
        if value is None or (isinstance(value, list | tuple) and not value):
            continue
        if key == "filters" and isinstance(value, Mapping):
            shown = [f"{name}: {plain_cell(v)}" for name, v in value.items() if v is not None]
            value = "; ".join(shown) or "none"
        elif key == "complete":
            value = "yes" if value else "no: the period runs past the synced data"
        elif key == "warnings" and isinstance(value, list | tuple):
            value = " ".join(str(w) for w in value)
        lines.append((label, plain_cell(value)))
    return lines


def csv_text(frame: pd.DataFrame, *, with_header_block: bool = True) -> str:
    """`frame` as CSV text (see the module docstring); what `to_csv` writes.

    With a header block, its lines come first as "label,value" rows, then one empty line,
    then the table: `pd.read_csv(path, skiprows=len(header_block(frame.attrs)) + 1)`.
    """
    frame = _check_frame(frame, "frame")
    out = io.StringIO()
    writer = csv.writer(out, lineterminator=LINE_END)
    if with_header_block:
        block = header_block(frame.attrs)
        for label, value in block:
            writer.writerow(safe_row((label, value)))
        if block:
            writer.writerow([])
    header, columns = _table(frame)
    writer.writerow(safe_row(header))
    for record in zip(*columns, strict=True):
        writer.writerow([_escaped(cell) for cell in record])
    return out.getvalue()


def to_csv(frame: pd.DataFrame, path: str | Path, *, with_header_block: bool = True) -> Path:
    """Write `frame` to a UTF-8 CSV file at `path`, atomically; returns the path.

    >>> ck.to_csv(wh.kpis(period="2026-10"), "kpis.csv")  # doctest: +SKIP
    """
    text = csv_text(frame, with_header_block=with_header_block)
    with written_atomically(path, suffix=".csv") as temporary:
        temporary.write_text(text, encoding="utf-8", newline="")
    return Path(path)


def write_csv_rows(
    path: str | Path, rows: Iterable[Sequence[object]], *, header: Sequence[str]
) -> Path:
    """Write plain rows (not a frame) as CSV, every cell through `safe_cell`, atomically."""
    with written_atomically(path, suffix=".csv") as temporary:
        with temporary.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, lineterminator=LINE_END)
            writer.writerow(safe_row(header))
            for row in rows:
                writer.writerow(safe_row(row))
    return Path(path)


def to_excel(frames: pd.DataFrame | Mapping[str, pd.DataFrame], path: str | Path) -> Path:
    """Write a frame, or a dict of sheet name → frame, to an .xlsx workbook at `path`.

    >>> ck.to_excel({"KPIs": kpis, "Channels": by_channel}, "october.xlsx")  # doctest: +SKIP

    Each sheet starts with the frame's header block (period, filters, ...), then a blank
    row, then the table with a bold header row, frozen below the header.
    """
    from openpyxl import Workbook
    from openpyxl.styles import Font

    sheets = _sheets(frames)
    target = Path(path)
    if target.suffix.lower() != ".xlsx":
        raise InvalidParameterError("path", f"{str(path)!r} must end in .xlsx")
    workbook = Workbook(write_only=False)
    default = workbook.active
    if default is not None:
        workbook.remove(default)
    bold = Font(bold=True)
    for name, frame in sheets.items():
        sheet = workbook.create_sheet(title=name)
        block = header_block(frame.attrs)
        for label, value in block:
            _append(sheet, [label, value])
            sheet.cell(row=sheet.max_row, column=1).font = bold
        if block:
            sheet.append([])
        header, columns = _table(frame)
        _append(sheet, header)
        header_row = sheet.max_row
        for cell in sheet[header_row]:
            cell.font = bold
        for record in zip(*columns, strict=True):
            _append(sheet, record)
        sheet.freeze_panes = sheet.cell(row=header_row + 1, column=1)
    with written_atomically(target, suffix=".xlsx") as temporary:
        workbook.save(temporary)
    return target


@contextmanager
def written_atomically(path: str | Path, *, suffix: str = ".tmp") -> Iterator[Path]:
    """Yield a temporary path beside `path`; on success it replaces `path`, else vanishes.

    The new file gets the mode any file created by the user gets (0666 minus the umask),
    not mkstemp's private 0600.
    """
    target = Path(path)
    if target.is_dir():
        raise InvalidParameterError("path", f"{target} is a directory; give a file name")
    if not target.parent.is_dir():
        raise InvalidParameterError("path", f"the folder {target.parent} does not exist")
    try:
        handle, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=suffix, dir=target.parent)
    except OSError as exc:
        raise InvalidParameterError(
            "path", f"cannot write in {target.parent}: {exc.strerror}"
        ) from None
    os.close(handle)
    temporary = Path(name)
    try:
        yield temporary
        os.chmod(temporary, 0o666 & ~_umask())
        os.replace(temporary, target)
    finally:
        temporary.unlink(missing_ok=True)


def _umask() -> int:
    # The umask can only be read by setting it; the lock keeps our own threads from
    # creating files in the instant it is 0.
    with _UMASK_LOCK:
        mask = os.umask(0)
        os.umask(mask)
    return mask


def _escaped(cell: Cell) -> Cell:
    # Text that already starts with the mark before a formula character (a title
    # "'+quoted") is marked too: a reader takes one mark off, and gets the text as written.
    if isinstance(cell, str) and (
        cell.startswith(FORMULA_PREFIXES)
        or (cell.startswith("'") and cell[1:].startswith((*FORMULA_PREFIXES, "'")))
    ):
        return "'" + cell
    return cell


def _append(sheet: Worksheet, values: Iterable[Cell]) -> None:
    sheet.append([_xml_text(v) for v in values])
    for cell in sheet[sheet.max_row]:
        if isinstance(cell.value, str):
            # openpyxl stores "=..." as a formula; a data value is always text.
            cell.data_type = "s"


def _xml_text(value: Cell) -> Cell:
    return _XML_ILLEGAL.sub("", value) if isinstance(value, str) else value


def _check_frame(frame: object, param: str) -> pd.DataFrame:
    if not isinstance(frame, pd.DataFrame):
        raise InvalidParameterError(
            param, f"expected a pandas DataFrame, got {type(frame).__name__}"
        )
    return frame


def _sheets(frames: object) -> dict[str, pd.DataFrame]:
    if isinstance(frames, pd.DataFrame):
        title = frames.attrs.get("sheet") or frames.attrs.get("metric") or "Sheet1"
        frames = {str(title)[:EXCEL_SHEET_NAME_MAX]: frames}
    if not isinstance(frames, Mapping) or not frames:
        raise InvalidParameterError(
            "frames", "expected a DataFrame or a non-empty dict of sheet name -> DataFrame"
        )
    sheets: dict[str, pd.DataFrame] = {}
    for name, frame in frames.items():
        if not isinstance(name, str) or not name.strip():
            raise InvalidParameterError("frames", f"sheet name {name!r} is not a non-empty string")
        if len(name) > EXCEL_SHEET_NAME_MAX or _SHEET_NAME_FORBIDDEN.search(name):
            raise InvalidParameterError(
                "frames",
                f"sheet name {name!r}: Excel allows at most {EXCEL_SHEET_NAME_MAX} characters "
                "and none of [ ] : * ? / \\",
            )
        if name.lower() in (known.lower() for known in sheets):
            raise InvalidParameterError("frames", f"sheet name {name!r} is used twice")
        frame = _check_frame(frame, "frames")
        if len(frame) + len(header_block(frame.attrs)) + 2 > EXCEL_MAX_ROWS:
            raise InvalidParameterError(
                "frames",
                f"sheet {name!r} has {len(frame):,} rows, more than Excel holds; use to_csv",
            )
        sheets[name] = frame
    return sheets


def _table(frame: pd.DataFrame) -> tuple[list[Cell], list[list[Cell]]]:
    """Header cells and the columns as lists of plain cells."""
    if not isinstance(frame.index, pd.RangeIndex) or frame.index.name is not None:
        frame = frame.reset_index()
    header: list[Cell] = []
    columns: list[list[Cell]] = []
    for position in range(frame.shape[1]):
        name = frame.columns[position]
        label = " · ".join(map(str, name)) if isinstance(name, tuple) else str(name)
        series = frame.iloc[:, position]
        zone = _zone(series)
        if zone is not None:
            label = f"{label} ({zone})"
            series = series.dt.tz_localize(None)
        header.append(label)
        columns.append([plain_cell(value) for value in series.astype(object)])
    return header, columns


def _zone(series: pd.Series) -> str | None:
    dtype = series.dtype
    if isinstance(dtype, pd.DatetimeTZDtype):
        return str(dtype.tz)
    if isinstance(dtype, pd.ArrowDtype) and getattr(dtype.pyarrow_dtype, "tz", None):
        return str(dtype.pyarrow_dtype.tz)
    return None
