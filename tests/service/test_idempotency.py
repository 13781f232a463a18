"""Idempotency-Key on POST: replay without a second write, conflict on another body."""

from __future__ import annotations

from typing import Any

import httpx
import pytest


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


def test_keys_are_per_api_key_and_expire(
    api: httpx.Client, channel_id: str, service: Any, client_for: Any
) -> None:
    body = {"channel_id": channel_id, "title": "A", "body": "b"}
    headers = {"Idempotency-Key": "shared"}
    first = api.post("/posts", json=body, headers=headers).json()
    other_user = client_for(service, service.create_key(user="zoe"))
    theirs = other_user.post("/posts", json=body, headers=headers).json()
    assert theirs["id"] != first["id"]
    service.advance_clock(24 * 3600 + 1)
    later = api.post("/posts", json=body, headers=headers).json()
    assert later["id"] != first["id"]


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
