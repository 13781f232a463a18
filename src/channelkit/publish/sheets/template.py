"""`channelkit template`: an empty posts spreadsheet with the columns, examples and notes."""

from __future__ import annotations

import csv
import io
import os
import tempfile
from datetime import date, timedelta
from pathlib import Path

from channelkit._constants import (
    SPREADSHEET_NOTES_SHEET_NAME,
    SPREADSHEET_SHEET_NAME,
    TEMPLATE_EXAMPLE_MARKER,
)
from channelkit._files import as_new_file
from channelkit.errors import SpreadsheetError
from channelkit.publish.post.fields import PUBLISH_FIELDS, arranged, by_name
from channelkit.publish.sheets.columns import COLUMNS

# The columns of the template: every post field of the contract, the time and its zone
# first (`publish.post_fields.arranged`).
TEMPLATE_COLUMNS = arranged(("channel", "title", "body", "scheduled_at", "timezone"))


def example_rows(today: date) -> list[list[str]]:
    """Two example posts, next Monday and Tuesday, in channels of the demo workspace, one
    value per `TEMPLATE_COLUMNS` entry (blank for fields the examples leave out).

    Their titles start with `TEMPLATE_EXAMPLE_MARKER`, which validation refuses: a template
    sent as it is publishes nothing.
    """
    monday = today + timedelta(days=7 - today.weekday())
    examples = [
        {
            "channel": "all-hands",
            "title": f"{TEMPLATE_EXAMPLE_MARKER} Town hall on Thursday",
            "body": (
                "Join us **Thursday at 10:00** in the atrium.\n\n- Q3 results\n- Your questions"
            ),
            "scheduled_at": f"{monday:%Y-%m-%d} 09:00",
            "timezone": "Europe/Berlin",
            "priority": "high",
            "tags": "town-hall, hr",
        },
        {
            "channel": "company-news",
            "title": f"{TEMPLATE_EXAMPLE_MARKER} Release 4.2 is out",
            "body": "Highlights: faster search, [release notes](https://example.com/notes).",
            "scheduled_at": f"{monday + timedelta(days=1):%Y-%m-%d} 14:30",
            "timezone": "Europe/Berlin",
            "priority": "normal",
            "tags": "release",
            "cover_image_url": "https://example.com/cover.png",
        },
    ]
    return [[example.get(name, "") for name in TEMPLATE_COLUMNS] for example in examples]


def write_template(path: str | Path, *, overwrite: bool = False, today: date | None = None) -> Path:
    """Write a template to `path` (.xlsx with a notes sheet, or .csv); returns the path."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in {".xlsx", ".csv"}:
        raise SpreadsheetError(f"{target.name}: the template is written as .xlsx or .csv")
    if target.exists() and not overwrite:
        raise SpreadsheetError(
            f"{target} already exists; choose another name or overwrite it (--force)"
        )
    rows = example_rows(today or date.today())
    data = _xlsx(rows) if suffix == ".xlsx" else _csv(rows)
    handle, temporary = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        as_new_file(temporary)  # for the team, not 0600 like mkstemp
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return target


def _csv(rows: list[list[str]]) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer)
    writer.writerow(TEMPLATE_COLUMNS)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def _xlsx(rows: list[list[str]]) -> bytes:
    from openpyxl import Workbook
    from openpyxl.comments import Comment
    from openpyxl.styles import Alignment, Font
    from openpyxl.utils import get_column_letter

    descriptions = {column.name: column.description for column in COLUMNS}
    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None  # a new workbook has one sheet
    sheet.title = SPREADSHEET_SHEET_NAME
    sheet.append(list(TEMPLATE_COLUMNS))
    for row in rows:
        sheet.append(row)
    for index, name in enumerate(TEMPLATE_COLUMNS, start=1):
        cell = sheet.cell(row=1, column=index)
        cell.font = Font(bold=True)
        cell.comment = Comment(descriptions[name], "channelkit")
        letter = get_column_letter(index)
        sheet.column_dimensions[letter].width = _width(name)
        for body_cell in sheet[letter][1:]:
            body_cell.number_format = "@"  # text: Excel must not reformat times or tags
            body_cell.alignment = Alignment(wrap_text=_multiline(name), vertical="top")
    sheet.freeze_panes = "A2"

    notes = workbook.create_sheet(SPREADSHEET_NOTES_SHEET_NAME)
    notes.append(["column", "what goes in it"])
    for column in COLUMNS:
        notes.append([column.name, column.description])
    notes.append([])
    for line in _NOTES:
        notes.append([line])
    notes["A1"].font = notes["B1"].font = Font(bold=True)
    notes.column_dimensions["A"].width = 18
    notes.column_dimensions["B"].width = 110
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


def _multiline(name: str) -> bool:
    return name in _FIELD_NAMES and by_name(name).multiline


def _width(name: str) -> int:
    """Wide columns for long texts and URLs, so people see what they type."""
    if name == "scheduled_at":
        return 18
    if _multiline(name):
        return 60
    if name in _FIELD_NAMES and by_name(name).kind in ("text", "url"):
        return 32
    return 16


_FIELD_NAMES = {field.name for field in PUBLISH_FIELDS}

_NOTES = (
    "One row per post; the header must stay in row 1.",
    f"Replace the example rows (titles starting with {TEMPLATE_EXAMPLE_MARKER}) with your own "
    "posts: they are refused as they are, so a template sent unchanged publishes nothing.",
    "Headers are case- and space-insensitive; unknown columns are reported as errors.",
    "Check the file without sending anything: channelkit schedule posts.xlsx --tz Europe/Berlin",
    "Send it: add --submit. Re-running the same file never posts twice.",
    "No formulas or merged cells: paste values instead.",
)
