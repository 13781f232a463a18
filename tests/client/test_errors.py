"""One function maps every error response to its exception."""

from __future__ import annotations

import json

import pytest

from channelkit.errors import (
    APIError,
    APIStatusError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    RequestInfo,
    ServerError,
    error_from_response,
)

REQ = RequestInfo("POST", "http://127.0.0.1:1/v1/posts")


def body(code: str, message: str, param: str | None = None) -> bytes:
    return json.dumps({"error": {"code": code, "message": message, "param": param}}).encode()


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (403, PermissionDeniedError),
        (404, NotFoundError),
        (409, ConflictError),
        (429, RateLimitError),
        (500, ServerError),
        (503, ServerError),
        (418, APIStatusError),
    ],
)
def test_status_picks_the_class(status: int, cls: type[APIError]) -> None:
    error = error_from_response(status, body("x", "msg"), REQ)
    assert type(error) is cls
    assert error.status == status and error.request == REQ


def test_message_names_code_param_and_request() -> None:
    error = error_from_response(400, body("invalid_request", "is required", "channel_id"), REQ)
    assert str(error) == (
        "400 invalid_request: is required (param: channel_id) [POST http://127.0.0.1:1/v1/posts]"
    )
    assert (error.code, error.message, error.param) == ("invalid_request", str(error), "channel_id")


def test_rate_limit_error_carries_retry_after() -> None:
    error = error_from_response(429, body("rate_limited", "slow down"), REQ, retry_after=7.0)
    assert isinstance(error, RateLimitError) and error.retry_after == 7.0
    assert str(error).endswith("retry after 7 s")


def test_non_json_error_bodies_are_quoted_briefly() -> None:
    html = b"<html>" + b"x" * 500 + b"</html>"
    error = error_from_response(502, html, REQ, snippet_chars=20)
    assert isinstance(error, ServerError)
    assert "502 error: unexpected error body '<html>xxxxxxxxxxxxxx...'" in str(error)
    assert error.code is None
    assert "empty error body" in str(error_from_response(500, b"", REQ))
