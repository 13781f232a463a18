"""Channels over HTTP: create (slugs), retrieve, update, archive, delete rules."""

from __future__ import annotations

from typing import Any

import httpx


def test_create_derives_slug_and_defaults(api: httpx.Client) -> None:
    response = api.post("/channels", json={"name": "Événements & Fêtes!"})
    assert response.status_code == 201, response.text
    channel = response.json()
    assert channel["slug"] == "evenements-fetes"
    assert channel["visibility"] == "organization"
    assert (channel["is_default"], channel["is_archived"], channel["post_count"]) == (
        False,
        False,
        0,
    )
    assert channel["subscriber_count"] >= 1
    second = api.post("/channels", json={"name": "Evenements fetes"}).json()
    assert second["slug"] == "evenements-fetes-2"
    assert api.get(f"/channels/{channel['id']}").json() == channel


def test_slug_conflicts(api: httpx.Client, error_of: Any) -> None:
    api.post("/channels", json={"name": "A", "slug": "news"})
    taken = api.post("/channels", json={"name": "B", "slug": "news"})
    assert error_of(taken) == (409, "conflict", "slug")
    bad = api.post("/channels", json={"name": "B", "slug": "Not A Slug"})
    assert error_of(bad) == (400, "invalid_request", "slug")


def test_update_and_delete(api: httpx.Client, error_of: Any) -> None:
    channel = api.post("/channels", json={"name": "Ops"}).json()
    url = f"/channels/{channel['id']}"
    updated = api.patch(url, json={"description": "Operations", "is_default": True}).json()
    assert (updated["description"], updated["is_default"], updated["name"]) == (
        "Operations",
        True,
        "Ops",
    )
    post = api.post("/posts", json={"channel_id": channel["id"], "title": "t", "body": "b"})
    assert api.get(url).json()["post_count"] == 1
    assert error_of(api.delete(url)) == (409, "conflict", "id")
    # a default channel cannot be archived (decisions.md "Hardening"): move the default first
    api.post("/channels", json={"name": "Everyone", "is_default": True})
    assert api.patch(url, json={"is_archived": True}).json()["is_archived"] is True
    api.delete(f"/posts/{post.json()['id']}")
    assert api.delete(url).status_code == 204
    assert error_of(api.get(url))[:2] == (404, "not_found")


def test_list_by_visibility_in_creation_order(api: httpx.Client) -> None:
    made = [
        api.post("/channels", json={"name": f"c{i}", "visibility": v}).json()["id"]
        for i, v in enumerate(["organization", "team", "private", "organization"])
    ]
    listed = api.get("/channels").json()
    assert [c["id"] for c in listed["data"]] == made
    assert (listed["has_more"], listed["next_cursor"]) == (False, None)
    org = api.get("/channels", params={"visibility": "organization"}).json()["data"]
    assert [c["id"] for c in org] == [made[0], made[3]]
