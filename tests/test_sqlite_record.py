"""The SQLite record base the publishing ledger and deliver's record share."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from channelkit._sqlite_record import SqliteRecord, Transaction
from channelkit.errors import ChannelkitError


class Sent(SqliteRecord):
    what, remedy = "the sent record", "the folder must be writable"
    tables = ("CREATE TABLE IF NOT EXISTS sent (id TEXT PRIMARY KEY)",)

    def add(self, *ids: str) -> None:
        with Transaction(self._con) as con:
            con.executemany("INSERT INTO sent (id) VALUES (?)", [(i,) for i in ids])


def test_a_record_is_set_up_in_wal_mode_and_closed_by_its_block(tmp_path: Path) -> None:
    path = tmp_path / "sent.sqlite3"
    with Sent(path) as record:
        assert repr(record) == f"<Sent {str(path)!r}>"
        record.add("post_1")
    with pytest.raises(sqlite3.ProgrammingError):  # closed
        record.add("post_2")
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert con.execute("SELECT id FROM sent").fetchall() == [("post_1",)]
    con.close()


def test_a_failed_transaction_writes_none_of_its_rows(tmp_path: Path) -> None:
    with Sent(tmp_path / "sent.sqlite3") as record:
        record.add("post_1")
        with pytest.raises(sqlite3.IntegrityError):
            record.add("post_2", "post_1")
        assert record._con.execute("SELECT count(*) FROM sent").fetchone() == (1,)


def test_a_record_that_cannot_be_opened_is_one_line_naming_it(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder" / "sent.sqlite3"
    with pytest.raises(ChannelkitError) as caught:
        Sent(missing)
    message = str(caught.value)
    assert message.startswith(f"cannot open the sent record {missing}: ")
    assert message.endswith("; nothing was sent (the folder must be writable)")
    assert "\n" not in message and not missing.parent.exists()


def test_a_record_that_makes_its_folder(tmp_path: Path) -> None:
    class Made(Sent):
        makes_folder = True

    with Made(tmp_path / "new" / "sent.sqlite3") as record:
        record.add("post_1")
    assert (tmp_path / "new" / "sent.sqlite3").exists()
