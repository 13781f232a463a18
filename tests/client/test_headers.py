"""Parsing of rate-limit, Retry-After and Date headers: what servers really send."""

from __future__ import annotations

import httpx
import pytest

from channelkit.client._headers import (
    RateLimitHeaders,
    parse_http_date,
    parse_rate_limit,
    parse_retry_after,
)


def test_rate_limit_headers_parse_case_insensitively() -> None:
    headers = httpx.Headers(
        {
            "X-RateLimit-Limit": "60",
            "X-RateLimit-Remaining": "59",
            "X-RateLimit-Reset": "1795261080",
        }
    )
    assert parse_rate_limit(headers) == RateLimitHeaders(60, 59, 1795261080.0)


def test_missing_rate_limit_headers_mean_no_information() -> None:
    assert parse_rate_limit(httpx.Headers({"content-type": "application/json"})) is None


@pytest.mark.parametrize("remaining", ["", "many", "-1", "1e3", "12abc", "0x10"])
def test_malformed_remaining_is_ignored(remaining: str) -> None:
    headers = httpx.Headers({"x-ratelimit-limit": "60", "x-ratelimit-remaining": remaining})
    assert parse_rate_limit(headers) is None


def test_malformed_reset_and_limit_keep_the_remaining_count() -> None:
    headers = httpx.Headers(
        {"x-ratelimit-limit": "lots", "x-ratelimit-remaining": " 7 ", "x-ratelimit-reset": "soon"}
    )
    assert parse_rate_limit(headers) == RateLimitHeaders(None, 7, None)


@pytest.mark.parametrize(
    ("value", "expected"),
    [("0", 0.0), ("3", 3.0), ("86400", 86400.0), ("1.5", 1.5), (" 2 ", 2.0)],
)
def test_retry_after_seconds(value: str, expected: float) -> None:
    assert parse_retry_after(value, server_now=0.0) == expected


def test_retry_after_http_date_is_relative_to_the_server_clock() -> None:
    when = "Sat, 21 Nov 2026 09:30:10 GMT"
    now = parse_http_date("Sat, 21 Nov 2026 09:30:00 GMT")
    assert now is not None
    assert parse_retry_after(when, server_now=now) == 10.0
    assert parse_retry_after(when, server_now=now + 60) == 0.0  # in the past: no negative wait


@pytest.mark.parametrize("value", [None, "", "soon", "-5", "Mon, 99 Foo 2026"])
def test_unusable_retry_after_is_none(value: str | None) -> None:
    assert parse_retry_after(value, server_now=0.0) is None


def test_http_date() -> None:
    assert parse_http_date("Thu, 01 Jan 1970 00:01:00 GMT") == 60.0
    assert parse_http_date("yesterday") is None
    assert parse_http_date(None) is None
