"""The posts this machine created from rows, so that a row is sent once, whatever happened.

Every post created from a spreadsheet row, a `ck.schedule` cell or the composer is kept
in one small SQLite file in the user's data folder (`CHANNELKIT_LEDGER` names another):
per service address, never per API key, with the fingerprint of what was sent
(`PostRequest.fingerprint`) and the post it became. Sending the same row again finds it
and creates nothing: after an edit, a reschedule or a cancel, a day or a year later, by
any key.

Crash safety: an entry is written as `pending`, with its idempotency key, before the
request leaves, and becomes `created` with the post's id once the answer is in. A process
killed in between leaves the pending entry; the next run finds the post among the
channel's posts, or resends with the same key (the service replays the first answer).

    with Ledger.open() as ledger:
        service = service_address(client.base_url)
        entry = ledger.lookup(service, [request.fingerprint()]).get(request.fingerprint())
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self
from urllib.parse import urlsplit, urlunsplit

from channelkit._constants import ENV_LEDGER, LEDGER_FILE_NAME
from channelkit._sqlite_record import SqliteRecord, Transaction
from channelkit.publish.post.validation import PostRequest

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sent (
    service TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'created')),
    post_id TEXT,
    sent TEXT NOT NULL,
    source TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (service, fingerprint)
) WITHOUT ROWID
"""
_CHUNK = 500  # fingerprints per lookup query (SQLite caps bound parameters)


@dataclass(frozen=True)
class LedgerEntry:
    """One row sent to one service: `state` is `pending` (sent, answer not recorded) or
    `created` (`post_id` is the post it became); `sent` the fields as sent."""

    fingerprint: str
    idempotency_key: str
    state: str
    post_id: str | None
    sent_json: str
    source: str
    recorded_at: str  # ISO 8601, UTC

    @property
    def sent(self) -> dict[str, Any]:
        """The fields as sent (`PostRequest.sent_fields()`)."""
        loaded: dict[str, Any] = json.loads(self.sent_json)
        return loaded


def default_path() -> Path:
    """`CHANNELKIT_LEDGER` if set, else the ledger file in the user's data folder."""
    named = os.environ.get(ENV_LEDGER, "").strip()
    return Path(named).expanduser() if named else _data_folder() / LEDGER_FILE_NAME


def service_address(base_url: str) -> str:
    """The service a ledger entry belongs to: scheme, host, port and path, lower-cased
    where case does not matter, without credentials or a trailing slash."""
    parts = urlsplit(base_url.strip())
    host = (parts.hostname or "").lower()
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), "", ""))


class Ledger(SqliteRecord):
    """The sent-posts ledger of this machine (see the module docstring).

    with Ledger.open() as ledger:
        ledger.pending(service, [(request, "posts.xlsx row 3")])   # before sending
        ledger.created(service, [(request.fingerprint(), post.id)])  # after
    """

    what = "the sent-posts ledger"
    remedy = f"set {ENV_LEDGER} to a file in a folder you can write"
    tables = (_SCHEMA,)
    makes_folder = True

    @classmethod
    def open(cls, path: str | Path | None = None) -> Self:
        """The ledger at `path` (default: `default_path()`), created when missing."""
        return cls(Path(path) if path is not None else default_path())

    def lookup(self, service: str, fingerprints: Iterable[str]) -> dict[str, LedgerEntry]:
        """The entries of `service` for these fingerprints (those it has)."""
        wanted = list(dict.fromkeys(fingerprints))
        found: dict[str, LedgerEntry] = {}
        for start in range(0, len(wanted), _CHUNK):
            chunk = wanted[start : start + _CHUNK]
            marks = ",".join("?" * len(chunk))
            cursor = self._con.execute(
                "SELECT fingerprint, idempotency_key, state, post_id, sent, source, recorded_at "
                f"FROM sent WHERE service = ? AND fingerprint IN ({marks})",
                [service, *chunk],
            )
            for fingerprint, *rest in cursor:
                found[fingerprint] = LedgerEntry(fingerprint, *rest)
        return found

    def pending(self, service: str, requests: Sequence[tuple[PostRequest, str]]) -> None:
        """Record (request, source) pairs as about to be sent, in one transaction; an
        entry that exists already is kept as it is (its key is the same)."""
        now = _now()
        with self._transaction() as con:
            con.executemany(
                "INSERT INTO sent (service, fingerprint, idempotency_key, state, sent, source, "
                "recorded_at) VALUES (?, ?, ?, 'pending', ?, ?, ?) "
                "ON CONFLICT (service, fingerprint) DO NOTHING",
                [
                    (
                        service,
                        request.fingerprint(),
                        request.idempotency_key(service),
                        request.sent_json(),
                        source,
                        now,
                    )
                    for request, source in requests
                ],
            )

    def created(self, service: str, posts: Sequence[tuple[str, str]]) -> None:
        """Record (fingerprint, post id) pairs as created, in one transaction."""
        if not posts:
            return
        now = _now()
        with self._transaction() as con:
            con.executemany(
                "UPDATE sent SET state = 'created', post_id = ?, recorded_at = ? "
                "WHERE service = ? AND fingerprint = ?",
                [(post_id, now, service, fingerprint) for fingerprint, post_id in posts],
            )

    def _transaction(self) -> Transaction:
        return Transaction(self._con)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _data_folder() -> Path:
    if sys.platform == "win32":
        base = os.environ.get("LOCALAPPDATA") or str(Path.home() / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = str(Path.home() / "Library" / "Application Support")
    else:
        base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "channelkit"
