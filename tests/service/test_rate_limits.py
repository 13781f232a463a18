"""Rate limits: the three headers everywhere, 429 with Retry-After, windows that reset."""

from __future__ import annotations

import math
import time
from typing import Any

import httpx

WINDOW = 1.0


def _window_start() -> None:
    """Sleep into the beginning of a fresh window, so a burst fits in one."""
    time.sleep(WINDOW - time.time() % WINDOW + 0.02)


def _headers(response: httpx.Response) -> tuple[int, int, int]:
    h = response.headers
    return int(h["X-RateLimit-Limit"]), int(h["X-RateLimit-Remaining"]), int(h["X-RateLimit-Reset"])


def test_headers_on_every_kind_of_response(service_factory: Any, client_for: Any) -> None:
    service = service_factory(rate_window=WINDOW)
    api = client_for(service, service.create_key(plan="business", scopes=["posts:read"]))
    _window_start()
    responses = [
        api.get("/posts"),  # 200
        api.get("/posts", params={"limit": 0}),  # 400
        api.get("/posts/post_nope"),  # 404
        api.put("/posts"),  # 405
        api.get("/channels"),  # 403
        api.get("/elsewhere"),  # 404 unknown path
    ]
    assert [r.status_code for r in responses] == [200, 400, 404, 405, 403, 404]
    remaining = [_headers(r)[1] for r in responses]
    assert remaining == [299, 298, 297, 296, 295, 294]
    for response in responses:
        limit, _, reset = _headers(response)
        assert limit == 300
        assert time.time() <= reset <= math.ceil(time.time() + WINDOW)
        assert "Retry-After" not in response.headers


def test_429_then_a_fresh_window(service_factory: Any, client_for: Any, error_of: Any) -> None:
    service = service_factory(rate_window=WINDOW)
    api = client_for(service, service.create_key(plan="starter"))
    other = client_for(service, service.create_key(user="other", plan="starter"))
    _window_start()
    statuses = [api.get("/channels").status_code for _ in range(60)]
    assert statuses == [200] * 60
    refused = api.get("/channels")
    assert error_of(refused) == (429, "rate_limited", None)
    assert _headers(refused)[:2] == (60, 0)
    assert 1 <= int(refused.headers["Retry-After"]) <= math.ceil(WINDOW)
    again = api.get("/channels")  # a refused request does not use up anything more
    assert again.status_code == 429
    assert other.get("/channels").status_code == 200  # buckets are per key
    time.sleep(int(refused.headers["Retry-After"]) + 0.05)
    fresh = api.get("/channels")
    assert fresh.status_code == 200 and _headers(fresh)[1] == 59


def test_bad_keys_stay_401_in_the_address_bucket(
    service_factory: Any, client_for: Any, error_of: Any
) -> None:
    service = service_factory(rate_window=WINDOW)
    anonymous = client_for(service, "ck_wrong")
    _window_start()
    responses = [anonymous.get("/posts") for _ in range(62)]
    assert {error_of(r)[0] for r in responses} == {401}
    assert [_headers(r)[1] for r in responses[-3:]] == [0, 0, 0]
    assert _headers(responses[0])[:2] == (60, 59)
    # a valid key has its own bucket, untouched by the anonymous burst
    api = client_for(service, service.create_key(plan="starter"))
    assert _headers(api.get("/posts"))[:2] == (60, 59)


def test_date_and_reset_follow_the_moved_clock(service_factory: Any, client_for: Any) -> None:
    """A client reading the service's time from Date (the publishing lead-time check)
    sees the moved clock, and the reset instant stays within one window of that time."""
    from email.utils import parsedate_to_datetime

    service = service_factory(rate_window=WINDOW)
    api = client_for(service, service.create_key(plan="business", scopes=["posts:read"]))
    before = api.get("/posts")
    assert len(before.headers.get_list("date")) == 1  # ours, not a second one from uvicorn
    service.advance_clock(25 * 3600)
    for response in (api.get("/posts"), api.get("/posts/post_nope")):
        shown = parsedate_to_datetime(response.headers["Date"]).timestamp()
        assert abs(shown - (time.time() + 25 * 3600)) < 5
        reset = _headers(response)[2]
        assert shown - 1 <= reset <= shown + WINDOW + 1
