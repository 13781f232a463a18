"""Posts over HTTP: create, retrieve, list filters, update transitions, delete."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from channelkit.service import LocalService

pytestmark = pytest.mark.calendar


def _create(api: httpx.Client, channel_id: str, **fields: Any) -> dict[str, Any]:
    body = {"channel_id": channel_id, "title": "Quarterly update", "body": "**Hello**", **fields}
    response = api.post("/posts", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_create_publishes_at_once_with_every_field(
    api: httpx.Client, channel_id: str, service: LocalService
) -> None:
    post = _create(
        api,
        channel_id,
        priority="high",
        tags=["ops", "ops", "release"],
        cover_image_url="https://img.example.com/a.png",
    )
    assert post["id"].startswith("post_")
    assert post["status"] == "published"
    assert post["priority"] == "high"
    assert post["tags"] == ["ops", "release"]
    assert post["author"]["name"] == "admin" and post["author"]["id"].startswith("user_")
    assert post["published_at"] == post["created_at"] and post["published_at"].endswith("Z")
    assert post["scheduled_at"] is None and post["views"] == 0
    assert post["published_at"][:16] == service.now().strftime("%Y-%m-%dT%H:%M")
    assert api.get(f"/posts/{post['id']}").json() == post


def test_defaults_on_create(api: httpx.Client, channel_id: str) -> None:
    post = _create(api, channel_id)
    assert (post["priority"], post["tags"], post["cover_image_url"]) == ("normal", [], None)


def test_list_filters(api: httpx.Client, channel_id: str, error_of: Any) -> None:
    other = api.post("/channels", json={"name": "Other"}).json()["id"]
    a = _create(api, channel_id, tags=["ops"], priority="urgent")
    b = _create(api, other, tags=["hr"])

    def ids(**params: str) -> list[str]:
        response = api.get("/posts", params=params)
        assert response.status_code == 200, response.text
        return [p["id"] for p in response.json()["data"]]

    assert ids() == [b["id"], a["id"]]  # newest first
    assert ids(channel_id=channel_id) == [a["id"]]
    assert ids(tag="hr") == [b["id"]]
    assert ids(priority="urgent") == [a["id"]]
    assert ids(author_id=a["author"]["id"]) == [b["id"], a["id"]]
    assert ids(author_id="user_nobody") == []
    assert ids(published_after="2000-01-01") == [b["id"], a["id"]]
    assert ids(published_before="2000-01-01T00:00:00+02:00") == []
    assert error_of(api.get("/posts", params={"priority": "low"})) == (
        400,
        "invalid_request",
        "priority",
    )


def test_update_fields_and_delete(api: httpx.Client, channel_id: str, error_of: Any) -> None:
    post = _create(api, channel_id, cover_image_url="https://x.example/c.png")
    response = api.patch(
        f"/posts/{post['id']}", json={"title": "New title", "tags": [], "cover_image_url": None}
    )
    assert response.status_code == 200, response.text
    updated = response.json()
    assert (updated["title"], updated["tags"], updated["cover_image_url"]) == (
        "New title",
        [],
        None,
    )
    assert updated["body"] == post["body"]
    deleted = api.delete(f"/posts/{post['id']}")
    assert deleted.status_code == 204 and deleted.content == b""
    assert error_of(api.get(f"/posts/{post['id']}"))[:2] == (404, "not_found")
    assert error_of(api.delete(f"/posts/{post['id']}"))[:2] == (404, "not_found")


def test_status_transitions(api: httpx.Client, channel_id: str, error_of: Any) -> None:
    post = _create(api, channel_id)

    def patch(**fields: Any) -> httpx.Response:
        return api.patch(f"/posts/{post['id']}", json=fields)

    assert patch(status="archived").json()["status"] == "archived"
    assert error_of(patch(status="draft")) == (409, "conflict", "status")
    republished = patch(status="published").json()
    assert republished["status"] == "published"
    assert republished["published_at"] == post["published_at"]
    assert error_of(patch(status="scheduled", scheduled_at="2999-01-01T00:00:00Z")) == (
        409,
        "conflict",
        "status",
    )
    assert error_of(patch(scheduled_at="2999-01-01")) == (409, "conflict", "status")


def test_schedule_draft_and_publish_early(api: httpx.Client, channel_id: str) -> None:
    post = _create(api, channel_id, scheduled_at="2999-01-01T09:00:00+01:00")
    assert (post["status"], post["scheduled_at"], post["published_at"]) == (
        "scheduled",
        "2999-01-01T08:00:00Z",
        None,
    )
    url = f"/posts/{post['id']}"
    moved = api.patch(url, json={"scheduled_at": "2999-02-01"}).json()
    assert (moved["status"], moved["scheduled_at"]) == ("scheduled", "2999-02-01T00:00:00Z")
    draft = api.patch(url, json={"status": "draft"}).json()
    assert (draft["status"], draft["scheduled_at"]) == ("draft", None)
    again = api.patch(url, json={"status": "scheduled", "scheduled_at": "2999-03-01"}).json()
    assert again["status"] == "scheduled"
    now = api.patch(url, json={"status": "published"}).json()
    assert now["status"] == "published" and now["published_at"] is not None
    assert now["scheduled_at"] is None


def test_schedule_needs_a_future_time(api: httpx.Client, channel_id: str, error_of: Any) -> None:
    response = api.post(
        "/posts",
        json={"channel_id": channel_id, "title": "t", "body": "b", "scheduled_at": "2020-01-01"},
    )
    assert error_of(response) == (400, "invalid_request", "scheduled_at")
    draft = _create(api, channel_id, scheduled_at="2999-01-01")
    api.patch(f"/posts/{draft['id']}", json={"status": "draft"})
    no_time = api.patch(f"/posts/{draft['id']}", json={"status": "scheduled"})
    assert error_of(no_time) == (400, "invalid_request", "scheduled_at")


def test_archived_or_unknown_channel_refused(
    api: httpx.Client, channel_id: str, error_of: Any
) -> None:
    body = {"channel_id": "chan_missing", "title": "t", "body": "b"}
    assert error_of(api.post("/posts", json=body)) == (400, "invalid_request", "channel_id")
    api.patch(f"/channels/{channel_id}", json={"is_archived": True})
    body["channel_id"] = channel_id
    assert error_of(api.post("/posts", json=body)) == (400, "invalid_request", "channel_id")


def test_move_to_another_channel(api: httpx.Client, channel_id: str, error_of: Any) -> None:
    post = _create(api, channel_id)
    other = api.post("/channels", json={"name": "Elsewhere"}).json()["id"]
    moved = api.patch(f"/posts/{post['id']}", json={"channel_id": other}).json()
    assert moved["channel_id"] == other
    assert [p["id"] for p in api.get("/posts", params={"channel_id": other}).json()["data"]] == [
        post["id"]
    ]
    api.patch(f"/channels/{channel_id}", json={"is_archived": True})
    back = api.patch(f"/posts/{post['id']}", json={"channel_id": channel_id})
    assert error_of(back) == (400, "invalid_request", "channel_id")
