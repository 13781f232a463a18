"""A corpus of broken spreadsheets and rows, each with the exact message the user gets.

Files are built in the test from a table of cases: bad files raise SpreadsheetError (the
CLI's exit code 2), bad rows show up in the plan with their spreadsheet row number.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from datetime import datetime, time
from pathlib import Path
from types import SimpleNamespace

import pytest
from msoffcrypto.format.ooxml import OOXMLFile

from channelkit.publish import FieldError, SpreadsheetError, load_spreadsheet
from channelkit.publish.post.validation import ChannelIndex
from channelkit.publish.sheets.columns import COLUMNS, expected_columns

H = ["channel", "title", "body", "scheduled_at"]
# The columns as the code declares them (publish/sheets/columns.py, from the contract's fields), in
# the order its messages list them; a new post field is one more, without an edit here
EXPECTED = expected_columns()
GOOD = ["all-hands", "Hello", "Body", "2030-12-02 09:00"]
INDEX = ChannelIndex.from_channels(
    [
        {"id": "chan_1", "name": "All hands", "slug": "all-hands"},
        {"id": "chan_2", "name": "Old", "slug": "old", "is_archived": True},
    ]
)


def _encrypted(s: SimpleNamespace) -> bytes:
    encrypted = io.BytesIO()
    OOXMLFile(io.BytesIO(s.xlsx([H, GOOD]))).encrypt("secret", encrypted)
    return encrypted.getvalue()


def _zip_without_workbook(s: SimpleNamespace) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", "<document/>")
    return buffer.getvalue()


def _zip_bomb(s: SimpleNamespace) -> bytes:
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(s.xlsx([H, GOOD]))) as real,
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive,
    ):
        for member in real.namelist():
            archive.writestr(member, real.read(member))
        archive.writestr("xl/media/padding.bin", bytes(51 * 1024 * 1024))  # ~50 kB packed
    return buffer.getvalue()


def _merge(worksheet: object) -> None:
    worksheet.merge_cells("B2:B3")  # type: ignore[attr-defined]


def _formula(worksheet: object) -> None:
    worksheet["B2"] = '=CONCAT("Hel", "lo")'  # type: ignore[index]


def _error_cell(worksheet: object) -> None:
    worksheet["C2"] = "#N/A"  # type: ignore[index]


Builder = Callable[[SimpleNamespace], bytes]
FILE_CASES: list[tuple[str, str, Builder, dict[str, object], str]] = [
    (
        "empty-csv",
        "posts.csv",
        lambda s: b"",
        {},
        "posts.csv is empty; start from `channelkit template posts.xlsx`",
    ),
    (
        "empty-xlsx",
        "posts.xlsx",
        lambda s: b"",
        {},
        "posts.xlsx is empty; start from `channelkit template posts.xlsx`",
    ),
    (
        "wrong-type",
        "posts.pdf",
        lambda s: b"%PDF-1.7\n...",
        {},
        "posts.pdf: unsupported file type '.pdf'; use an Excel workbook (.xlsx) or CSV",
    ),
    (
        "encrypted-xlsx",
        "posts.xlsx",
        _encrypted,
        {},
        "posts.xlsx is password-protected (encrypted); save a copy without the password "
        "(Excel: File > Info > Protect Workbook > Encrypt with Password, clear it)",
    ),
    (
        "old-xls",
        "posts.xls",
        lambda s: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600,
        {},
        "posts.xls: unsupported file type '.xls'; use an Excel workbook (.xlsx) or CSV",
    ),
    (
        "xls-renamed-xlsx",
        "posts.xlsx",
        lambda s: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600,
        {},
        "posts.xlsx is an Excel 97-2003 workbook (.xls); save it as .xlsx or CSV UTF-8",
    ),
    (
        "csv-renamed-xlsx",
        "posts.xlsx",
        lambda s: s.csv([H, GOOD]),
        {},
        "posts.xlsx is not an Excel workbook (an .xlsx file is a zip archive); if it holds "
        "CSV text, rename it to .csv",
    ),
    (
        "truncated-xlsx",
        "posts.xlsx",
        lambda s: s.xlsx([H, GOOD])[:1500],
        {},
        "posts.xlsx is damaged or truncated (not a readable zip/xlsx); save it again",
    ),
    (
        "zip-not-workbook",
        "posts.xlsx",
        _zip_without_workbook,
        {},
        "posts.xlsx is a zip archive but not an Excel workbook; use .xlsx or CSV",
    ),
    (
        "zip-bomb",
        "posts.xlsx",
        _zip_bomb,
        {},
        "posts.xlsx unpacks to more than 50.0 MB; split it into smaller files",
    ),
    (
        "huge-file",
        "posts.csv",
        lambda s: b"channel,title,body,scheduled_at\n" + b"x" * (10 * 1024 * 1024),
        {},
        "posts.csv is 10.0 MB; at most 10.0 MB per file: split it into smaller files",
    ),
    (
        "too-many-rows",
        "posts.csv",
        lambda s: s.csv([H] + [GOOD] * 20_001),
        {},
        "posts.csv has more than 20,000 rows of posts; split it into smaller files",
    ),
    (
        "latin-1-csv",
        "posts.csv",
        lambda s: s.csv(
            [H, GOOD, ["all-hands", "Café", "Body", "2030-12-02 10:00"]], encoding="cp1252"
        ),
        {},
        "posts.csv is not UTF-8 text (byte 0xe9 in row 3, as the spreadsheet numbers it); "
        "save it as UTF-8: Excel: File > Save As > 'CSV UTF-8 (Comma delimited)'; LibreOffice: "
        "File > Save As > Text CSV, tick 'Edit filter settings', character set 'Unicode "
        "(UTF-8)'; Google Sheets: File > Download > Comma-separated values (always UTF-8)",
    ),
    (
        "binary-csv",
        "posts.csv",
        lambda s: b"channel,title\x00\x01\x02,body\n",
        {},
        "posts.csv is not CSV text (it holds binary data)",
    ),
    (
        "merged-cells",
        "posts.xlsx",
        lambda s: s.xlsx([H, GOOD, GOOD], edit=_merge),
        {},
        "posts.xlsx, sheet 'posts': merged cells are not supported (B2:B3); unmerge them so "
        "that every row has its own values",
    ),
    (
        "formulas",
        "posts.xlsx",
        lambda s: s.xlsx([H, GOOD], edit=_formula),
        {},
        "posts.xlsx, sheet 'posts': formulas are not supported (B2); replace them with their "
        "values (copy, then Paste Special > Values)",
    ),
    (
        "error-cell",
        "posts.xlsx",
        lambda s: s.xlsx([H, GOOD], edit=_error_cell),
        {},
        "posts.xlsx, sheet 'posts': cells hold Excel errors (C2 #N/A)",
    ),
    (
        "unknown-column",
        "posts.csv",
        lambda s: s.csv([["channel", "Titel", "body", "scheduled_at"], GOOD]),
        {},
        "posts.csv: unknown column 'Titel' (column B); did you mean 'title'?; missing column "
        f"title. Expected columns: {EXPECTED}",
    ),
    (
        "duplicate-column",
        "posts.csv",
        lambda s: s.csv([[*H, "Title"], [*GOOD, "Again"]]),
        {},
        "posts.csv: column 'title' appears twice (columns B and E); keep one. Expected "
        f"columns: {EXPECTED}",
    ),
    (
        "missing-columns",
        "posts.csv",
        lambda s: s.csv([["channel", "title"], ["all-hands", "Hello"]]),
        {},
        "posts.csv: missing columns body, scheduled_at (or date and time). Expected columns: "
        f"{EXPECTED}",
    ),
    (
        "date-without-time-column",
        "posts.csv",
        lambda s: s.csv(
            [["channel", "title", "body", "date"], ["all-hands", "Hi", "B", "2030-12-02"]]
        ),
        {},
        f"posts.csv: missing column scheduled_at (or date and time). Expected columns: {EXPECTED}",
    ),
    (
        "header-not-in-row-1",
        "posts.xlsx",
        lambda s: s.xlsx([[None], H, GOOD]),
        {},
        f"posts.xlsx, sheet 'posts': row 1 must hold the column headers ({EXPECTED}) but is empty",
    ),
    (
        "blank-csv",
        "posts.csv",
        lambda s: b"\n\n",
        {},
        f"posts.csv: row 1 must hold the column headers ({EXPECTED}) but is empty",
    ),
    (
        "header-only",
        "posts.csv",
        lambda s: s.csv([H, ["", "", "", ""]]),
        {},
        "posts.csv has a header row but no posts below it",
    ),
    (
        "unterminated-quote",
        "posts.csv",
        lambda s: s.csv([H, GOOD]) + b'all-hands,"Hello,Body,2030-12-02 09:00\n',
        {},
        "posts.csv: cannot read row 3 as CSV (unexpected end of data); check its quotes",
    ),
    (
        "row-wider-than-header",
        "posts.csv",
        lambda s: s.csv([H, GOOD, [*GOOD, " Q3 results"]]),
        {},
        "posts.csv: row 3 has a value in column E, past the last header (D); check for a "
        "stray separator or an unquoted comma in that row",
    ),
    (
        "values-without-header",
        "posts.csv",
        lambda s: s.csv(
            [
                ["channel", "title", "", "body", "scheduled_at"],
                ["all-hands", "Hi", "x", "B", "2030-12-02 09:00"],
            ]
        ),
        {},
        "posts.csv: column C has values (row 2) but no header; name it or delete the column",
    ),
    (
        "unknown-sheet",
        "posts.xlsx",
        lambda s: s.xlsx([H, GOOD], extra_sheets=["notes"]),
        {"sheet": "Plan"},
        "posts.xlsx has no sheet 'Plan'; its sheets: posts, notes",
    ),
    (
        "sheet-on-csv",
        "posts.csv",
        lambda s: s.csv([H, GOOD]),
        {"sheet": "posts"},
        "posts.csv is CSV, which has no sheets; drop the sheet option",
    ),
]


@pytest.mark.parametrize(
    ("filename", "build", "kwargs", "message"),
    [pytest.param(*case[1:], id=case[0]) for case in FILE_CASES],
)
@pytest.mark.calendar
def test_bad_files(
    sheets: SimpleNamespace,
    filename: str,
    build: Builder,
    kwargs: dict[str, object],
    message: str,
) -> None:
    with pytest.raises(SpreadsheetError) as caught:
        load_spreadsheet(build(sheets), filename=filename, tz="UTC", **kwargs)  # type: ignore[arg-type]
    assert str(caught.value) == message


def test_bad_file_from_path(tmp_path: Path) -> None:
    with pytest.raises(SpreadsheetError, match=r"posts\.csv: no such file"):
        load_spreadsheet(tmp_path / "posts.csv")
    with pytest.raises(SpreadsheetError, match="is a directory, not a spreadsheet"):
        load_spreadsheet(tmp_path)


ROW_CASES: list[tuple[str, list[object], list[str]]] = [
    ("missing-title", ["all-hands", "", "Body", "2030-12-02 09:00"], ["title: title is required"]),
    (
        "long-title",
        ["all-hands", "T" * 201, "Body", "2030-12-02 09:00"],
        ["title: title is 201 characters; at most 200"],
    ),
    ("missing-body", ["all-hands", "Hi", " ", "2030-12-02 09:00"], ["body: body is required"]),
    (
        "missing-time",
        ["all-hands", "Hi", "Body", ""],
        ["scheduled_at: scheduled_at is required"],
    ),
    (
        "past",
        ["all-hands", "Hi", "Body", "2020-01-06 09:00"],
        [
            "scheduled_at: 2020-01-06 09:00 Europe/Berlin is in the past; schedule at least 5 "
            "minutes after now"
        ],
    ),
    (
        "dst-gap",
        ["all-hands", "Hi", "Body", "2030-03-31 02:30"],
        [
            "scheduled_at: 2030-03-31 02:30 does not exist in Europe/Berlin: the clocks skip "
            "forward that night (daylight saving time); choose 01:30 (before the change) or "
            "03:30 (after it)"
        ],
    ),
    (
        "dst-overlap",
        ["all-hands", "Hi", "Body", "2030-10-27 02:30"],
        [
            "scheduled_at: 2030-10-27 02:30 happens twice in Europe/Berlin: the clocks go back "
            "that night; add the offset to say which, 2030-10-27 02:30+02:00 (first) or "
            "2030-10-27 02:30+01:00 (second)"
        ],
    ),
    (
        "ambiguous-date",
        ["all-hands", "Hi", "Body", "02/12/2030 09:00"],
        [
            "scheduled_at: '02/12/2030 09:00' is ambiguous: it could be 2 December 2030 (day "
            "first) or 12 February 2030 (month first); nothing in the column settles the "
            "order; say which with --date-order dmy or --date-order mdy"
        ],
    ),
    (
        "words-as-date",
        ["all-hands", "Hi", "Body", "next monday"],
        [
            "scheduled_at: cannot read 'next monday' as a date and time; use YYYY-MM-DD "
            "HH:MM, for example 2026-12-01 09:00"
        ],
    ),
    (
        "priority",
        ["all-hands", "Hi", "Body", "2030-12-02 09:00", "asap"],
        ["priority: 'asap' is not one of normal, high, urgent"],
    ),
    (
        "urgent-unconfirmed",
        ["all-hands", "Hi", "Body", "2030-12-02 09:00", "URGENT"],
        [
            "priority: urgent bypasses readers' notification preferences; confirm it "
            "explicitly (confirm_urgent=True, or --confirm-urgent on the command line)"
        ],
    ),
    (
        "too-many-tags",
        ["all-hands", "Hi", "Body", "2030-12-02 09:00", "", ",".join("abcdefghijklmnopqrstu")],
        ["tags: 21 tags; at most 20"],
    ),
    (
        "long-tag",
        ["all-hands", "Hi", "Body", "2030-12-02 09:00", "", "ok, " + "x" * 60],
        ["tags: tag 'xxxxxxxxxxxxxxxxxxxx…' is 60 characters; at most 50"],
    ),
    (
        "bad-url",
        ["all-hands", "Hi", "Body", "2030-12-02 09:00", "", "", "www.example.com/a.png"],
        [
            "cover_image_url: 'www.example.com/a.png' is not an absolute http(s) URL (like "
            "https://example.com/cover.png)"
        ],
    ),
    (
        "bad-timezone",
        ["all-hands", "Hi", "Body", "2030-12-02 09:00", "", "", "", "CET+1"],
        [
            "timezone: 'CET+1' is not a time zone; use an IANA name such as 'Europe/Berlin' or "
            "'UTC' (did you mean 'CET'?)"
        ],
    ),
    (
        "several-at-once",
        ["", "", "Body", "soon", "meh"],
        [
            "channel: channel is required (id, slug or name)",
            "title: title is required",
            "priority: 'meh' is not one of normal, high, urgent",
            "scheduled_at: cannot read 'soon' as a date and time; use YYYY-MM-DD HH:MM, for "
            "example 2026-12-01 09:00",
        ],
    ),
]
# The columns the cases above fill, by position; then every other declared column but the
# date and time pair (scheduled_at is given), left blank: a new post field is one more
CASE_COLUMNS = [*H, "priority", "tags", "cover_image_url", "timezone"]
ROW_HEADER = [
    *CASE_COLUMNS,
    *(c.name for c in COLUMNS if c.name not in (*CASE_COLUMNS, "date", "time")),
]


@pytest.mark.parametrize(
    ("row", "expected"), [pytest.param(*case[1:], id=case[0]) for case in ROW_CASES]
)
@pytest.mark.calendar
def test_bad_rows(sheets: SimpleNamespace, row: list[object], expected: list[str]) -> None:
    data = sheets.csv([ROW_HEADER, GOOD, row])
    plan = load_spreadsheet(data, filename="posts.csv", tz="Europe/Berlin")
    assert not plan.is_valid
    assert [row.status for row in plan.rows] == ["ok", "error"]
    messages = [f"{error.field}: {error.message}" for number, error in plan.errors]
    assert {number for number, _ in plan.errors} == {3}
    # "in the past" carries the current time; compare up to it
    assert [m[: len(e)] for m, e in zip(messages, expected, strict=True)] == expected


@pytest.mark.calendar
def test_row_numbers_match_the_spreadsheet_with_blank_rows_and_multiline_cells(
    sheets: SimpleNamespace,
) -> None:
    rows = [
        H,
        ["all-hands", "First", "line one\nline two\nline three", "2030-12-02 09:00"],
        ["", "", "", ""],
        ["all-hands", "", "Body", "2030-12-02 10:00"],
    ]
    for data, name in ((sheets.csv(rows), "p.csv"), (sheets.xlsx(rows), "p.xlsx")):
        plan = load_spreadsheet(data, filename=name, tz="UTC")
        assert [row.number for row in plan.rows] == [2, 4]
        assert plan.errors == [(4, FieldError("title", "title is required"))]


@pytest.mark.calendar
def test_duplicates_inside_the_file(sheets: SimpleNamespace) -> None:
    rows = [
        [*H, "timezone"],
        ["all-hands", "Launch", "A", "2030-12-02 09:00", "Europe/Berlin"],
        ["all-hands", "Other", "B", "2030-12-02 09:00", "Europe/Berlin"],
        ["all-hands", "launch", "C", "2030-12-02 08:00Z", ""],  # same instant and title
    ]
    plan = load_spreadsheet(sheets.csv(rows), filename="p.csv", tz="UTC", channels=INDEX)
    assert plan.errors == [
        (4, FieldError("title", "same channel, title and time as row 2; remove one of them"))
    ]


@pytest.mark.calendar
def test_channels_checked_when_an_index_is_given(sheets: SimpleNamespace) -> None:
    rows = [H, ["old", "A", "B", "2030-12-02 09:00"], ["All Hands", "A", "B", "2030-12-02 09:00"]]
    plan = load_spreadsheet(sheets.csv(rows), filename="p.csv", tz="UTC", channels=INDEX)
    assert plan.errors == [
        (
            2,
            FieldError(
                "channel", "channel Old (old) is archived; choose another channel or unarchive it"
            ),
        ),
    ]  # row 3's 'All Hands' names 'All hands': channels match in any case
    assert plan.rows[1].request is not None and plan.rows[1].request.channel_id == "chan_1"


@pytest.mark.calendar
def test_excel_cell_types_and_header_spellings(sheets: SimpleNamespace) -> None:
    rows = [
        [
            " Channel ",
            "TITLE",
            "Body",
            "Publish Date",
            "publish-time",
            "Time Zone",
            "Tags",
            "Error",
        ],
        [
            "all-hands",
            2030,
            "Body",
            datetime(2030, 12, 2),
            time(9, 30),
            "Europe/Berlin",
            "a,b",
            "x",
        ],
        ["all-hands", "Serials", "Body", 47819, 0.375, "", None, None],
    ]
    plan = load_spreadsheet(sheets.xlsx(rows), filename="p.xlsx", tz="UTC", channels=INDEX)
    assert plan.is_valid, plan.errors
    first, second = (row.request for row in plan.rows)
    assert first is not None and second is not None
    assert first.title == "2030" and first.tags == ("a", "b")
    assert first.scheduled_at == datetime.fromisoformat("2030-12-02T08:30:00+00:00")
    assert second.scheduled_at == datetime.fromisoformat("2030-12-02T09:00:00+00:00")


@pytest.mark.calendar
def test_text_encodings_and_separators(sheets: SimpleNamespace) -> None:
    rows = [H, ["all-hands", "Ünïcödé ✓", "Body", "2030-12-02 09:00"]]
    for data in (
        sheets.csv(rows, encoding="utf-8-sig"),
        sheets.csv(rows, encoding="utf-16"),
        sheets.csv(rows, delimiter=";"),
        sheets.csv(rows, delimiter="\t"),
    ):
        plan = load_spreadsheet(data, filename="p.csv", tz="UTC")
        assert plan.is_valid and plan.rows[0].request is not None
        assert plan.rows[0].request.title == "Ünïcödé ✓"


@pytest.mark.calendar
def test_sheet_choice(sheets: SimpleNamespace) -> None:
    data = sheets.xlsx([H, GOOD], sheet="Posts", extra_sheets=["other"])
    assert load_spreadsheet(data, filename="p.xlsx", tz="UTC").sheet.name == "Posts"
    other = load_spreadsheet(data, filename="p.xlsx", tz="UTC", sheet="OTHER")
    assert other.sheet.name == "other"


@pytest.mark.calendar
def test_default_timezone_from_environment(
    sheets: SimpleNamespace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHANNELKIT_TZ", "America/New_York")
    plan = load_spreadsheet(sheets.csv([H, GOOD]), filename="p.csv")
    request = plan.rows[0].request
    assert request is not None and request.scheduled_at is not None
    assert request.scheduled_at.hour == 14  # 09:00 EST


@pytest.mark.calendar
def test_preview_lists_every_row(sheets: SimpleNamespace) -> None:
    rows = [H, GOOD, ["all-hands", "", "Body", "2030-12-02 09:00"]]
    frame = load_spreadsheet(sheets.csv(rows), filename="p.csv", tz="Europe/Berlin").preview()
    assert frame["row"].tolist() == [2, 3]
    assert frame["status"].tolist() == ["ok", "error"]
    assert frame.loc[0, "scheduled_at_utc"] == "2030-12-02T08:00:00Z"
    assert frame.loc[0, "scheduled_at (Europe/Berlin)"] == "2030-12-02 09:00"  # named with its zone
    assert frame.loc[1, "errors"] == "title: title is required"


def test_the_expected_columns_are_the_contract_s_post_fields_and_the_time_columns() -> None:
    from channelkit._spec import POST_FIELDS

    named = EXPECTED.split(", ")
    assert named[:6] == ["channel", "title", "body", "scheduled_at", "date", "time"]
    assert named[-1] == "timezone"
    # a sheet names the channel (`channel`: its name or slug), not its id
    writable = {f.name for f in POST_FIELDS if f.create} - {"channel_id"}
    assert writable <= set(named) and len(named) == len(set(named))


def test_a_title_row_above_the_header_gets_its_own_hint() -> None:
    text = (
        '"Content plan, spring 2031"\n'
        "channel,title,body,scheduled_at\n"
        "all-hands,Hi,Body,2031-03-04 09:00\n"
    )
    with pytest.raises(SpreadsheetError) as caught:
        load_spreadsheet(text.encode(), filename="plan.csv", tz="UTC")
    assert str(caught.value).startswith(
        "plan.csv: row 1 holds only 'Content plan, spring 2031', a title above the header "
        "row: row 2 has channelkit's columns; delete row 1 (and any rows above the headers) "
        "so the headers are in row 1; "
    )


@pytest.mark.calendar
def test_a_two_digit_year_in_a_posts_file_gets_its_own_hint() -> None:
    text = "channel,title,body,scheduled_at\nall-hands,Hi,Body,03/04/31 09:00\n"
    plan = load_spreadsheet(text.encode(), filename="plan.csv", tz="UTC")
    assert plan.rows[0].message == (
        "scheduled_at: '03/04/31 09:00' writes the year with two digits (31): write all four "
        "(2031?), or the date as YYYY-MM-DD"
    )
