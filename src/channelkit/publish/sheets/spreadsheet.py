"""Reading a posts spreadsheet (CSV or XLSX) into rows of raw cell values.

Everything that makes a file unusable as a whole (wrong type, encrypted, damaged, too big,
undecodable, merged cells, formulas, a bad header row) raises `SpreadsheetError` with the
file's name and the place of the problem. Row numbers are those a spreadsheet program
shows: the header is row 1.

The cells are then read by the one format that claims them (`sheets/formats.py`): a
channelkit posts file, or another tool's bulk file read as channelkit's own columns, with
`reading` saying how and the rows it could not read for certain carrying their
`problems`.
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from channelkit._constants import (
    SPREADSHEET_MAX_BYTES,
    SPREADSHEET_MAX_UNZIPPED_BYTES,
    SPREADSHEET_SHEET_NAME,
)
from channelkit.errors import SpreadsheetError
from channelkit.publish.layouts.read import Choices
from channelkit.publish.sheets.columns import expected_columns
from channelkit.publish.sheets.formats import read_table
from channelkit.publish.sheets.sheet import Sheet, Table, blank

_ZIP_MAGIC = b"PK\x03\x04"
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_MARK = "EncryptionInfo".encode("utf-16-le")
_WORKBOOK_SUFFIXES = {".xlsx", ".xlsm"}
_TEXT_SUFFIXES = {".csv", ".txt", ".tsv"}
_DELIMITERS = (",", ";", "\t")
_SHOWN_PLACES = 5


def read_sheet(
    source: str | Path | bytes,
    *,
    filename: str | None = None,
    sheet: str | None = None,
    choices: Choices | None = None,
) -> Sheet:
    """Read `source` (a path, or the file's bytes with its `filename`) into a `Sheet`.

    `choices` place the posts of another tool's bulk file (its channel, the day/month
    order); a channelkit file refuses them (its own columns say so)."""
    if isinstance(source, bytes):
        name = filename or "uploaded file"
        data = source
    else:
        path = Path(source)
        name = filename or path.name
        data = _read_file(path)
    suffix = Path(name).suffix.lower()
    if suffix and suffix not in _WORKBOOK_SUFFIXES | _TEXT_SUFFIXES:
        raise SpreadsheetError(
            f"{name}: unsupported file type {suffix!r}; use an Excel workbook (.xlsx) or CSV"
        )
    if not data:
        raise SpreadsheetError(f"{name} is empty; start from `channelkit template posts.xlsx`")
    if len(data) > SPREADSHEET_MAX_BYTES:
        raise SpreadsheetError(
            f"{name} is {_megabytes(len(data))}; at most {_megabytes(SPREADSHEET_MAX_BYTES)} "
            "per file: split it into smaller files"
        )
    if data.startswith(_OLE_MAGIC):
        if _ENCRYPTED_MARK in data:
            raise SpreadsheetError(
                f"{name} is password-protected (encrypted); save a copy without the password "
                "(Excel: File > Info > Protect Workbook > Encrypt with Password, clear it)"
            )
        raise SpreadsheetError(
            f"{name} is an Excel 97-2003 workbook (.xls); save it as .xlsx or CSV UTF-8"
        )
    if data.startswith(_ZIP_MAGIC):
        headers, rows, sheet_name = _read_workbook(data, name, sheet)
        where = f"{name}, sheet {sheet_name!r}"
    elif suffix in _WORKBOOK_SUFFIXES:
        raise SpreadsheetError(
            f"{name} is not an Excel workbook (an .xlsx file is a zip archive); if it holds "
            "CSV text, rename it to .csv"
        )
    else:
        if sheet is not None:
            raise SpreadsheetError(f"{name} is CSV, which has no sheets; drop the sheet option")
        text, not_utf8 = _text_of(data, name)
        headers, rows = _read_csv(text, name)
        return read_table(_table(name, name, name, headers, rows, not_utf8), choices)
    return read_table(_table(name, sheet_name, where, headers, rows), choices)


def _read_file(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > SPREADSHEET_MAX_BYTES:
            raise SpreadsheetError(
                f"{path.name} is {_megabytes(size)}; at most "
                f"{_megabytes(SPREADSHEET_MAX_BYTES)} per file: split it into smaller files"
            )
        return path.read_bytes()
    except FileNotFoundError:
        raise SpreadsheetError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise SpreadsheetError(f"{path} is a directory, not a spreadsheet") from None
    except OSError as exc:
        raise SpreadsheetError(f"cannot read {path}: {exc.strerror or exc}") from None


def _table(
    name: str,
    sheet_name: str,
    where: str,
    header_cells: Sequence[object],
    rows: Iterable[tuple[int, Sequence[object]]],
    not_utf8: str | None = None,
) -> Table:
    kept = tuple((number, cells) for number, cells in rows if not all(map(blank, cells)))
    return Table(name, sheet_name, where, tuple(header_cells), kept, not_utf8)


def _text_of(data: bytes, name: str) -> tuple[str, str | None]:
    """The file's text, and the refusal it gets when it is not UTF-8 (then read as
    Windows-1252, which only another tool's bulk file is allowed to be: Excel's "CSV" on
    Windows writes it)."""
    try:
        return _decode(data, name), None
    except SpreadsheetError as exc:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            raise exc from None
        if "\x00" in text:
            raise exc from None
        return text, str(exc)


def _read_csv(text: str, name: str) -> tuple[list[object], list[tuple[int, Sequence[object]]]]:
    if "\x00" in text:
        raise SpreadsheetError(f"{name} is not CSV text (it holds binary data)")
    first_line = text.split("\n", 1)[0]
    delimiter = max(_DELIMITERS, key=first_line.count)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    records: list[tuple[int, Sequence[object]]] = []
    try:
        for number, record in enumerate(reader, start=1):
            records.append((number, [_unescaped(_line_breaks(cell)) for cell in record]))
    except csv.Error as exc:
        raise SpreadsheetError(
            f"{name}: cannot read row {len(records) + 1} as CSV ({exc}); check its quotes"
        ) from None
    if not records or not any(cell.strip() for cell in records[0][1] if isinstance(cell, str)):
        raise SpreadsheetError(
            f"{name}: row 1 must hold the column headers ({expected_columns()}) but is empty"
        )
    header: list[object] = list(records[0][1])
    return header, records[1:]


def _unescaped(cell: str) -> str:
    """A cell as typed: the project's CSV files (`channelkit.export`) write `'=x` for `=x`,
    so that no spreadsheet runs it, and `''+x` for a text `'+x`; reading such a file back
    gives `=x` and `'+x` again."""
    from channelkit.export import FORMULA_PREFIXES

    if cell.startswith("'") and cell[1:].startswith((*FORMULA_PREFIXES, "'")):
        return cell[1:]
    return cell


def _line_breaks(cell: str) -> str:
    """Line breaks inside a cell as one `\n`: some spreadsheet programs write CRLF (or a
    lone CR) inside quoted cells, which people see as an ordinary line break."""
    return cell.replace("\r\n", "\n").replace("\r", "\n") if "\r" in cell else cell


def _decode(data: bytes, name: str) -> str:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise SpreadsheetError(f"{name}: broken UTF-16 text; save it as CSV UTF-8") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        row = _sheet_row_at(data, exc.start)
        raise SpreadsheetError(
            f"{name} is not UTF-8 text (byte 0x{data[exc.start]:02x} in row {row}, as the "
            f"spreadsheet numbers it); save it as UTF-8: {_SAVE_UTF8}"
        ) from None


_SAVE_UTF8 = (
    "Excel: File > Save As > 'CSV UTF-8 (Comma delimited)'; LibreOffice: File > Save As > "
    "Text CSV, tick 'Edit filter settings', character set 'Unicode (UTF-8)'; Google Sheets: "
    "File > Download > Comma-separated values (always UTF-8)"
)


def _sheet_row_at(data: bytes, offset: int) -> int:
    """The spreadsheet row holding byte `offset`: a quoted cell may span several lines, so
    the row is counted by reading the CSV up to there, not by counting line breaks."""
    prefix = data[:offset].decode("latin-1")  # one character per byte, never fails
    first_line = prefix.split("\n", 1)[0]
    delimiter = max(_DELIMITERS, key=first_line.count)
    # A marker where the bad byte is: the record that holds it is the row.
    reader = csv.reader(io.StringIO(prefix + "x", newline=""), delimiter=delimiter)
    rows = 0
    try:
        for _ in reader:
            rows += 1
    except csv.Error:  # the marker inside an unfinished quote: still the last row read
        rows += 1
    return max(rows, 1)


def _read_workbook(
    data: bytes, name: str, sheet: str | None
) -> tuple[list[object], list[tuple[int, Sequence[object]]], str]:
    _check_zip(data, name)
    from openpyxl import load_workbook  # heavy: only when a workbook is read

    try:
        workbook = load_workbook(io.BytesIO(data), data_only=False, read_only=False)
    except Exception as exc:  # openpyxl raises many kinds on damaged files
        raise SpreadsheetError(
            f"{name} cannot be opened as an Excel workbook ({type(exc).__name__}: {exc}); "
            "open it in Excel and save it again as .xlsx"
        ) from None
    try:
        worksheet = _pick_sheet(workbook, name, sheet)
        where = f"{name}, sheet {worksheet.title!r}"
        merged = [str(cells) for cells in worksheet.merged_cells.ranges]
        if merged:
            raise SpreadsheetError(
                f"{where}: merged cells are not supported ({_places(merged)}); unmerge them "
                "so that every row has its own values"
            )
        formulas: list[str] = []
        errors: list[str] = []
        rows: list[tuple[int, Sequence[object]]] = []
        for number, cells in enumerate(worksheet.iter_rows(min_row=1, min_col=1), start=1):
            values: list[object] = []
            for cell in cells:
                if cell.data_type == "f":
                    formulas.append(cell.coordinate)
                elif cell.data_type == "e":
                    errors.append(f"{cell.coordinate} {cell.value}")
                values.append(cell.value)
            rows.append((number, values))
        if formulas:
            raise SpreadsheetError(
                f"{where}: formulas are not supported ({_places(formulas)}); replace them "
                "with their values (copy, then Paste Special > Values)"
            )
        if errors:
            raise SpreadsheetError(f"{where}: cells hold Excel errors ({_places(errors)})")
    finally:
        workbook.close()
    if not rows:
        raise SpreadsheetError(f"{where} is empty; start from `channelkit template posts.xlsx`")
    return list(rows[0][1]), rows[1:], worksheet.title


def _check_zip(data: bytes, name: str) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except zipfile.BadZipFile:
        raise SpreadsheetError(
            f"{name} is damaged or truncated (not a readable zip/xlsx); save it again"
        ) from None
    names = {member.filename for member in members}
    if "xl/workbook.xml" not in names:
        raise SpreadsheetError(
            f"{name} is a zip archive but not an Excel workbook; use .xlsx or CSV"
        )
    if sum(member.file_size for member in members) > SPREADSHEET_MAX_UNZIPPED_BYTES:
        raise SpreadsheetError(
            f"{name} unpacks to more than {_megabytes(SPREADSHEET_MAX_UNZIPPED_BYTES)}; "
            "split it into smaller files"
        )


def _pick_sheet(workbook: Any, name: str, sheet: str | None) -> Any:
    titles: list[str] = list(workbook.sheetnames)
    if sheet is not None:
        matches = [title for title in titles if title.casefold() == sheet.strip().casefold()]
        if not matches:
            raise SpreadsheetError(
                f"{name} has no sheet {sheet!r}; its sheets: {', '.join(titles)}"
            )
        return workbook[matches[0]]
    preferred = [title for title in titles if title.casefold() == SPREADSHEET_SHEET_NAME]
    return workbook[preferred[0] if preferred else titles[0]]


def _places(places: Sequence[str]) -> str:
    shown = ", ".join(places[:_SHOWN_PLACES])
    more = len(places) - _SHOWN_PLACES
    return f"{shown} and {more} more" if more > 0 else shown


def _megabytes(size: int) -> str:
    return f"{size / 1024 / 1024:.1f} MB"
