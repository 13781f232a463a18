"""A corpus of bad requests: each gets the spec's error body naming what is wrong, never 500."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from channelkit.service import LocalService

BIG = "x" * 50_001


# One service for the whole module: every request here is refused, so none can disturb
# another test, and starting a service per case would dominate the module's run time.
@pytest.fixture(scope="module")
def api() -> Iterator[httpx.Client]:
    with LocalService() as service:
        key = service.create_key(user="admin")
        with httpx.Client(
            base_url=service.base_url, headers={"Authorization": f"Bearer {key}"}
        ) as client:
            yield client


@pytest.fixture
def channel_id(api: httpx.Client) -> str:
    return str(api.post("/channels", json={"name": "Bad input"}).json()["id"])


# (body, expected param); the channel id placeholder is filled in by the test
POST_BODIES: list[tuple[Any, str | None]] = [
    ({"title": "t", "body": "b"}, "channel_id"),
    ({"channel_id": "@", "body": "b"}, "title"),
    ({"channel_id": "@", "title": "t"}, "body"),
    ({"channel_id": "@", "title": "", "body": "b"}, "title"),
    ({"channel_id": "@", "title": "   ", "body": "b"}, "title"),
    ({"channel_id": "@", "title": "t" * 201, "body": "b"}, "title"),
    ({"channel_id": "@", "title": "t", "body": BIG}, "body"),
    ({"channel_id": "@", "title": 5, "body": "b"}, "title"),
    ({"channel_id": "@", "title": None, "body": "b"}, "title"),
    ({"channel_id": 7, "title": "t", "body": "b"}, "channel_id"),
    ({"channel_id": "@", "title": "t", "body": "b", "priority": "low"}, "priority"),
    ({"channel_id": "@", "title": "t", "body": "b", "tags": "ops"}, "tags"),
    ({"channel_id": "@", "title": "t", "body": "b", "tags": [""]}, "tags"),
    ({"channel_id": "@", "title": "t", "body": "b", "tags": ["x" * 51]}, "tags"),
    ({"channel_id": "@", "title": "t", "body": "b", "tags": [str(i) for i in range(21)]}, "tags"),
    ({"channel_id": "@", "title": "t", "body": "b", "tags": [1]}, "tags"),
    (
        {"channel_id": "@", "title": "t", "body": "b", "cover_image_url": "ftp://x/y"},
        "cover_image_url",
    ),
    (
        {"channel_id": "@", "title": "t", "body": "b", "cover_image_url": "/rel.png"},
        "cover_image_url",
    ),
    (
        {"channel_id": "@", "title": "t", "body": "b", "scheduled_at": "2999-01-01T10:00:00"},
        "scheduled_at",
    ),
    ({"channel_id": "@", "title": "t", "body": "b", "scheduled_at": "tomorrow"}, "scheduled_at"),
    ({"channel_id": "@", "title": "t", "body": "b", "scheduled_at": "2999-02-30"}, "scheduled_at"),
    (
        {"channel_id": "@", "title": "t", "body": "b", "scheduled_at": "2999-01-01T25:00:00Z"},
        "scheduled_at",
    ),
    ({"channel_id": "@", "title": "t", "body": "b", "scheduled_at": 1893456000}, "scheduled_at"),
    ({"channel_id": "@", "title": "t", "body": "b", "status": "draft"}, "status"),
    ({"channel_id": "@", "title": "t", "body": "b", "views": 5}, "views"),
    ([], None),
    ("text", None),
    (None, None),
]


@pytest.mark.parametrize(("body", "param"), POST_BODIES)
def test_bad_post_bodies(
    api: httpx.Client, channel_id: str, error_of: Any, body: Any, param: str | None
) -> None:
    if isinstance(body, dict) and body.get("channel_id") == "@":
        body = {**body, "channel_id": channel_id}
    response = api.post("/posts", json=body)
    assert error_of(response) == (400, "invalid_request", param), response.text
    # nothing half-written
    assert api.get("/posts", params={"channel_id": channel_id}).json()["data"] == []


@pytest.mark.parametrize(
    ("content", "headers"),
    [
        (b"{bad json", {}),
        (b"", {}),
        (b'{"title": "t"', {}),
        (b"\xff\xfe", {}),
        (b'{"a": 1}', {"Content-Type": "text/plain"}),
        (b"x" * 1_000_001, {}),
    ],
    ids=["malformed", "empty", "truncated", "not-utf8", "wrong-content-type", "oversized"],
)
def test_unreadable_bodies(
    api: httpx.Client, error_of: Any, content: bytes, headers: dict[str, str]
) -> None:
    response = api.post("/channels", content=content, headers=headers)
    assert error_of(response)[:2] == (400, "invalid_request")


@pytest.mark.parametrize(
    ("params", "param"),
    [
        ({"published_after": "2026-01-01T00:00:00"}, "published_after"),
        ({"published_before": "yesterday"}, "published_before"),
        ({"published_after": ""}, "published_after"),
        ({"chanel_id": "x"}, "chanel_id"),
        ({"tag": "x" * 201}, "tag"),
        ({"cursor": "%%%"}, "cursor"),
    ],
)
def test_bad_query_params(
    api: httpx.Client, error_of: Any, params: dict[str, str], param: str
) -> None:
    assert error_of(api.get("/posts", params=params)) == (400, "invalid_request", param)


def test_repeated_query_param(api: httpx.Client, error_of: Any) -> None:
    response = api.get("/posts?limit=1&limit=2")
    assert error_of(response) == (400, "invalid_request", "limit")


def test_bad_channel_bodies(api: httpx.Client, error_of: Any) -> None:
    cases = [
        ({}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"name": "x", "visibility": "public"}, "visibility"),
        ({"name": "x", "is_default": "yes"}, "is_default"),
        ({"name": "x", "is_archived": True}, "is_archived"),
        ({"name": "x", "description": "d" * 1001}, "description"),
    ]
    for body, param in cases:
        assert error_of(api.post("/channels", json=body)) == (400, "invalid_request", param)
    channel = api.post("/channels", json={"name": "ok"}).json()["id"]
    for body, param in [({"name": None}, "name"), ({"slug": "-x-"}, "slug"), ({"id": "y"}, "id")]:
        response = api.patch(f"/channels/{channel}", json=body)
        assert error_of(response) == (400, "invalid_request", param)


def test_bad_updates(api: httpx.Client, channel_id: str, error_of: Any) -> None:
    post = api.post("/posts", json={"channel_id": channel_id, "title": "t", "body": "b"}).json()
    url = f"/posts/{post['id']}"
    for body, param in [
        ({"title": None}, "title"),
        ({"status": "deleted"}, "status"),
        ({"scheduled_at": None}, "scheduled_at"),
        ({"author": {"id": "x"}}, "author"),
    ]:
        assert error_of(api.patch(url, json=body)) == (400, "invalid_request", param)
    assert api.get(url).json() == post


def test_wrong_methods_and_paths(api: httpx.Client, error_of: Any) -> None:
    put = api.put("/posts", json={})
    assert put.status_code == 405 and set(put.headers["Allow"].split(", ")) >= {"GET", "POST"}
    assert error_of(put)[0] == 405
    assert error_of(api.post("/posts/post_x", json={}))[0] == 405
    assert error_of(api.get("/nothing/here")) == (404, "not_found", None)
    outside = api.get(str(api.base_url).removesuffix("/v1/") + "/elsewhere")
    assert error_of(outside) == (404, "not_found", None)
