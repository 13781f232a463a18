"""Keyset pagination: complete, stable under concurrent inserts, tamper-evident cursors."""

from __future__ import annotations

import threading
from typing import Any

import httpx
import pytest

from channelkit.service import LocalService


def _fill(api: httpx.Client, channel_id: str, n: int) -> list[str]:
    return [
        api.post("/posts", json={"channel_id": channel_id, "title": f"p{i}", "body": "b"}).json()[
            "id"
        ]
        for i in range(n)
    ]


def test_walk_is_stable_while_posts_arrive(api: httpx.Client, channel_id: str) -> None:
    existing = _fill(api, channel_id, 23)
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params: dict[str, Any] = {"limit": 5}
        if cursor:
            params["cursor"] = cursor
        page = api.get("/posts", params=params).json()
        seen += [p["id"] for p in page["data"]]
        pages += 1
        _fill(api, channel_id, 2)  # new posts between pages must not disturb the walk
        if not page["has_more"]:
            assert page["next_cursor"] is None
            break
        assert page["next_cursor"]
        cursor = page["next_cursor"]
    assert seen == list(reversed(existing))
    assert pages == 5


def test_deleted_items_do_not_break_the_walk(api: httpx.Client, channel_id: str) -> None:
    ids = _fill(api, channel_id, 6)
    first = api.get("/posts", params={"limit": 3}).json()
    api.delete(f"/posts/{ids[2]}")  # the first item of the next page
    second = api.get("/posts", params={"limit": 3, "cursor": first["next_cursor"]}).json()
    assert [p["id"] for p in second["data"]] == [ids[1], ids[0]]
    assert second["has_more"] is False


def test_channels_paginate(api: httpx.Client) -> None:
    made = [api.post("/channels", json={"name": f"c{i}"}).json()["id"] for i in range(5)]
    first = api.get("/channels", params={"limit": 2}).json()
    second = api.get("/channels", params={"limit": 2, "cursor": first["next_cursor"]}).json()
    third = api.get("/channels", params={"limit": 2, "cursor": second["next_cursor"]}).json()
    walked = [c["id"] for page in (first, second, third) for c in page["data"]]
    assert walked == made and third["has_more"] is False


@pytest.mark.parametrize("limit", ["0", "101", "-1", "ten", "1.5", "5_0", ""])
def test_bad_limit(api: httpx.Client, error_of: Any, limit: str) -> None:
    response = api.get("/posts", params={"limit": limit})
    assert error_of(response) == (400, "invalid_request", "limit")


def test_tampered_or_foreign_cursors(
    api: httpx.Client, channel_id: str, error_of: Any, service_factory: Any, client_for: Any
) -> None:
    _fill(api, channel_id, 3)
    cursor = api.get("/posts", params={"limit": 1}).json()["next_cursor"]
    body, mac = cursor.split(".")
    flipped = body[:-1] + ("A" if body[-1] != "A" else "B")
    candidates = [
        flipped + "." + mac,
        body + "." + mac[:-2],
        "garbage",
        "a.b.c",
        "!!!." + mac,
        cursor * 20,
    ]
    for bad in candidates:
        response = api.get("/posts", params={"limit": 1, "cursor": bad})
        assert error_of(response) == (400, "invalid_request", "cursor"), bad
    # a cursor for other filters, or for another listing, is refused too
    other_filter = api.get("/posts", params={"limit": 1, "cursor": cursor, "tag": "x"})
    assert error_of(other_filter) == (400, "invalid_request", "cursor")
    other_listing = api.get("/channels", params={"cursor": cursor})
    assert error_of(other_listing) == (400, "invalid_request", "cursor")
    # and so is one from another service
    other = service_factory()
    foreign = client_for(other, other.create_key()).get("/posts", params={"cursor": cursor})
    assert error_of(foreign) == (400, "invalid_request", "cursor")


def test_cursor_survives_restart(tmp_path: Any, service_factory: Any, client_for: Any) -> None:
    path = str(tmp_path / "svc.sqlite")
    first: LocalService = service_factory(db=path)
    key = first.create_key()
    api = client_for(first, key)
    channel = api.post("/channels", json={"name": "c"}).json()["id"]
    _fill(api, channel, 3)
    cursor = api.get("/posts", params={"limit": 2}).json()["next_cursor"]
    first.stop()
    second = service_factory(db=path)
    page = client_for(second, key).get("/posts", params={"limit": 2, "cursor": cursor})
    assert page.status_code == 200 and [p["title"] for p in page.json()["data"]] == ["p0"]


def test_walk_is_stable_under_concurrent_writers(
    service: LocalService, api: httpx.Client, channel_id: str, client_for: Any
) -> None:
    existing = set(_fill(api, channel_id, 40))
    writer = client_for(service, service.create_key(user="writer"))
    stop = threading.Event()

    def write() -> None:
        while not stop.is_set():
            writer.post("/posts", json={"channel_id": channel_id, "title": "new", "body": "b"})

    thread = threading.Thread(target=write)
    thread.start()
    try:
        seen: list[str] = []
        cursor = None
        while True:
            params: dict[str, Any] = {"limit": 7, **({"cursor": cursor} if cursor else {})}
            page = api.get("/posts", params=params).json()
            seen += [p["id"] for p in page["data"]]
            cursor = page["next_cursor"]
            if cursor is None:
                break
    finally:
        stop.set()
        thread.join()
    assert len(seen) == len(set(seen))  # nothing twice
    assert existing <= set(seen)  # nothing that existed missed
