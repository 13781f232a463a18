"""The delivery ledger (table `delivery_ledger`): which (report, period, target) has been sent.

A target is recorded only after it succeeded, one row at a time, so a run that fails
half-way resends exactly the targets that did not get the report.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from channelkit.storage.connection import open_warehouse


def sent_targets(warehouse: Path, report: str, period: str) -> set[str]:
    """The targets that already received `report` for `period`."""
    con = open_warehouse(warehouse, read_only=False)
    try:
        rows = con.execute(
            "SELECT target FROM delivery_ledger WHERE report = ? AND period = ?",
            [report, period],
        ).fetchall()
    finally:
        con.close()
    return {str(row[0]) for row in rows}


def record_sent(
    warehouse: Path, report: str, period: str, targets: Iterable[str], now: datetime | None = None
) -> None:
    """Record that `targets` received `report` for `period` (again, with --force)."""
    stamp = now or datetime.now(UTC)
    rows = [[report, period, target, stamp] for target in targets]
    if not rows:
        return
    con = open_warehouse(warehouse, read_only=False)
    try:
        con.executemany("INSERT OR REPLACE INTO delivery_ledger VALUES (?, ?, ?, ?)", rows)
    finally:
        con.close()
