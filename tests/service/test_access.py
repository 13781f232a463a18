"""Authentication (401), scopes (403) and channel visibility (absent / 404)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from channelkit.service import LocalService


@pytest.fixture(scope="module")
def shared() -> Iterator[LocalService]:
    """One service for the parametrized cases, which only read and make keys."""
    with LocalService() as service:
        yield service


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Basic abc"},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer ck_nope"},
    ],
    ids=["missing", "wrong-scheme", "empty", "unknown"],
)
def test_bad_keys_are_401(service: LocalService, headers: dict[str, str], error_of: Any) -> None:
    response = httpx.get(f"{service.base_url}/posts", headers=headers)
    assert error_of(response) == (401, "unauthorized", None)
    assert response.headers["X-RateLimit-Limit"] == "60"


def test_revoked_key_is_401(service: LocalService, client_for: Any, error_of: Any) -> None:
    key = service.create_key(user="bob")
    client = client_for(service, key)
    assert client.get("/channels").status_code == 200
    service.revoke_key(key)
    assert error_of(client.get("/channels")) == (401, "unauthorized", None)


def test_key_never_echoed(service: LocalService, client_for: Any) -> None:
    key = service.create_key(user="bob")
    service.revoke_key(key)
    response = client_for(service, key).get("/channels")
    assert key not in response.text and key not in str(response.headers)
    assert key not in repr(service)


@pytest.mark.parametrize(
    ("method", "path", "scope"),
    [
        ("GET", "/posts", "posts:read"),
        ("POST", "/posts", "posts:write"),
        ("GET", "/posts/post_x", "posts:read"),
        ("PATCH", "/posts/post_x", "posts:write"),
        ("DELETE", "/posts/post_x", "posts:write"),
        ("GET", "/channels", "channels:read"),
        ("POST", "/channels", "channels:write"),
        ("GET", "/channels/chan_x", "channels:read"),
        ("PATCH", "/channels/chan_x", "channels:write"),
        ("DELETE", "/channels/chan_x", "channels:write"),
    ],
)
def test_missing_scope_is_403(
    shared: LocalService, client_for: Any, error_of: Any, method: str, path: str, scope: str
) -> None:
    others = [
        s
        for s in ("posts:read", "posts:write", "channels:read", "channels:write", "analytics:read")
        if s != scope
    ]
    client = client_for(shared, shared.create_key(user="bob", scopes=others))
    assert error_of(client.request(method, path, json={})) == (403, "forbidden", None)


def test_visibility(service: LocalService, client_for: Any, error_of: Any) -> None:
    ana = client_for(service, service.create_key(user="ana", team="comms"))
    ben = client_for(service, service.create_key(user="ben", team="comms"))
    eve = client_for(service, service.create_key(user="eve", team="legal"))
    ids = {}
    for visibility in ("organization", "team", "private"):
        channel = ana.post("/channels", json={"name": visibility, "visibility": visibility})
        ids[visibility] = channel.json()["id"]
        ana.post("/posts", json={"channel_id": ids[visibility], "title": "t", "body": "b"})

    def seen(client: httpx.Client) -> set[str]:
        channels = {c["id"] for c in client.get("/channels").json()["data"]}
        posts = {p["channel_id"] for p in client.get("/posts").json()["data"]}
        assert posts == channels
        return channels

    assert seen(ana) == set(ids.values())
    assert seen(ben) == {ids["organization"], ids["team"]}
    assert seen(eve) == {ids["organization"]}
    private_post = ana.get("/posts", params={"channel_id": ids["private"]}).json()["data"][0]
    assert error_of(eve.get(f"/channels/{ids['private']}"))[:2] == (404, "not_found")
    assert error_of(eve.get(f"/posts/{private_post['id']}"))[:2] == (404, "not_found")
    assert error_of(ben.patch(f"/posts/{private_post['id']}", json={"title": "x"}))[0] == 404
    assert eve.get("/posts", params={"channel_id": ids["team"]}).json()["data"] == []
    sneaky = eve.post("/posts", json={"channel_id": ids["team"], "title": "t", "body": "b"})
    assert error_of(sneaky) == (400, "invalid_request", "channel_id")


def test_team_channel_needs_a_team(service: LocalService, client_for: Any, error_of: Any) -> None:
    loner = client_for(service, service.create_key(user="solo", team=None))
    response = loner.post("/channels", json={"name": "x", "visibility": "team"})
    assert error_of(response) == (400, "invalid_request", "visibility")
