"""channelkit's exceptions: one tree for every layer, at the bottom of the house.

`ChannelkitError` is the root of everything channelkit raises on purpose. `APIError` covers
what happens talking to the service; `APIStatusError` and its per-status classes are built
from the service's error body in one place, `error_from_response`, and the service renders
the same `code` for each status from `ERROR_CODES`. Every bad argument, in any layer, is an
`InvalidParameterError` (also a `ValueError`) naming the parameter.

    try:
        client.posts.retrieve("post_missing")
    except ck.NotFoundError as exc:
        print(exc.status, exc.code, exc.param)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from channelkit._constants import CLIENT_ERROR_SNIPPET_CHARS

#: The spec's error `code` for each status; the service answers with it, the client reads it.
ERROR_CODES: dict[int, str] = {
    400: "invalid_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    429: "rate_limited",
    500: "server_error",
    503: "server_error",
}


class ChannelkitError(Exception):
    """Base class of every error channelkit raises on purpose."""


@dataclass(frozen=True)
class RequestInfo:
    """What was asked (method and URL), without headers, so never the API key."""

    method: str
    url: str

    def __str__(self) -> str:
        return f"{self.method} {self.url}"


class APIError(ChannelkitError):
    """The service answered with an error, or could not be reached (`status` is None then)."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        param: str | None = None,
        request: RequestInfo | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.param = param
        self.request = request


class APIStatusError(APIError):
    """The service answered with an error status; `status`, `code` and `param` say which."""

    status: int


class BadRequestError(APIStatusError):
    """400: a parameter is wrong or missing (`param` names it when the server did)."""


class AuthenticationError(APIStatusError):
    """401: the API key is missing, malformed, unknown or revoked."""


class PermissionDeniedError(APIStatusError):
    """403: the key lacks the scope the operation needs."""


class NotFoundError(APIStatusError):
    """404: no such resource, or one the key cannot see."""


class ConflictError(APIStatusError):
    """409: a state transition, slug or idempotency key conflict."""


class RateLimitError(APIStatusError):
    """429 that the client would not (or could no longer) wait out."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ServerError(APIStatusError):
    """5xx: the service failed; retried automatically before this is raised."""


class APIConnectionError(APIError):
    """The service could not be reached or the connection broke before a full answer."""


class APITimeoutError(APIConnectionError):
    """The service did not answer within the client's timeout."""


class APIResponseValidationError(APIError):
    """The service answered 2xx with a body that is not what the interface promises."""


class NotSyncedError(ChannelkitError):
    """A warehouse lacks what a question needs: no completed sync, or no daily analytics
    (the sync's key lacked analytics:read). The message says what to run."""


class InvalidParameterError(ChannelkitError, ValueError):
    """A bad argument, refused before any work is done; `param` names it.

    >>> try:
    ...     raise InvalidParameterError("freq", "'hour' is not one of day, week, month")
    ... except ValueError as exc:
    ...     print(exc, exc.param)
    freq: 'hour' is not one of day, week, month freq
    """

    def __init__(self, param: str, message: str) -> None:
        super().__init__(f"{param}: {message}")
        self.param = param
        self.message = message


class PaginationError(ChannelkitError):
    """A listing did not progress (a cursor came back twice): stopped instead of looping."""


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: BadRequestError,
    429: RateLimitError,
}


def error_from_response(
    status: int,
    body: bytes,
    request: RequestInfo,
    *,
    retry_after: float | None = None,
    snippet_chars: int = CLIENT_ERROR_SNIPPET_CHARS,
) -> APIError:
    """The exception for an error response: class by status, details from the error body.

    Bodies that are not the interface's error object (a proxy's HTML page, say) still give
    a useful message: the status and the start of the body.
    """
    code, message, param = _error_fields(body, snippet_chars)
    text = f"{status} {code or 'error'}: {message}"
    if param:
        text += f" (param: {param})"
    text += f" [{request}]"
    kwargs: dict[str, Any] = {"status": status, "code": code, "param": param, "request": request}
    if status == 429:
        if retry_after is not None:
            text += f"; retry after {retry_after:g} s"
        return RateLimitError(text, retry_after=retry_after, **kwargs)
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else APIStatusError)
    return cls(text, **kwargs)


def _error_fields(body: bytes, snippet_chars: int) -> tuple[str | None, str, str | None]:
    try:
        decoded = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        decoded = None
    error = decoded.get("error") if isinstance(decoded, dict) else None
    if isinstance(error, dict):
        code = error.get("code")
        message = error.get("message")
        param = error.get("param")
        return (
            code if isinstance(code, str) else None,
            message if isinstance(message, str) and message else "(no message)",
            param if isinstance(param, str) and param else None,
        )
    snippet = body[:snippet_chars].decode("utf-8", "replace").strip()
    if len(body) > snippet_chars:
        snippet += "..."
    return None, f"unexpected error body {snippet!r}" if snippet else "empty error body", None
