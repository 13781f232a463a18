"""Hostile spreadsheets, each generated here and run through `channelkit schedule`.

Per file: the exit code; one line naming the row and the column (or the file, when the
file as a whole is unusable); no traceback; nothing sent unless every row is valid; a rerun
with another colleague's key creates nothing; and no output file holds a cell that a
spreadsheet would evaluate (opened with openpyxl and csv).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from openpyxl import Workbook, load_workbook

from channelkit.cli import main
from channelkit.client import Client
from channelkit.service import LocalService
from publish.conftest import make_csv, make_xlsx

HEADER = ["channel", "title", "body", "scheduled_at", "priority", "tags", "cover_image_url"]
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
WHEN = datetime(2030, 12, 2, 9, 0)  # a fixed hour ahead of every instant the suite runs at


def _good(n: int) -> list[object]:
    when = f"{WHEN + timedelta(hours=n):%Y-%m-%d %H:%M}"
    return ["all-hands", f"Good {n}", f"Body {n}", when, "", "", ""]


def _row(**cells: object) -> list[object]:
    row = dict(zip(HEADER, _good(99), strict=True))
    row.update(cells)
    return [row[name] for name in HEADER]


@dataclass(frozen=True)
class Case:
    """A file whose third data row (spreadsheet row 4) is `bad`, and what must happen."""

    name: str
    bad: list[object] | None  # None: `build` makes the whole file
    column: str  # the field the message must name ("" for a whole-file error)
    kind: str = "csv"
    exit_code: int = 1
    build: Callable[[], bytes] | None = None
    extra: list[str] = field(default_factory=list)  # more CLI options

    def data(self) -> bytes:
        if self.build is not None:
            return self.build()
        assert self.bad is not None
        good = [_good(n) for n in range(3)]
        bad = list(self.bad)
        # titles and bodies of this file only: no row exists from another case (a post with
        # the same title or body at the same minute in its channel is a duplicate)
        for row in [*good, bad]:
            row[1] = f"{row[1]} ({self.name})" if str(row[1]).startswith("Good ") else row[1]
            row[2] = f"{row[2]} ({self.name})" if str(row[2]).startswith("Body ") else row[2]
        rows = [HEADER, good[0], good[1], bad, good[2]]
        return make_csv(rows) if self.kind == "csv" else make_xlsx(rows)


def _t(value: object, kind: str = "csv") -> list[object]:
    return _row(scheduled_at=value)


def _formula_workbook() -> bytes:
    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.title = "posts"
    sheet.append(HEADER)
    sheet.append(_good(0))
    sheet.append(_row(title='=HYPERLINK("http://evil.example","x")'))
    sheet["B3"] = "=1+1"  # a real formula cell
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


ROW_CASES = [
    # Times: every one a row error, never a traceback.
    Case("offset-24h", _t("2030-01-01 09:00+24:00"), "scheduled_at"),
    Case("offset-99:99", _t("2030-01-01 09:00+99:99"), "scheduled_at"),
    Case("offset-18:30", _t("2030-01-01 09:00-18:30"), "scheduled_at"),
    Case("offset-minutes-60", _t("2030-01-01 09:00+05:60"), "scheduled_at"),
    Case("after-9999-in-utc", _t("9999-12-31 23:59:59-14:00"), "scheduled_at"),
    Case("before-year-1-in-utc", _t("0001-01-01 00:00+05:00"), "scheduled_at"),
    Case("year-zero", _t("0000-00-00 00:00"), "scheduled_at"),
    Case("february-30", _t("2030-02-30 09:00"), "scheduled_at"),
    Case("hour-24", _t("2030-01-01 24:00"), "scheduled_at"),
    Case("excel-serial-huge", _t(1e308), "scheduled_at", kind="xlsx"),
    Case("excel-serial-negative", _t(-5), "scheduled_at", kind="xlsx"),
    Case("excel-bool", _t(True), "scheduled_at", kind="xlsx"),
    Case(
        "excel-date-past-9999-in-utc",
        _t(datetime(9999, 12, 31, 23, 0)),
        "scheduled_at",
        kind="xlsx",
        extra=["--tz", "America/Los_Angeles"],
    ),
    Case("formula-text-time", _t("=NOW()"), "scheduled_at"),
    Case("in-the-past", _t("2001-01-01 09:00"), "scheduled_at"),
    Case("nan", _t("nan"), "scheduled_at"),
    Case("inf", _t("inf"), "scheduled_at"),
    Case("huge-number", _t("9" * 400), "scheduled_at"),
    Case("ambiguous-day-month", _t("01/02/2030 09:00"), "scheduled_at"),
    Case("fraction-and-bad-offset", _t("2030-01-01 09:00:00.5+24:00"), "scheduled_at"),
    # Text the service refuses.
    Case("title-nul", _row(title="\x00"), "", exit_code=2),  # NUL: CSV is refused as binary
    Case("title-zero-width-only", _row(title="\u200b\u200b\u200b"), "title"),
    Case("title-ansi-clear-screen", _row(title="\x1b[2J\x1b[H"), "title"),
    Case("title-bidi-only", _row(title="\u202e\u2066"), "title"),
    Case("title-c1-control", _row(title="News\x85today"), "title"),
    Case("title-201-chars", _row(title="T" * 201), "title"),
    Case("body-bell", _row(body="ding\x07"), "body"),
    Case("body-blank", _row(body="\u200b"), "body"),
    Case("tag-nul", _row(tags="hr,\x00"), "", exit_code=2),
    Case("title-backspace", _row(title="Pay\x08\x08\x08Free"), "title"),
    Case("tag-escape", _row(tags="hr,\x1b[31m"), "tags"),
    Case("tags-21", _row(tags=",".join(f"t{n}" for n in range(21))), "tags"),
    Case("tag-51-chars", _row(tags="x" * 51), "tags"),
    # Cover URLs the service refuses.
    Case("url-no-host", _row(cover_image_url="http://:80/x"), "cover_image_url"),
    Case("url-2049-chars", _row(cover_image_url="https://e.com/" + "a" * 2035), "cover_image_url"),
    Case("url-tab", _row(cover_image_url="https://e.com/a\tb.png"), "cover_image_url"),
    Case("url-javascript", _row(cover_image_url="javascript:alert(1)"), "cover_image_url"),
    Case("url-bad-port", _row(cover_image_url="https://e.com:99999/a.png"), "cover_image_url"),
    # Other cells.
    Case("priority-formula", _row(priority="=1+1"), "priority"),
    Case("urgent-unconfirmed", _row(priority="urgent"), "priority"),
    Case("channel-formula", _row(channel="=cmd|' /C calc'!A0"), "channel"),
    Case("channel-unknown-xlsx", _row(channel="@SUM(1,1)"), "channel", kind="xlsx"),
    Case(
        "twin-below-a-second",
        _row(title="Good 1", scheduled_at=f"{WHEN + timedelta(hours=1):%Y-%m-%d %H:%M}:00.7"),
        "title",
    ),
]

FILE_CASES = [
    # openpyxl stores "=1+1" as a formula: the reader refuses it, naming the cell.
    Case("body-formula-xlsx", _row(body="=1+1"), "", exit_code=2, kind="xlsx"),
    Case("empty", None, "", exit_code=2, build=lambda: b""),
    Case("binary-as-csv", None, "", exit_code=2, build=lambda: b"\x00\x01\x02\xff" * 50),
    Case(
        "xls-97",
        None,
        "",
        exit_code=2,
        build=lambda: b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 600,
    ),
    Case(
        "no-title-column",
        None,
        "",
        exit_code=2,
        build=lambda: make_csv([["channel", "body"], ["a", "b"]]),
    ),
    Case("formula-cell-xlsx", None, "", kind="xlsx", exit_code=2, build=_formula_workbook),
    Case(
        "not-utf8",
        None,
        "",
        exit_code=2,
        build=lambda: "channel,title\nall-hands,Caf\xe9\n".encode("latin-1") + b"\xff\xfe",
    ),
]

# Hostile but valid: sent as is, and every output keeps them as text.
VALID_CASES = [
    Case(
        "title-hyperlink-formula",
        _row(title='=HYPERLINK("http://evil.example","Open")'),
        "",
        exit_code=0,
    ),
    Case("title-dde", _row(title="=cmd|' /C calc'!A0"), "", exit_code=0),
    Case("title-plus", _row(title="+1+1"), "", exit_code=0),
    Case("title-at", _row(title="@SUM(1,1)"), "", exit_code=0, kind="xlsx"),
    Case("title-minus", _row(title="-2 hours to go"), "", exit_code=0),
    Case("title-bidi-inside", _row(title="invoice\u202egnp.exe"), "", exit_code=0),
    Case("tags-formula", _row(tags="=A1,+x"), "", exit_code=0),
]

CASES = ROW_CASES + FILE_CASES + VALID_CASES


@dataclass
class World:
    service: LocalService
    keys: tuple[str, str]

    def count(self) -> int:
        with Client(self.service.base_url, self.keys[0]) as client:
            return sum(1 for _ in client.posts.list())

    def run(self, path: Path, key: str, *options: str, case: Case | None = None) -> Result:
        env = {"CHANNELKIT_BASE_URL": self.service.base_url, "CHANNELKIT_TZ": "UTC"}
        args = ["schedule", str(path), "--api-key", key, *options, *(case.extra if case else [])]
        return CliRunner().invoke(main, args, env=env)


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with LocalService() as service:
        keys = (
            service.create_key(user="ann", team="comms", plan="enterprise"),
            service.create_key(user="bob", team="comms", plan="enterprise"),
        )
        with Client(service.base_url, keys[0]) as client:
            client.channels.create(name="All hands")
        yield World(service, keys)


def test_there_are_at_least_40_hostile_files() -> None:
    assert len(CASES) >= 40 and len({case.name for case in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_hostile_file(case: Case, world: World, tmp_path: Path) -> None:
    path = tmp_path / f"{case.name}.{case.kind}"
    path.write_bytes(case.data())
    out = "csv" if len(case.name) % 2 else "xlsx"  # both writers, across the cases
    results = tmp_path / f"results.{out}"
    failed = tmp_path / f"failed.{out}"
    before = world.count()

    dry = world.run(path, world.keys[0], "--results", str(results), case=case)
    submit = world.run(
        path,
        world.keys[0],
        "--submit",
        "--results",
        str(results),
        "--failed-rows",
        str(failed),
        case=case,
    )
    after_first = world.count()
    rerun = world.run(path, world.keys[1], "--submit", case=case)

    for result in (dry, submit, rerun):
        assert result.exit_code == case.exit_code, result.output
        assert isinstance(result.exception, SystemExit | None), result.output  # no traceback
        assert "Traceback" not in result.output
        assert "\x1b" not in result.output and "\u202e" not in result.output
    if case.exit_code == 1:  # a row error: one line naming row 4 and the column
        lines = [line for line in submit.output.splitlines() if line.startswith("row 4")]
        assert len(lines) == 1 and f"{case.column}:" in lines[0], submit.output
        assert after_first == before  # nothing sent: one row is not valid
    elif case.exit_code == 2:  # the file as a whole: one line naming it
        message = [line for line in submit.output.splitlines() if line.startswith("Error:")]
        assert len(message) == 1 and path.name in message[0], submit.output
        assert after_first == before
    else:  # hostile but valid: every row sent, once
        assert after_first == before + 4 and "4 created" in submit.output
    assert world.count() == after_first  # the rerun by another key created nothing
    if case.exit_code == 0:
        assert "0 created, 4 already created, 0 already scheduled" in rerun.output
    for output in (results, failed):
        if output.exists():
            assert not list(_evaluated_cells(output)), output


def test_failed_rows_file_keeps_formula_text_as_text(world: World, tmp_path: Path) -> None:
    rows = [
        HEADER,
        _row(title='=HYPERLINK("http://evil.example","x")', scheduled_at="2001-01-01 09:00"),
        _row(title="@SUM(1,1)", body="+1+1", scheduled_at="2030-01-01 09:00+24:00"),
    ]
    for out in ("csv", "xlsx"):
        path = tmp_path / f"posts-{out}.csv"
        path.write_bytes(make_csv(rows))
        failed = tmp_path / f"failed.{out}"
        result = world.run(
            path, world.keys[0], "--submit", "--allow-partial", "--failed-rows", str(failed)
        )
        assert result.exit_code == 1 and failed.exists(), result.output
        assert not list(_evaluated_cells(failed))
        titles = [row[1] for row in _cells(failed)[1:]]
        assert titles == ['\'=HYPERLINK("http://evil.example","x")', "'@SUM(1,1)"] or titles == [
            '=HYPERLINK("http://evil.example","x")',
            "@SUM(1,1)",
        ]


def _cells(path: Path) -> list[list[object]]:
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", newline="") as handle:
            return [list(row) for row in csv.reader(handle)]
    workbook = load_workbook(path)
    return [[cell.value for cell in row] for sheet in workbook for row in sheet.iter_rows()]


def _number(text: str) -> bool:
    """A plain number such as -5 is read as that number, never evaluated as a formula."""
    try:
        float(text)
    except ValueError:
        return False
    return text.strip() == text and "e" not in text.lower() and not text.startswith("+")


def _evaluated_cells(path: Path) -> Iterator[str]:
    """Cells a spreadsheet program would evaluate: formulas in a workbook, formula-like
    text in a CSV (Excel evaluates `=`, `+`, `-`, `@` at the start of a CSV cell)."""
    if path.suffix == ".csv":
        for row in _cells(path):
            for cell in row:
                if isinstance(cell, str) and cell.startswith(FORMULA_START) and not _number(cell):
                    yield cell
        return
    workbook = load_workbook(path)
    for sheet in workbook:
        for row in sheet.iter_rows():
            for cell in row:
                if cell.data_type == "f":
                    yield f"{cell.coordinate}: {cell.value}"
