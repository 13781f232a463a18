"""The delivery record beside the warehouse: claims, settling, and the rows an earlier
version kept inside the warehouse, copied once."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from channelkit.errors import ChannelkitError
from channelkit.reports.deliver.delivery_ledger import (
    FAILED,
    SENDING,
    SENT,
    DeliveryLedger,
    Entry,
    record_path,
)
from channelkit.storage.connection import open_warehouse

WEEK = "Week 14, 2026 (2026-03-30 to 2026-04-05, UTC)"


def _old_row(db: Path, report: str, target: str) -> None:
    """A line as an earlier version recorded it, in the warehouse's own table."""
    con = open_warehouse(db, read_only=False)
    try:
        con.execute(
            "INSERT INTO delivery_ledger (report, period, target, sent_at) "
            "VALUES (?, ?, ?, TIMESTAMPTZ '2026-04-06 07:00:00+00')",
            [report, WEEK, target],
        )
    finally:
        con.close()


def test_an_earlier_versions_rows_are_copied_once_as_sent(small_warehouse: Path) -> None:
    _old_row(small_warehouse, "weekly", "email:a@example.com")
    with DeliveryLedger.beside(small_warehouse) as ledger:
        states = ledger.states("weekly", WEEK)
    assert states == {"email:a@example.com": Entry(SENT, None, "2026-04-06T07:00:00+00:00")}
    # read once: a row added to the old table afterwards is not read again
    _old_row(small_warehouse, "weekly", "email:b@example.com")
    with DeliveryLedger.beside(small_warehouse) as ledger:
        assert set(ledger.states("weekly", WEEK)) == {"email:a@example.com"}
    assert record_path(small_warehouse).name == "small.duckdb.delivered.sqlite3"


def test_a_target_is_claimed_once_and_settled(small_warehouse: Path) -> None:
    with DeliveryLedger.beside(small_warehouse) as ledger:
        assert ledger.claim("weekly", WEEK, "webhook:json:1") is None
        again = ledger.claim("weekly", WEEK, "webhook:json:1")
        assert again is not None and again.state == SENDING  # never claimed twice
        ledger.settle("weekly", WEEK, "webhook:json:1", FAILED)
        assert ledger.claim("weekly", WEEK, "webhook:json:1") is None  # a failure is retried
        ledger.settle("weekly", WEEK, "webhook:json:1", SENT)
        done = ledger.claim("weekly", WEEK, "webhook:json:1")
        assert done is not None and done.state == SENT
        # --force claims a sent target again
        assert ledger.claim("weekly", WEEK, "webhook:json:1", again={SENT, SENDING}) is None


def test_a_target_another_live_run_is_sending_is_never_claimed(
    small_warehouse: Path, tmp_path: Path
) -> None:
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        with DeliveryLedger.beside(small_warehouse) as ledger:
            ledger.settle("weekly", WEEK, "email:a@example.com", SENDING)
        with closing(sqlite3.connect(record_path(small_warehouse))) as con, con:
            con.execute("UPDATE delivered SET pid = ?", [sleeper.pid])
        with DeliveryLedger.beside(small_warehouse) as ledger:
            entry = ledger.claim("weekly", WEEK, "email:a@example.com", again={SENDING, SENT})
            assert entry is not None and entry.running
    finally:
        sleeper.kill()
        sleeper.wait()
    with DeliveryLedger.beside(small_warehouse) as ledger:  # it died: unknown, not running
        entry = ledger.states("weekly", WEEK)["email:a@example.com"]
        assert entry.state == SENDING and not entry.running
        assert ledger.claim("weekly", WEEK, "email:a@example.com", again={SENDING}) is None


def test_a_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    db = tmp_path / "missing-folder" / "w.duckdb"
    with pytest.raises(
        ChannelkitError, match=r"cannot open the delivery record .*nothing was sent"
    ):
        DeliveryLedger.beside(db)
