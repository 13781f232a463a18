"""`deliver`'s record of what it sent: which (report, period, target) got what, in a file
of its own beside the warehouse (`warehouse.duckdb.delivered.sqlite3`).

The record is a small SQLite file in WAL mode, set up as the publishing ledger is
(`_sqlite_record`), never the warehouse: a notebook's read-only connection to the
warehouse, a sync switching its copy in, readers opening and closing it in a loop never
stop a line from being written, and `deliver` opens the warehouse only to read it.

Each target is claimed as `sending` (in one transaction that checks no run has it already)
before its message leaves, and settled `sent` or `failed` once the answer is in. A run
killed in between leaves `sending`: whether the message arrived is unknown, so it is never
sent again on its own (that could be a double); `deliver` says "unknown" for it until
someone checks and runs `--unknown resend` (send it again) or `--unknown sent` (record it
as received). A failed target is retried by the next run.

Warehouses written by earlier versions hold the record in their table `delivery_ledger`:
it is read once, read-only, and copied here as `sent`, so nothing is sent again after an
upgrade.

    with DeliveryLedger.beside(Path("warehouse.duckdb")) as ledger:
        if ledger.claim("weekly", "Week 47, 2026", "email:a@example.com") is None:
            ...  # send, then
            ledger.settle("weekly", "Week 47, 2026", "email:a@example.com", SENT)
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Self

import duckdb

from channelkit._constants import DELIVER_RECORD_SUFFIX
from channelkit._sqlite_record import SqliteRecord, Transaction
from channelkit.errors import WarehouseError
from channelkit.storage.connection import open_warehouse

SENDING, SENT, FAILED = "sending", "sent", "failed"
_TABLES = (
    """
    CREATE TABLE IF NOT EXISTS delivered (
        report TEXT NOT NULL,
        period TEXT NOT NULL,
        target TEXT NOT NULL,
        state TEXT NOT NULL CHECK (state IN ('sending', 'sent', 'failed')),
        pid INTEGER,
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (report, period, target)
    ) WITHOUT ROWID
    """,
    "CREATE TABLE IF NOT EXISTS record_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
)
_COPIED = "copied_from_warehouse"  # record_meta: when the warehouse's old rows were copied


@dataclass(frozen=True)
class Entry:
    """One target's line: `state` (`sending`, `sent`, `failed`), the process that wrote it
    and when (ISO 8601, UTC).

    Entry("sending", 4242, "2026-11-23T07:00:01+00:00").running  # is 4242 still alive?
    """

    state: str
    pid: int | None
    recorded_at: str

    @property
    def running(self) -> bool:
        """`sending`, by a process other than this one that is still alive."""
        if self.state != SENDING or self.pid is None or self.pid == os.getpid():
            return False
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except OSError:  # alive, another user's
            return True
        return True


def record_path(warehouse: Path) -> Path:
    """The record beside `warehouse`: `warehouse.duckdb.delivered.sqlite3`."""
    return warehouse.with_name(warehouse.name + DELIVER_RECORD_SUFFIX)


class DeliveryLedger(SqliteRecord):
    """The record of what `deliver` sent (see the module docstring).

    with DeliveryLedger.beside(Path("warehouse.duckdb")) as ledger:
        ledger.states("weekly", "Week 47, 2026")   # {"email:a@example.com": Entry(...)}
    """

    what = "the delivery record"
    remedy = "the folder of the warehouse must be writable"
    tables = _TABLES

    @classmethod
    def beside(cls, warehouse: Path) -> Self:
        """The record of `warehouse`, created when missing, with the rows an earlier
        version kept inside the warehouse copied in (once)."""
        ledger = cls(record_path(warehouse))
        try:
            ledger._copy_old_rows(warehouse)
        except BaseException:
            ledger.close()
            raise
        return ledger

    def states(self, report: str, period: str) -> dict[str, Entry]:
        """Every target's line for `report`'s `period`."""
        rows = self._con.execute(
            "SELECT target, state, pid, recorded_at FROM delivered WHERE report = ? AND period = ?",
            [report, period],
        )
        return {target: Entry(state, pid, at) for target, state, pid, at in rows}

    def claim(
        self, report: str, period: str, target: str, *, again: Collection[str] = ()
    ) -> Entry | None:
        """Mark `target` as `sending` before its message leaves; None when it is now this
        run's to send, else the line that stops it (sent, or being sent). A failed target
        is always claimed; one in a state of `again` too, unless another live run is
        sending it."""
        with Transaction(self._con) as con:
            found = con.execute(
                "SELECT state, pid, recorded_at FROM delivered WHERE report = ? AND "
                "period = ? AND target = ?",
                [report, period, target],
            ).fetchone()
            entry = Entry(*found) if found is not None else None
            if entry is not None and (
                entry.running or (entry.state != FAILED and entry.state not in again)
            ):
                return entry
            self._write(con, report, period, target, SENDING)
        return None

    def settle(self, report: str, period: str, target: str, state: str) -> None:
        """Record how the send of `target` ended (`sent`, `failed`), or a mark such as
        "no news this period" as `sent`."""
        with Transaction(self._con) as con:
            self._write(con, report, period, target, state)

    def _write(
        self, con: sqlite3.Connection, report: str, period: str, target: str, state: str
    ) -> None:
        con.execute(
            "INSERT OR REPLACE INTO delivered VALUES (?, ?, ?, ?, ?, ?)",
            [report, period, target, state, os.getpid(), _now()],
        )

    def _copy_old_rows(self, warehouse: Path) -> None:
        """Copy the `delivery_ledger` rows of a warehouse an earlier version wrote, once:
        they are never read from the warehouse again (nothing writes them any more)."""
        copied = self._con.execute(
            "SELECT value FROM record_meta WHERE key = ?", [_COPIED]
        ).fetchone()
        if copied is not None or not warehouse.exists():
            return
        rows = _old_rows(warehouse)
        with Transaction(self._con) as con:
            con.executemany(
                "INSERT OR IGNORE INTO delivered VALUES (?, ?, ?, 'sent', NULL, ?)", rows
            )
            con.execute("INSERT OR IGNORE INTO record_meta VALUES (?, ?)", [_COPIED, _now()])


def _old_rows(warehouse: Path) -> list[tuple[str, str, str, str]]:
    """(report, period, target, sent_at) of the warehouse's old table, read-only."""
    try:
        con = open_warehouse(warehouse, read_only=True)
    except WarehouseError as exc:
        raise WarehouseError(
            f"{exc} (deliver reads what earlier versions recorded in the warehouse once, "
            "and sends nothing before it has)"
        ) from None
    try:
        rows = con.execute("SELECT report, period, target, sent_at FROM delivery_ledger").fetchall()
    except duckdb.CatalogException:  # a warehouse from before the table (schema < 3)
        return []
    finally:
        con.close()
    return [(str(r), str(p), str(t), _iso(at)) for r, p, t, at in rows]


def _iso(value: object) -> str:
    return value.astimezone(UTC).isoformat() if isinstance(value, datetime) else str(value)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
