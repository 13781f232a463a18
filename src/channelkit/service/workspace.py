"""Users, teams, API keys and who can see which channel.

Keys are random and long, so a plain SHA-256 of the key is a safe stored form; the key
itself exists only in the response (or CLI output) that created it.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from channelkit._constants import SERVICE_EMAIL_DOMAIN, SERVICE_KEY_BYTES, SERVICE_KEY_PREFIX
from channelkit._spec import PLAN_LIMITS, PLANS, SCOPES, Plan
from channelkit.errors import WorkspaceError


@dataclass(frozen=True, slots=True)
class Principal:
    """The user behind an authenticated request, with the key's scopes and plan.

    principal = authenticate(con, key)  # None for an unknown or revoked key
    "posts:write" in principal.scopes
    """

    key_seq: int
    user_seq: int
    team_seq: int | None
    scopes: frozenset[str]
    plan: Plan


def fill_once(
    con: sqlite3.Connection,
    seed: str,
    build: Callable[[sqlite3.Connection, float], None],
    now: float,
) -> None:
    """Fill an empty workspace with `build`, unless a seed filled it before (of any name:
    restarting a service on its database keeps what it holds)."""
    if con.execute("SELECT value FROM meta WHERE key = 'seed'").fetchone() is not None:
        return
    if con.execute("SELECT 1 FROM channels LIMIT 1").fetchone():
        raise ValueError(f"the {seed} seed needs an empty workspace; this one has channels")
    build(con, now)
    con.execute("INSERT INTO meta VALUES ('seed', ?)", (seed,))


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


def hash_key(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def ensure_team(con: sqlite3.Connection, handle: str) -> int:
    row = con.execute("SELECT seq FROM teams WHERE handle = ?", (handle,)).fetchone()
    if row is not None:
        return int(row[0])
    cur = con.execute(
        "INSERT INTO teams (id, handle, name) VALUES (?, ?, ?)",
        (new_id("team"), handle, handle.replace("-", " ").title()),
    )
    return int(cur.lastrowid or 0)


def ensure_user(
    con: sqlite3.Connection, handle: str, team: str | None, name: str | None = None
) -> int:
    """The user `handle`, created if new; when `team` is given the user is moved into it."""
    team_seq = None if team is None else ensure_team(con, team)
    row = con.execute("SELECT seq FROM users WHERE handle = ?", (handle,)).fetchone()
    if row is not None:
        if team_seq is not None:
            con.execute("UPDATE users SET team_seq = ? WHERE seq = ?", (team_seq, row[0]))
        return int(row[0])
    local = re.sub(r"[^a-z0-9._-]+", ".", handle.lower()).strip(".") or "user"
    cur = con.execute(
        "INSERT INTO users (id, handle, name, email, team_seq) VALUES (?, ?, ?, ?, ?)",
        (new_id("user"), handle, name or handle, f"{local}@{SERVICE_EMAIL_DOMAIN}", team_seq),
    )
    return int(cur.lastrowid or 0)


def create_key(
    con: sqlite3.Connection,
    *,
    user: str,
    team: str | None,
    scopes: tuple[str, ...] | list[str],
    plan: str,
    now: float,
    name: str | None = None,
) -> str:
    """Create a key for `user` (and the user and team if new); return the key, shown once."""
    check_key_request(user, scopes, plan)
    user_seq = ensure_user(con, user, team, name)
    key = SERVICE_KEY_PREFIX + secrets.token_urlsafe(SERVICE_KEY_BYTES)
    con.execute(
        "INSERT INTO api_keys (hash, user_seq, scopes, plan, created_at) VALUES (?, ?, ?, ?, ?)",
        (hash_key(key), user_seq, " ".join(dict.fromkeys(scopes)), plan, int(now)),
    )
    return key


def check_key_request(user: str, scopes: tuple[str, ...] | list[str], plan: str) -> None:
    if not user.strip():
        raise WorkspaceError("user must not be empty")
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown:
        raise WorkspaceError(
            f"unknown scope(s) {', '.join(map(repr, unknown))}; choose from {', '.join(SCOPES)}"
        )
    if not scopes:
        raise WorkspaceError(f"give at least one scope: {', '.join(SCOPES)}")
    if plan not in PLAN_LIMITS:
        raise WorkspaceError(f"unknown plan {plan!r}; choose from {', '.join(PLAN_LIMITS)}")


def revoke_key(con: sqlite3.Connection, key: str, now: float) -> None:
    cur = con.execute(
        "UPDATE api_keys SET revoked_at = ? WHERE hash = ? AND revoked_at IS NULL",
        (int(now), hash_key(key)),
    )
    if cur.rowcount == 0:
        raise WorkspaceError("no active key matches the one given (unknown or already revoked)")


def authenticate(con: sqlite3.Connection, key: str) -> Principal | None:
    row = con.execute(
        "SELECT k.seq, k.user_seq, u.team_seq, k.scopes, k.plan FROM api_keys k "
        "JOIN users u ON u.seq = k.user_seq WHERE k.hash = ? AND k.revoked_at IS NULL",
        (hash_key(key),),
    ).fetchone()
    if row is None:
        return None
    # a plan the contract does not know (a hand-edited file) gets the least
    plan: Plan = next((p for p in PLANS if p == row[4]), "starter")
    return Principal(row[0], row[1], row[2], frozenset(row[3].split()), plan)


def visible_channels(con: sqlite3.Connection, principal: Principal) -> list[int]:
    """Sequence numbers of the channels `principal` can see, in creation order."""
    rows = con.execute(
        "SELECT seq FROM channels WHERE visibility = 'organization' "
        "OR (visibility = 'team' AND team_seq = ?) "
        "OR (visibility = 'private' AND seq IN "
        "    (SELECT channel_seq FROM channel_members WHERE user_seq = ?)) ORDER BY seq",
        (principal.team_seq, principal.user_seq),
    ).fetchall()
    return [int(r[0]) for r in rows]
