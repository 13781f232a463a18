"""Idempotency-Key: a POST repeated with the same key and body creates nothing new.

A key is scoped to the workspace, not to the API key (decisions.md, "Idempotency across
the keys of a workspace"), so two people sending the same rows create each post once.

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
from channelkit.errors import ServiceHTTPError
from channelkit.service.workspace import Principal, visible_channels

HEADER = IDEMPOTENCY_HEADER


def check_key(value: str | None) -> str | None:
    if value is None:
        return None
    if not 1 <= len(value) <= IDEMPOTENCY_KEY_MAX_CHARS:
        raise ServiceHTTPError(
            400,
            f"{HEADER}: must be 1..{IDEMPOTENCY_KEY_MAX_CHARS} characters",
            param=HEADER,
        )
    return value


def request_meaning(method: str, path: str, body: bytes) -> str:
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
    con: sqlite3.Connection, who: Principal, key: str, print_: str, now: float
) -> tuple[int, bytes] | None:
    """The stored response for this key, or None when the request is new.

    Keys are scoped to the workspace: any API key of it gets the stored response, provided
    it can see what the first request created; otherwise a 409 that says nothing about it.
    """
    con.execute(
        "DELETE FROM workspace_idempotency WHERE created_at < ?",
        (now - IDEMPOTENCY_TTL_SECONDS,),
    )
    row = con.execute(
        "SELECT fingerprint, status, body, key_seq, resource_id FROM workspace_idempotency"
        " WHERE idem_key = ?",
        (key,),
    ).fetchone()
    if row is None:
        return None
    if row[0] != print_:
        raise ServiceHTTPError(
            409,
            f"{HEADER}: already used with a different request; use a new key per request",
            param=HEADER,
        )
    if not _may_see(con, who, row[3], row[4]):
        raise ServiceHTTPError(
            409,
            f"{HEADER}: already used in this workspace by a request whose result this API key"
            " cannot see; use a new key per request",
            param=HEADER,
        )
    return int(row[1]), bytes(row[2])


def _may_see(
    con: sqlite3.Connection, who: Principal, key_seq: int, resource_id: str | None
) -> bool:
    """Whether `who` may be shown the response that created `resource_id`: when the
    resource is gone, only the API key that created it may."""
    found = con.execute(
        "SELECT channel_seq FROM posts WHERE id = ?1 UNION ALL SELECT seq FROM channels"
        " WHERE id = ?1",
        (resource_id,),
    ).fetchone()
    if found is None:
        return who.key_seq == key_seq
    return int(found[0]) in visible_channels(con, who)


def remember(
    con: sqlite3.Connection,
    who: Principal,
    key: str,
    print_: str,
    status: int,
    body: bytes,
    resource_id: str | None,
    now: float,
) -> None:
    con.execute(
        "INSERT INTO workspace_idempotency VALUES (?, ?, ?, ?, ?, ?, ?)",
        (key, who.key_seq, print_, status, body, resource_id, now),
    )
