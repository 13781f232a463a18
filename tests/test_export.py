"""ck.to_csv / ck.to_excel: files a spreadsheet opens without running anything."""

from __future__ import annotations

import csv
import io
import os
import re
import stat
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import cast

import numpy as np
import openpyxl
import pandas as pd
import pytest

import channelkit as ck
from channelkit.export import csv_text, header_block, safe_cell, write_csv_rows

HOSTILE = ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tTAB", "\rCR", '=HYPERLINK("http://evil")']


def _frame() -> pd.DataFrame:
    n = len(HOSTILE)
    published = pd.Series(
        pd.date_range("2026-10-05 08:00", periods=n, freq="D", tz="UTC")
    ).dt.tz_convert("Europe/Berlin")
    frame = pd.DataFrame(
        {
            "title": HOSTILE,
            "published_at": published,
            "tags": pd.Series([["a", "b"], [], ["x"], None, ["y"], ["z"], ["=w"]], dtype=object),
            "readers": pd.array([np.int64(3), None, 5, 6, 7, 8, 9], dtype="Int64"),
            "read_rate": [0.5, np.nan, 0.25, np.float64(0.1), 0.2, 0.3, 0.4],
            "day": [date(2026, 10, 5)] * n,
            "flag": pd.array([True, False, None, True, True, False, True], dtype="boolean"),
        }
    )
    frame.attrs.update(
        period="October 2026",
        previous_period="September 2026",
        filters={"channel": ["=All Hands"], "tag": None},
        complete=False,
        warnings=["2 posts have no audience row."],
        tz="Europe/Berlin",
    )
    return frame


def _no_numpy_repr(text: str) -> None:
    for marker in ("np.", "array(", "numpy", "<NA>", "NaT", "nan", "[", "]"):
        assert marker not in text, marker


def _trimmed(row: list[object]) -> list[object]:
    # Header-block rows are two cells wide; the sheet pads them to the table's width.
    if row[0] is not None and row[0] != "title" and set(row[2:]) == {None}:
        return row[:2]
    return row


def test_excel_has_no_formulas_no_numpy_reprs_and_a_header_block(tmp_path: Path) -> None:
    path = ck.to_excel({"KPIs": _frame(), "Other": _frame().head(2)}, tmp_path / "out.xlsx")
    book = openpyxl.load_workbook(path)
    assert book.sheetnames == ["KPIs", "Other"]
    sheet = book["KPIs"]
    values: list[list[object]] = [[cell.value for cell in row] for row in sheet.iter_rows()]
    values = [_trimmed(row) for row in values]
    assert all(cell.data_type != "f" for row in sheet.iter_rows() for cell in row)
    assert values[0] == ["Period", "October 2026"]
    assert values[1] == ["Compared with", "September 2026"]
    assert values[2] == ["Filters", "channel: =All Hands"]
    assert values[5][0] == "Warnings"
    header_at = next(i for i, row in enumerate(values) if row[0] == "title")
    assert set(values[header_at - 1]) == {None}
    assert values[header_at][1] == "published_at (Europe/Berlin)"
    rows = values[header_at + 1 :]
    # Text kept exactly, stored as strings (XML itself reads a lone CR as a line feed).
    assert [r[0] for r in rows] == [h.replace("\r", "\n") for h in HOSTILE]
    assert rows[0][1] == datetime(2026, 10, 5, 10, 0)  # local wall time, naive
    assert rows[0][2] == "a, b" and rows[1][2] is None and rows[6][2] == "=w"
    assert rows[0][3] == 3 and rows[1][3] is None
    assert rows[1][4] is None and rows[3][4] == pytest.approx(0.1)
    assert rows[2][6] is None and rows[0][6] is True
    for row in sheet.iter_rows():
        for cell in row:
            if isinstance(cell.value, str):
                _no_numpy_repr(cell.value.replace("[ ] : * ? / \\", ""))


def test_csv_escapes_formula_text_and_reads_back(tmp_path: Path) -> None:
    frame = _frame()
    path = ck.to_csv(frame, tmp_path / "out.csv")
    with path.open(encoding="utf-8", newline="") as handle:
        text = handle.read()
    rows = list(csv.reader(io.StringIO(text, newline="")))
    block = header_block(frame.attrs)
    assert rows[: len(block)] == [[label, str(value)] for label, value in block]
    assert rows[len(block)] == []
    table = rows[len(block) + 1 :]
    assert table[0][:2] == ["title", "published_at (Europe/Berlin)"]
    assert [r[0] for r in table[1:]] == ["'" + h for h in HOSTILE]
    assert table[1][1] == "2026-10-05 10:00:00"
    assert table[1][2] == "a, b" and table[7][2] == "'=w"
    assert all(not cell.startswith(ck.export.FORMULA_PREFIXES) for r in rows for cell in r)
    back = pd.read_csv(path, skiprows=len(block) + 1)
    assert list(back["readers"].astype("Int64")) == list(frame["readers"])
    _no_numpy_repr(text.replace("[", "").replace("]", ""))


def test_plain_rows_and_safe_cell() -> None:
    assert safe_cell("-5") == "'-5" and safe_cell(-5) == -5 and safe_cell(np.int32(7)) == 7
    assert safe_cell(datetime(2026, 1, 2, 3, 4, tzinfo=UTC)) == "2026-01-02 03:04:00+00:00"
    assert safe_cell(pd.NaT) is None and safe_cell(pd.NA) is None
    assert safe_cell(np.array(["b", "a"])) == "b, a"
    # NumPy counts a timedelta64 among its integers: it is a duration all the same
    assert safe_cell(np.timedelta64(90, "s")) == "0 days 00:01:30"


def test_write_csv_rows(tmp_path: Path) -> None:
    path = write_csv_rows(tmp_path / "r.csv", [["=x", 1, ["a", "b"]]], header=["t", "n", "tags"])
    assert path.read_bytes() == b't,n,tags\r\n\'=x,1,"a, b"\r\n'


def test_files_follow_the_umask_and_leave_no_temporary(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        xlsx = ck.to_excel(_frame(), tmp_path / "a.xlsx")
        csv_path = ck.to_csv(_frame(), tmp_path / "a.csv")
    finally:
        os.umask(old)
    assert stat.S_IMODE(xlsx.stat().st_mode) == 0o640
    assert stat.S_IMODE(csv_path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "a.xlsx"]


def test_a_failed_write_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "a.xlsx"
    path.write_bytes(b"old")
    with pytest.raises(ck.InvalidParameterError) as info:
        ck.to_excel({"bad/name": _frame()}, path)
    assert info.value.param == "frames"
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.xlsx"]


@pytest.mark.parametrize(
    ("call", "param"),
    [
        (lambda p: ck.to_csv(cast(pd.DataFrame, [1, 2]), p / "x.csv"), "frame"),
        (lambda p: ck.to_excel({}, p / "x.xlsx"), "frames"),
        (lambda p: ck.to_excel(pd.DataFrame({"a": [1]}), p / "x.csv"), "path"),
        (lambda p: ck.to_csv(pd.DataFrame({"a": [1]}), p / "missing" / "x.csv"), "path"),
        (lambda p: ck.to_csv(pd.DataFrame({"a": [1]}), p), "path"),
        (lambda p: ck.to_excel({"a": pd.DataFrame(), "A": pd.DataFrame()}, p / "x.xlsx"), "frames"),
    ],
)
def test_mistakes_name_the_parameter(
    tmp_path: Path, call: Callable[[Path], object], param: str
) -> None:
    with pytest.raises(ck.InvalidParameterError) as info:
        call(tmp_path)
    assert info.value.param == param


def test_index_and_no_attrs() -> None:
    frame = pd.DataFrame({"v": [1, 2]}, index=pd.Index(["x", "=y"], name="tag"))
    assert csv_text(frame) == "tag,v\r\nx,1\r\n'=y,2\r\n"


def test_warehouse_frames_go_to_excel_without_formulas_or_numpy_reprs(tmp_path: Path) -> None:
    from fixtures.warehouse import XSS_TAG, build_small_warehouse

    wh = ck.Warehouse(build_small_warehouse(tmp_path / "w.duckdb"))
    period = {"start": "2026-03-16", "end": "2026-04-06", "tz": "Europe/Berlin"}
    posts = wh.posts(**period)
    posts.loc[0, "title"] = "=cmd|' /C calc'!A0"  # a hostile title, as a sync could bring
    frames = {
        "Posts": posts,
        "KPIs": wh.kpis(period="2026-W13", channel="engineering"),
        "Top": wh.top_posts(**period),
        "Tags": wh.tag_performance(**period),
    }
    book = openpyxl.load_workbook(ck.to_excel(frames, tmp_path / "all.xlsx"))
    texts = []
    for sheet in book.worksheets:
        for row in sheet.iter_rows():
            for cell in row:
                assert cell.data_type != "f", (sheet.title, cell.coordinate, cell.value)
                if isinstance(cell.value, str):
                    texts.append(cell.value)
    joined = "\n".join(texts)
    for marker in ("array(", "np.", "<NA>", "NaT", "Timestamp(", "['"):
        assert marker not in joined, marker
    assert not re.search(r"\bnan\b", joined)
    assert "=cmd|' /C calc'!A0" in texts  # kept as text, not run
    assert f"{XSS_TAG}, eng" in texts  # a tag list joined with ", "
    kpis = book["KPIs"]
    assert [kpis["A1"].value, kpis["B1"].value] == ["Period", "Week 13, 2026"]
    assert [kpis["A3"].value, kpis["B3"].value] == ["Filters", "channel: Engineering"]
    header = [
        c.value
        for c in book["Posts"][
            next(r for r in range(1, 12) if book["Posts"].cell(r, 1).value == "id")
        ]
    ]
    assert "published_at (Europe/Berlin)" in header
