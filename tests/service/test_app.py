"""The application's wiring: reads never write inside a read transaction."""

from __future__ import annotations

from typing import Any

import httpx

from channelkit.service import LocalService


def test_a_read_that_publishes_due_posts_writes_in_its_own_transaction(
    service: LocalService, api: httpx.Client, channel_id: str
) -> None:
    api.post(
        "/posts",
        json={"channel_id": channel_id, "title": "T", "body": "B",
              "scheduled_at": "2099-01-01T00:00:00Z"},
    )  # fmt: skip
    service.advance_clock(100 * 365 * 86_400)
    statements: list[str] = []
    con: Any = service._running().con  # the service's own connection, to watch its SQL
    con.set_trace_callback(statements.append)
    try:
        listed = api.get("/posts").json()["data"]
    finally:
        con.set_trace_callback(None)
    assert [post["status"] for post in listed] == ["published"]
    kinds = [s.split()[0].upper() for s in statements if s.split()[0].upper() in
             ("BEGIN", "COMMIT", "UPDATE", "INSERT", "DELETE")]  # fmt: skip
    assert "UPDATE" in kinds
    # every write sits in a BEGIN IMMEDIATE ... COMMIT block; the read's BEGIN holds none
    block: list[str] = []
    for statement in statements:
        word = statement.split()[0].upper()
        if word == "BEGIN":
            block = [statement.upper()]
        elif word in ("UPDATE", "INSERT", "DELETE"):
            assert block and block[0].startswith("BEGIN IMMEDIATE"), statements


def test_every_contract_operation_has_one_handler() -> None:
    from channelkit import _spec
    from channelkit.service.app import HANDLERS, WRITES, write

    assert set(HANDLERS) == {op.id for op in _spec.OPERATIONS}
    writes = {op.id for op in _spec.OPERATIONS if op.method != "GET"}
    assert set(WRITES) == writes == {name for name, h in HANDLERS.items() if h is write}
