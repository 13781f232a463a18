"""Files as spreadsheet programs write them: other charsets, CRLF inside cells, a leading
apostrophe, and files that LibreOffice opened and saved unchanged.

The LibreOffice files in `data/libreoffice/` were written by Debian's libreoffice-calc-nogui
(`data/libreoffice/regenerate.py`), so that this test does not need LibreOffice.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from openpyxl import load_workbook

from channelkit.cli import main
from channelkit.client import Client
from channelkit.errors import SpreadsheetError
from channelkit.export import to_csv
from channelkit.publish.post.validation import ChannelIndex
from channelkit.publish.sheets.plan import load_spreadsheet
from channelkit.publish.sheets.spreadsheet import read_sheet
from channelkit.service import LocalService
from publish.conftest import make_csv

DATA = Path(__file__).parents[1] / "data" / "libreoffice"
EXPORT = ["--from", "2030-12-01", "--to", "2030-12-31", "--tz", "Europe/Berlin"]
AT = datetime(2030, 12, 2, 9, 0, tzinfo=UTC)
H = ["channel", "title", "body", "scheduled_at", "timezone"]
INDEX = ChannelIndex.from_channels([{"id": "chan_1", "name": "All hands", "slug": "all-hands"}])


def create_posts(client: Client) -> None:
    """The posts the LibreOffice fixtures were exported from: an apostrophe before a formula
    character, a multi-line body, tags, a formula-like body, accents, an odd minute."""
    channel = client.channels.create(name="All hands")
    client.posts.create(
        channel_id=channel.id,
        title="'+quoted",
        body="Line one\nLine two",
        tags=["hr", "news"],
        scheduled_at=AT,
    )
    client.posts.create(
        channel_id=channel.id,
        title="Release 4.3 is out",
        body="=not a formula, 1/2, 0042",
        priority="high",
        scheduled_at=AT + timedelta(days=1),
    )
    client.posts.create(
        channel_id=channel.id,
        title="Café € ümlaut",
        body="Plain",
        scheduled_at=AT + timedelta(days=2, hours=5, minutes=30),
    )


def test_non_utf8_csv_names_the_sheet_row_and_how_to_save_utf8() -> None:
    multi_line = ["all-hands", "Title", "one\ntwo\nthree", "2030-12-02 09:00", "UTC"]
    rows = [H, *[multi_line] * 7, ["all-hands", "Café", "Body", "2030-12-02 10:00", "UTC"]]
    with pytest.raises(SpreadsheetError) as raised:
        read_sheet(make_csv(rows, encoding="cp1252"), filename="posts.csv")
    message = str(raised.value)
    # row 9 as the spreadsheet shows it (header 1, seven rows 2-8), not physical line 23
    assert "byte 0xe9 in row 9, as the spreadsheet numbers it" in message
    for program in ("Excel:", "LibreOffice:", "Google Sheets:"):
        assert program in message


@pytest.mark.calendar
def test_crlf_inside_cells_is_a_line_break() -> None:
    data = (
        b"channel,title,body,scheduled_at,timezone\r\n"
        b'all-hands,Two lines,"first\r\nsecond\rthird",2030-12-02 09:00,UTC\r\n'
    )
    plan = load_spreadsheet(data, filename="posts.csv", channels=INDEX)
    assert plan.errors == []
    request = plan.rows[0].request
    assert request is not None and request.body == "first\nsecond\nthird"


@pytest.mark.parametrize("text", ["'+quoted", "=x", "'hello", "''twice", "-2 hours", "plain"])
def test_text_survives_a_csv_round_trip(text: str, tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {"channel": ["all-hands"], "title": [text], "body": [text], "scheduled_at": ["2030"]}
    )
    path = to_csv(frame, tmp_path / "out.csv", with_header_block=False)
    assert read_sheet(path).rows[0].cells[1:3] == (text, text)


def _rekeyed(kind: str, fresh: Path, tmp_path: Path) -> Path:
    """The LibreOffice file with the ids, `updated_at` and fingerprints of `fresh` (an export
    of the same posts from this test's service), row by row; every other cell as written."""
    fixture = DATA / f"calendar-libreoffice.{kind}"
    old = read_sheet(DATA / f"calendar.{kind}")
    new = read_sheet(fresh)
    pairs = [
        (old.row_calendar(a), new.row_calendar(b)) for a, b in zip(old.rows, new.rows, strict=True)
    ]
    target = tmp_path / f"saved-by-libreoffice.{kind}"
    if kind == "csv":
        text = fixture.read_text(encoding="utf-8")
        # each record holds its own id: change the record from that id to the next one
        starts = [text.index(str(before["id"])) for before, _ in pairs] + [len(text)]
        parts = [text[: starts[0]]]
        for (before, after), start, end in zip(pairs, starts, starts[1:], strict=False):
            record = text[start:end]
            for field in ("id", "updated_at", "exported"):
                record = record.replace(str(before[field]), str(after[field]), 1)
            parts.append(record)
        target.write_text("".join(parts), encoding="utf-8")
    else:
        workbook = load_workbook(fixture)
        sheet = workbook.active
        assert sheet is not None
        headers = [cell.value for cell in sheet[1]]
        for number, (_, after) in enumerate(pairs, start=2):
            for field in ("id", "updated_at", "exported"):
                sheet.cell(number, headers.index(field) + 1).value = str(after[field])
        workbook.save(target)
    return target


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
@pytest.mark.calendar
def test_a_file_libreoffice_saved_unchanged_dry_runs_with_no_changes(
    kind: str, service: LocalService, admin_key: str, tmp_path: Path
) -> None:
    fixture = (DATA / f"calendar-libreoffice.{kind}").read_bytes()
    if kind == "csv":  # LibreOffice rewrote it: every text quoted, times with seconds
        assert b"\"''+quoted\"" in fixture and b"2030-12-02 10:00:00" in fixture
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        create_posts(client)
    flags = ["--base-url", service.base_url, "--api-key", admin_key]
    fresh = tmp_path / f"fresh.{kind}"
    exported = CliRunner().invoke(main, ["calendar", "export", str(fresh), *EXPORT, *flags])
    assert exported.exit_code == 0, exported.output
    saved = _rekeyed(kind, fresh, tmp_path)
    # --verbose: a calendar's dry run lists only the rows that change unless asked for all
    result = CliRunner().invoke(main, ["schedule", str(saved), "--verbose", *flags])
    assert result.exit_code == 0, result.output
    assert re.search(r": 3 rows: 0 create, 0 update, 0 reschedule, .* 3 unchanged", result.output)
    assert "add --submit to apply 0 changes" in result.output
    assert 'row 2 ("\'+quoted", All hands): unchanged' in result.output
