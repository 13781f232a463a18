"""Idempotency-Key: a POST repeated with the same key and body creates nothing new.

The first successful response is stored in the same transaction as the write it reports,
so a client whose connection died after the commit gets that response on retry.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3

from channelkit._spec import (
    IDEMPOTENCY_HEADER,
    IDEMPOTENCY_KEY_MAX_CHARS,
    IDEMPOTENCY_TTL_SECONDS,
)
from channelkit.service.errors import ApiError

HEADER = IDEMPOTENCY_HEADER


def check_key(value: str | None) -> str | None:
    if value is None:
        return None
    if not 1 <= len(value) <= IDEMPOTENCY_KEY_MAX_CHARS:
        raise ApiError(
            400,
            f"{HEADER}: must be 1..{IDEMPOTENCY_KEY_MAX_CHARS} characters",
            param=HEADER,
        )
    return value


def fingerprint(method: str, path: str, body: bytes) -> str:
    """What a request means: the same JSON with other whitespace or key order is the same
    request (the body in canonical form: sorted keys, no insignificant whitespace)."""
    try:
        canonical = json.dumps(
            json.loads(body), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        ).encode()
    except (
        ValueError,
        RecursionError,
    ):  # not JSON (nor UTF-8): refused with a 400 before anything is stored
        canonical = body
    return hashlib.sha256(method.encode() + b" " + path.encode() + b"\n" + canonical).hexdigest()


def replay(
    con: sqlite3.Connection, key_seq: int, key: str, print_: str, now: float
) -> tuple[int, bytes] | None:
    """The stored response for this key, or None when the request is new."""
    con.execute("DELETE FROM idempotency WHERE created_at < ?", (now - IDEMPOTENCY_TTL_SECONDS,))
    row = con.execute(
        "SELECT fingerprint, status, body FROM idempotency WHERE key_seq = ? AND idem_key = ?",
        (key_seq, key),
    ).fetchone()
    if row is None:
        return None
    if row[0] != print_:
        raise ApiError(
            409,
            f"{HEADER}: already used with a different request; use a new key per request",
            param=HEADER,
        )
    return int(row[1]), bytes(row[2])


def remember(
    con: sqlite3.Connection,
    key_seq: int,
    key: str,
    print_: str,
    status: int,
    body: bytes,
    now: float,
) -> None:
    con.execute(
        "INSERT INTO idempotency VALUES (?, ?, ?, ?, ?, ?)",
        (key_seq, key, print_, status, body, now),
    )
