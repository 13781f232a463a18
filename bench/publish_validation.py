"""Validation speed of a 10,000-row posts plan (target: <= 1 s for validate_post).

Run: .venv/bin/python bench/publish_validation.py [--small]

Figures: validate_post over 10,000 rows (pure validation), the same as a ratio to a baseline
pass that only touches every cell (strip + dict build), and end-to-end load_spreadsheet of
the same rows as CSV and XLSX (reading + validation + in-file duplicate check), and the
sent-posts ledger's work for the same rows (record them pending then created, as a submit
does, and look them all up, as the next run's check does) as a ratio to validate_post.
`--small` runs 500 rows once (a quick check that the bench runs).
"""

from __future__ import annotations

import argparse
import io
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from openpyxl import Workbook

from channelkit.publish import ChannelIndex, PostRequest, load_spreadsheet, validate_post
from channelkit.publish.post.ledger import Ledger
from channelkit.publish.sheets.template import TEMPLATE_COLUMNS

ROWS = 10_000
REPEATS = 3
SERVICE = "http://127.0.0.1:8000/v1"


def make_rows() -> list[dict[str, str]]:
    """The rows by column name; a template column not named here (a post field added since)
    stays empty, as in a file that leaves an optional column blank."""
    start = datetime(2030, 1, 7, 8, 0)
    step = timedelta(minutes=30)
    return [
        {
            "channel": f"channel-{i % 50}",
            "title": f"Post number {i}",
            "body": f"Body of **post {i}** with a [link](https://example.com/{i}).",
            "scheduled_at": f"{start + timedelta(days=i // 20) + step * (i % 20):%Y-%m-%d %H:%M}",
            "timezone": "Europe/Berlin" if i % 3 else "America/New_York",
            "priority": ("normal", "high")[i % 2],
            "tags": "news, weekly, team-a",
            "cover_image_url": "https://example.com/cover.png" if i % 5 == 0 else "",
        }
        for i in range(ROWS)
    ]


def ledger_round(requests: list[PostRequest]) -> None:
    """What the ledger adds to a submit and to the next run's check, in a fresh file."""
    with tempfile.TemporaryDirectory(prefix="channelkit-bench-") as folder:
        with Ledger.open(Path(folder) / "ledger.sqlite3") as ledger:
            ledger.pending(
                SERVICE, [(request, f"p.csv row {n}") for n, request in enumerate(requests)]
            )
            ledger.created(
                SERVICE,
                [(request.fingerprint(), f"post_{n}") for n, request in enumerate(requests)],
            )
            found = ledger.lookup(SERVICE, [request.fingerprint() for request in requests])
            assert len(found) == len({request.fingerprint() for request in requests})


def best_of(function: object) -> float:
    timings = []
    for _ in range(REPEATS):
        started = time.perf_counter()
        function()  # type: ignore[operator]
        timings.append(time.perf_counter() - started)
    return min(timings)


def main() -> None:
    global ROWS, REPEATS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="500 rows, once: a quick run")
    if parser.parse_args().small:
        ROWS, REPEATS = 500, 1
    fields = [{column: row.get(column, "") for column in TEMPLATE_COLUMNS} for row in make_rows()]
    rows = [list(row.values()) for row in fields]
    index = ChannelIndex.from_channels(
        {"id": f"chan_{i}", "name": f"Channel {i}", "slug": f"channel-{i}"} for i in range(50)
    )
    now = datetime.now(UTC)

    def baseline() -> None:
        for row in fields:
            {key: str(value).strip() for key, value in row.items()}

    def validate() -> None:
        for row in fields:
            result = validate_post(row, channels=index, tz=None, now=now)
            assert not isinstance(result, list), result

    csv_bytes = "\n".join(
        [",".join(TEMPLATE_COLUMNS)] + [",".join(f'"{cell}"' for cell in row) for row in rows]
    ).encode()
    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.append(list(TEMPLATE_COLUMNS))
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    workbook.save(buffer)
    xlsx_bytes = buffer.getvalue()

    def load_csv() -> None:
        assert load_spreadsheet(csv_bytes, filename="p.csv", channels=index).is_valid

    def load_xlsx() -> None:
        assert load_spreadsheet(xlsx_bytes, filename="p.xlsx", channels=index).is_valid

    requests = []
    for row in fields:
        request = validate_post(row, channels=index, tz=None, now=now)
        assert isinstance(request, PostRequest)
        requests.append(request)

    base = best_of(baseline)
    valid = best_of(validate)
    csv_time = best_of(load_csv)
    xlsx_time = best_of(load_xlsx)
    print(f"rows: {ROWS:,} (best of {REPEATS})")
    print(f"baseline (touch every cell): {base:.3f} s")
    print(f"validate_post:               {valid:.3f} s = {valid / base:.1f}x baseline")
    print(f"load_spreadsheet, CSV:       {csv_time:.3f} s = {csv_time / valid:.2f}x validate_post")
    print(
        f"load_spreadsheet, XLSX:      {xlsx_time:.3f} s = {xlsx_time / valid:.2f}x validate_post"
    )
    ledger_time = best_of(lambda: ledger_round(requests))
    print(
        f"sent-posts ledger (record + look up): {ledger_time:.3f} s = "
        f"{ledger_time / valid:.2f}x validate_post"
    )
    print(f"validate_post within the 1 s target: {valid <= 1.0}")


if __name__ == "__main__":
    main()
