"""The service's SQLite database: schema, transactions, the workspace secret and clock.

One connection serves the whole process (the event loop and in-process callers such as
`LocalService.create_key`), guarded by a lock; other processes (`channelkit keys create`)
open their own connection to the same WAL-mode file.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from channelkit import _spec
from channelkit._constants import SERVICE_SQLITE_BUSY_MS
from channelkit.errors import ServiceDatabaseError
from channelkit.service.models import stored_fields

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS teams (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    handle TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS users (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    handle TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    email TEXT NOT NULL,
    team_seq INTEGER REFERENCES teams(seq)
);
CREATE TABLE IF NOT EXISTS api_keys (
    seq INTEGER PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    user_seq INTEGER NOT NULL REFERENCES users(seq),
    scopes TEXT NOT NULL,
    plan TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE TABLE IF NOT EXISTS channels (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    slug TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL,
    visibility TEXT NOT NULL,
    team_seq INTEGER REFERENCES teams(seq),
    is_default INTEGER NOT NULL,
    is_archived INTEGER NOT NULL,
    audience INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS channel_members (
    channel_seq INTEGER NOT NULL REFERENCES channels(seq),
    user_seq INTEGER NOT NULL REFERENCES users(seq),
    PRIMARY KEY (channel_seq, user_seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS posts (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    channel_seq INTEGER NOT NULL REFERENCES channels(seq),
    author_seq INTEGER NOT NULL REFERENCES users(seq),
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    priority TEXT NOT NULL,
    tags TEXT NOT NULL,
    status TEXT NOT NULL,
    published_at INTEGER,
    scheduled_at INTEGER,
    cover_image_url TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS posts_by_channel ON posts (channel_seq, seq);
CREATE INDEX IF NOT EXISTS posts_by_author ON posts (author_seq, seq);
CREATE INDEX IF NOT EXISTS posts_due ON posts (status, scheduled_at);
CREATE TABLE IF NOT EXISTS post_tags (
    tag TEXT NOT NULL,
    post_seq INTEGER NOT NULL REFERENCES posts(seq),
    PRIMARY KEY (tag, post_seq)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS post_daily (
    post_seq INTEGER NOT NULL REFERENCES posts(seq),
    day INTEGER NOT NULL,
    views INTEGER NOT NULL,
    unique_viewers INTEGER NOT NULL,
    reactions INTEGER NOT NULL,
    comments INTEGER NOT NULL,
    shares INTEGER NOT NULL,
    clicks INTEGER NOT NULL,
    PRIMARY KEY (post_seq, day)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS workspace_idempotency (
    idem_key TEXT PRIMARY KEY,
    key_seq INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    status INTEGER NOT NULL,
    body BLOB NOT NULL,
    resource_id TEXT,
    created_at REAL NOT NULL
) WITHOUT ROWID;
"""


def _scope_idempotency_to_workspace(con: sqlite3.Connection) -> None:
    """Files written before keys were scoped to the workspace keep their remembered
    responses (the first use of a key wins), so a retry across the upgrade creates nothing."""
    old = con.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'idempotency'"
    ).fetchone()
    if old is None:
        return
    con.execute(
        "INSERT OR IGNORE INTO workspace_idempotency SELECT idem_key, key_seq, fingerprint,"
        " status, body, CASE WHEN json_valid(body) THEN json_extract(body, '$.id') END,"
        " created_at FROM idempotency ORDER BY created_at"
    )
    con.execute("DROP TABLE idempotency")


def _add_contract_columns(con: sqlite3.Connection) -> None:
    """A field added to the contract gets its column, in new and existing files."""
    for table, fields in (("posts", _spec.POST_FIELDS), ("channels", _spec.CHANNEL_FIELDS)):
        present = {row[1] for row in con.execute(f"PRAGMA table_info({table})")}
        kinds = {f.name: f.kind for f in fields}
        for name in stored_fields(fields):
            if name not in present:
                kind = "INTEGER NOT NULL DEFAULT 0" if kinds[name] == "flag" else "TEXT"
                con.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


def insert_row(con: sqlite3.Connection, table: str, row: Mapping[str, Any]) -> int:
    """INSERT one row given as column -> value; returns its `seq` (the rowid)."""
    cur = con.execute(
        f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
        list(row.values()),
    )
    return int(cur.lastrowid or 0)


def update_row(con: sqlite3.Connection, table: str, seq: int, changes: Mapping[str, Any]) -> None:
    """UPDATE the columns named in `changes` of the row `seq`."""
    assignments = ", ".join(f"{name} = ?" for name in changes)
    con.execute(f"UPDATE {table} SET {assignments} WHERE seq = ?", [*changes.values(), seq])


class Database:
    """The service's storage: a SQLite connection, its lock, the workspace secret and clock.

    db = Database.open(":memory:")
    with db.transaction() as con:
        con.execute("SELECT count(*) FROM posts").fetchone()
    db.now()  # wall-clock time plus any offset added by advance_clock
    """

    def __init__(self, con: sqlite3.Connection, path: str) -> None:
        self.con = con
        self.path = path
        self.lock = threading.RLock()
        self.secret = bytes.fromhex(self._meta("secret") or "")
        self._offset = float(self._meta("clock_offset") or 0.0)

    @classmethod
    def open(cls, path: str | Path) -> Database:
        path = str(path)
        if path != ":memory:":
            parent = Path(path).parent
            if not parent.is_dir():
                raise ServiceDatabaseError(f"{path}: directory {parent} does not exist")
        try:
            con = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            con.execute(f"PRAGMA busy_timeout = {SERVICE_SQLITE_BUSY_MS}")
            if path != ":memory:":
                con.execute("PRAGMA journal_mode = WAL")
            con.execute("PRAGMA synchronous = NORMAL")
            con.execute("PRAGMA foreign_keys = ON")
            con.executescript(_SCHEMA)
            _add_contract_columns(con)
            _scope_idempotency_to_workspace(con)
            con.execute(
                "INSERT OR IGNORE INTO meta VALUES ('app', 'channelkit-service'), ('secret', ?)",
                (secrets.token_hex(32),),
            )
            app = con.execute("SELECT value FROM meta WHERE key = 'app'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise ServiceDatabaseError(
                f"{path}: cannot use as a channelkit service database: {exc}"
            ) from None
        if app is None or app[0] != "channelkit-service":
            raise ServiceDatabaseError(f"{path} is a SQLite file from another tool")
        return cls(con, path)

    def close(self) -> None:
        with self.lock:
            self.con.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock and run the block in one transaction (rolled back on error)."""
        with self.lock:
            self.con.execute("BEGIN IMMEDIATE")
            try:
                yield self.con
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
            self.con.execute("COMMIT")

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """Hold the lock for a consistent read of several statements."""
        with self.lock:
            self.con.execute("BEGIN")
            try:
                yield self.con
            finally:
                self.con.execute("COMMIT")

    def now(self) -> float:
        """The service's time: the wall clock moved forward by every `advance_clock`."""
        return time.time() + self._offset

    @property
    def clock_offset(self) -> float:
        """Seconds the service's clock is ahead of the wall clock (see `advance_clock`)."""
        return self._offset

    def advance_clock(self, seconds: float) -> None:
        with self.lock:
            self._offset += seconds
            self.con.execute(
                "INSERT OR REPLACE INTO meta VALUES ('clock_offset', ?)", (repr(self._offset),)
            )

    def _meta(self, key: str) -> str | None:
        row = self.con.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])
