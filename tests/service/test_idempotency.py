"""Idempotency-Key on POST: replay without a second write, conflict on another body, one
scope for the whole workspace (any API key), nothing revealed to a key that cannot see."""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from channelkit.service import LocalService


def test_same_key_same_body_replays(api: httpx.Client, channel_id: str) -> None:
    body = {"channel_id": channel_id, "title": "Once", "body": "b"}
    headers = {"Idempotency-Key": "abc-123"}
    first = api.post("/posts", json=body, headers=headers)
    second = api.post("/posts", json=body, headers=headers)
    assert first.status_code == second.status_code == 201
    assert second.json() == first.json()
    assert second.headers.get("Idempotent-Replayed") == "true"
    assert len(api.get("/posts").json()["data"]) == 1


def test_same_key_other_body_conflicts(api: httpx.Client, channel_id: str, error_of: Any) -> None:
    headers = {"Idempotency-Key": "k1"}
    api.post("/posts", json={"channel_id": channel_id, "title": "A", "body": "b"}, headers=headers)
    other = api.post(
        "/posts", json={"channel_id": channel_id, "title": "B", "body": "b"}, headers=headers
    )
    assert error_of(other) == (409, "conflict", "Idempotency-Key")
    channel = api.post("/channels", json={"name": "x"}, headers=headers)  # other path, same key
    assert error_of(channel) == (409, "conflict", "Idempotency-Key")


def test_keys_are_per_workspace_and_expire(
    api: httpx.Client, channel_id: str, service: Any, client_for: Any
) -> None:
    body = {"channel_id": channel_id, "title": "A", "body": "b"}
    headers = {"Idempotency-Key": "shared"}
    first = api.post("/posts", json=body, headers=headers)
    colleague = client_for(service, service.create_key(user="zoe"))
    theirs = colleague.post("/posts", json=body, headers=headers)
    assert theirs.status_code == 201
    assert theirs.json() == first.json()
    assert theirs.headers.get("Idempotent-Replayed") == "true"
    assert [p["id"] for p in api.get("/posts").json()["data"]] == [first.json()["id"]]
    service.advance_clock(24 * 3600 + 1)
    later = colleague.post("/posts", json=body, headers=headers).json()
    assert later["id"] != first.json()["id"]


def test_another_key_with_another_body_conflicts(
    api: httpx.Client, channel_id: str, service: Any, client_for: Any, error_of: Any
) -> None:
    headers = {"Idempotency-Key": "shared"}
    api.post("/posts", json={"channel_id": channel_id, "title": "A", "body": "b"}, headers=headers)
    colleague = client_for(service, service.create_key(user="zoe"))
    other = colleague.post(
        "/posts", json={"channel_id": channel_id, "title": "B", "body": "b"}, headers=headers
    )
    assert error_of(other) == (409, "conflict", "Idempotency-Key")
    assert len(api.get("/posts").json()["data"]) == 1


def test_a_replay_reveals_nothing_to_a_key_that_cannot_see_the_post(
    api: httpx.Client, service: Any, client_for: Any, error_of: Any
) -> None:
    """The admin (team comms) posts in a team channel; an outsider sending the very same
    request with the same key gets a 409 that names neither the post nor the channel."""
    team = api.post("/channels", json={"name": "Comms only", "visibility": "team"}).json()
    body = {"channel_id": team["id"], "title": "Secret plan", "body": "b"}
    headers = {"Idempotency-Key": "row-7"}
    post = api.post("/posts", json=body, headers=headers).json()
    outsider = client_for(service, service.create_key(user="max", team="sales"))
    replay = outsider.post("/posts", json=body, headers=headers)
    assert error_of(replay) == (409, "conflict", "Idempotency-Key")
    for secret in (post["id"], team["id"], "Secret plan", "Comms only", "comms"):
        assert secret not in replay.text
    teammate = client_for(service, service.create_key(user="ivy", team="comms"))
    assert teammate.post("/posts", json=body, headers=headers).json() == post


def test_a_deleted_post_is_replayed_to_its_creator_only(
    api: httpx.Client, channel_id: str, service: Any, client_for: Any, error_of: Any
) -> None:
    body = {"channel_id": channel_id, "title": "Gone", "body": "b"}
    headers = {"Idempotency-Key": "gone"}
    post = api.post("/posts", json=body, headers=headers).json()
    assert api.delete(f"/posts/{post['id']}").status_code == 204
    assert api.post("/posts", json=body, headers=headers).json() == post
    colleague = client_for(service, service.create_key(user="zoe"))
    replay = colleague.post("/posts", json=body, headers=headers)
    assert error_of(replay) == (409, "conflict", "Idempotency-Key")
    assert post["id"] not in replay.text
    assert api.get("/posts").json()["data"] == []


def test_two_keys_at_the_same_moment_create_each_post_once(
    api: httpx.Client, channel_id: str, service: Any
) -> None:
    """Two people send the same 20 rows concurrently, each with their own key: one post
    per row, and each of them is told about that one post."""
    keys = [service.create_key(user=name, plan="enterprise") for name in ("ann", "bob")]
    rows = [{"channel_id": channel_id, "title": f"Row {n}", "body": "b"} for n in range(20)]

    def send(key: str) -> list[str]:
        with httpx.Client(
            base_url=service.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=10
        ) as client:
            return [
                client.post("/posts", json=row, headers={"Idempotency-Key": f"sheet-{n}"}).json()[
                    "id"
                ]
                for n, row in enumerate(rows)
            ]

    with ThreadPoolExecutor(2) as pool:
        ann, bob = pool.map(send, keys)
    assert ann == bob
    listed = api.get("/posts", params={"limit": 100}).json()["data"]
    assert sorted(p["id"] for p in listed) == sorted(ann)


def test_records_of_an_older_file_are_kept_per_workspace(tmp_path: Path) -> None:
    """A file from before keys were scoped to the workspace keeps what it remembered: a
    retry across the upgrade creates nothing."""
    path = tmp_path / "old.sqlite"
    with LocalService(str(path)) as old:
        key = old.create_key(user="ann", plan="enterprise")
        with httpx.Client(
            base_url=old.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=10
        ) as client:
            channel = client.post("/channels", json={"name": "General"}).json()
            body = {"channel_id": channel["id"], "title": "Kept", "body": "b"}
            post = client.post("/posts", json=body, headers={"Idempotency-Key": "k"}).json()
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE idempotency (key_seq INTEGER NOT NULL, idem_key TEXT NOT NULL,"
        " fingerprint TEXT NOT NULL, status INTEGER NOT NULL, body BLOB NOT NULL,"
        " created_at REAL NOT NULL, PRIMARY KEY (key_seq, idem_key)) WITHOUT ROWID;"
        " INSERT INTO idempotency (key_seq, idem_key, fingerprint, status, body, created_at)"
        " SELECT key_seq, idem_key, fingerprint, status, body, created_at"
        " FROM workspace_idempotency; DROP TABLE workspace_idempotency;"
    )
    con.close()
    with LocalService(str(path)) as new:
        with httpx.Client(
            base_url=new.base_url, headers={"Authorization": f"Bearer {key}"}, timeout=10
        ) as client:
            again = client.post("/posts", json=body, headers={"Idempotency-Key": "k"})
            assert again.json() == post
            assert again.headers.get("Idempotent-Replayed") == "true"
            assert len(client.get("/posts").json()["data"]) == 1


def test_failed_requests_are_not_remembered(api: httpx.Client, channel_id: str) -> None:
    headers = {"Idempotency-Key": "retry-me"}
    bad = api.post("/posts", json={"channel_id": channel_id, "title": ""}, headers=headers)
    assert bad.status_code == 400
    good = api.post(
        "/posts", json={"channel_id": channel_id, "title": "t", "body": "b"}, headers=headers
    )
    assert good.status_code == 201


@pytest.mark.parametrize("key", ["", "k" * 256])
def test_bad_keys(api: httpx.Client, error_of: Any, key: str) -> None:
    response = api.post("/channels", json={"name": "x"}, headers={"Idempotency-Key": key})
    assert error_of(response) == (400, "invalid_request", "Idempotency-Key")
