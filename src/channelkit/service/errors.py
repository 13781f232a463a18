"""The service's error responses: one exception type, rendered as the spec's error body."""

from __future__ import annotations

from typing import Any

from channelkit.errors import ERROR_CODES


class ApiError(Exception):
    """An error the service answers with `{"error": {"code", "message", "param"}}`.

    raise ApiError(400, "title: must be 1..200 characters", param="title")
    """

    def __init__(self, status: int, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = ERROR_CODES[status]
        self.message = message
        self.param = param

    def body(self) -> dict[str, Any]:
        return error_body(self.status, self.message, self.param)


def error_body(status: int, message: str, param: str | None = None) -> dict[str, Any]:
    return {"error": {"code": ERROR_CODES[status], "message": message, "param": param}}


def bad_request(param: str, message: str) -> ApiError:
    """400 `invalid_request` naming `param`, with the message prefixed by it."""
    return ApiError(400, f"{param}: {message}", param=param)
