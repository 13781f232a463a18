"""A small SQLite file that several processes write: the publishing ledger, deliver's record.

Both keep what was sent where readers of the warehouse never hold it, in WAL mode, with
writers taking turns (`Transaction`) and waiting `LEDGER_BUSY_SECONDS` for each other; a
record that cannot be opened is one line naming the file, and nothing is sent.

    class Sent(SqliteRecord):
        what, remedy = "the sent record", "the folder must be writable"
        tables = ("CREATE TABLE IF NOT EXISTS sent (id TEXT PRIMARY KEY)",)

        def add(self, post_id: str) -> None:
            with Transaction(self._con) as con:
                con.execute("INSERT INTO sent VALUES (?)", [post_id])

    with Sent(Path("sent.sqlite3")) as record:
        record.add("post_1")
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from types import TracebackType
from typing import ClassVar, Self

from channelkit._constants import LEDGER_BUSY_SECONDS
from channelkit.errors import ChannelkitError


class SqliteRecord:
    """The file at `path`, opened and set up (`tables`); a context manager that closes it
    (see the module docstring for a subclass)."""

    what: ClassVar[str]  # named in the one-line error: "the sent-posts ledger"
    remedy: ClassVar[str]  # what the user can do when it cannot be opened
    tables: ClassVar[tuple[str, ...]]  # a CREATE TABLE IF NOT EXISTS each
    makes_folder: ClassVar[bool] = False  # its folder is created when missing

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            if self.makes_folder:
                path.parent.mkdir(parents=True, exist_ok=True)
            self._con = sqlite3.connect(path, timeout=LEDGER_BUSY_SECONDS, isolation_level=None)
            set_up(self._con, *self.tables)
        except (OSError, sqlite3.Error) as exc:
            raise ChannelkitError(
                f"cannot open {self.what} {path}: {exc}; nothing was sent ({self.remedy})"
            ) from None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {str(self.path)!r}>"

    def close(self) -> None:
        self._con.close()


def set_up(con: sqlite3.Connection, *tables: str) -> None:
    """WAL mode and the `tables` (a CREATE TABLE IF NOT EXISTS each). Switching to WAL
    takes the file for itself without waiting (SQLite's busy timeout does not cover it), so
    a second process or thread opening the file at the same moment retries instead of
    failing; WAL then stays with the file."""
    deadline = time.monotonic() + LEDGER_BUSY_SECONDS
    while True:
        try:
            if con.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                con.execute("PRAGMA journal_mode=WAL")
            con.execute("PRAGMA synchronous=NORMAL")
            for table in tables:
                con.execute(table)
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


class Transaction:
    """BEGIN IMMEDIATE ... COMMIT (ROLLBACK on an error): other processes wait their turn.

    with Transaction(connection) as con:
        con.execute("UPDATE ...")  # every statement of the block, or none
    """

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con

    def __enter__(self) -> sqlite3.Connection:
        self.con.execute("BEGIN IMMEDIATE")
        return self.con

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.con.execute("COMMIT" if kind is None else "ROLLBACK")
