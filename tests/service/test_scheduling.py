"""Scheduled publishing with the movable clock: published at exactly scheduled_at."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from channelkit.service import LocalService

pytestmark = pytest.mark.calendar


def _schedule(
    api: httpx.Client, channel_id: str, service: LocalService, hours: float
) -> dict[str, Any]:
    when = (service.now() + timedelta(hours=hours)).strftime("%Y-%m-%dT%H:%M:%SZ")
    body = {"channel_id": channel_id, "title": "Later", "body": "b", "scheduled_at": when}
    response = api.post("/posts", json=body)
    assert response.status_code == 201, response.text
    return dict(response.json())


def test_scheduled_post_publishes_when_its_time_comes(
    api: httpx.Client, channel_id: str, service: LocalService
) -> None:
    post = _schedule(api, channel_id, service, hours=2)
    url = f"/posts/{post['id']}"
    assert api.get(url).json()["status"] == "scheduled"
    service.advance_clock(3600)
    assert api.get(url).json()["status"] == "scheduled"
    service.advance_clock(3601)
    published = api.get(url).json()
    assert published["status"] == "published"
    assert published["published_at"] == post["scheduled_at"]
    listed = api.get("/posts", params={"published_after": "2000-01-01"}).json()["data"]
    assert [p["id"] for p in listed] == [post["id"]]


def test_clock_over_http_only_for_admin_services(
    service: LocalService, service_factory: Any, client_for: Any, error_of: Any
) -> None:
    before = service.now()
    anyone = client_for(service)
    moved = anyone.post("/admin/clock", json={"seconds": 86_400})
    assert moved.status_code == 200, moved.text
    assert (service.now() - before).total_seconds() >= 86_400
    # The clock keeps running after the move: a read right after is the same second or
    # the next (the two fell either side of a second's edge in a calendar run).
    said, read = (
        datetime.fromisoformat(moved.json()["now"]),
        datetime.fromisoformat(anyone.get("/admin/clock").json()["now"]),
    )
    assert 0 <= (read - said).total_seconds() <= 2
    assert error_of(anyone.post("/admin/clock", json={"seconds": -5}))[:3] == (
        400,
        "invalid_request",
        "seconds",
    )
    plain = service_factory()
    closed = client_for(plain).post("/admin/clock", json={"seconds": 60})
    assert error_of(closed)[:2] == (404, "not_found")


def test_publication_survives_a_restart_while_nothing_runs(
    tmp_path: Any, service_factory: Any, client_for: Any
) -> None:
    path = str(tmp_path / "svc.sqlite")
    first = service_factory(db=path)
    key = first.create_key()
    api = client_for(first, key)
    channel = api.post("/channels", json={"name": "c"}).json()["id"]
    post = _schedule(api, channel, first, hours=1)
    first.advance_clock(7200)  # the time passes while nobody reads ...
    first.stop()
    second = service_factory(db=path)  # ... and the moved clock is kept
    seen = client_for(second, key).get(f"/posts/{post['id']}").json()
    assert (seen["status"], seen["published_at"]) == ("published", post["scheduled_at"])
