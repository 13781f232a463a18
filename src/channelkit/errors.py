"""channelkit's exceptions: one tree for every layer, at the bottom of the house.

    ChannelkitError                        everything channelkit raises on purpose
    ├── APIError                           talking to the service
    │   ├── APIStatusError                 the service answered an error status
    │   │   ├── BadRequestError (400, 422), AuthenticationError (401),
    │   │   ├── PermissionDeniedError (403), NotFoundError (404), ConflictError (409),
    │   │   └── RateLimitError (429), ServerError (5xx)
    │   ├── APIConnectionError             no answer: refused, reset, unknown host
    │   │   └── APITimeoutError
    │   └── APIResponseValidationError     a 2xx body the interface does not promise
    ├── InvalidParameterError (ValueError) a bad argument in any layer, naming it
    ├── MissingDependencyError (ImportError)  an optional extra is not installed
    ├── NotSyncedError                     the warehouse lacks what a question needs
    ├── PaginationError                    a listing that does not progress
    ├── SyncError                          a sync did not complete (`.report`)
    ├── SyncDataError                      an item that does not fit the warehouse
    ├── WarehouseError                     the warehouse file cannot be used
    ├── LakeError                          the Delta lake copy cannot be written or read
    ├── ReportError                        a report cannot be made
    │   └── NotDueError                    its period is not over yet (deliver: not sent)
    ├── DeliveryError                      a delivery target did not receive the report
    ├── ImageExportError                   a static image cannot be written
    ├── PublishError                       posts that cannot go through
    │   ├── SpreadsheetError, PostValidationError (`.errors`: FieldError), PlanNotValidError
    │   └── TimeError (ValueError)         a time that cannot be used
    │       └── UnknownZoneError           a name that is not a time zone (also an
    │                                      InvalidParameterError), at every entry alike
    ├── ServiceError                       the local service cannot start
    ├── ServiceDatabaseError               its database file cannot be used
    └── WorkspaceError                     a key request it cannot satisfy
    ServiceHTTPError                       the local service's own error answer (not a
                                           ChannelkitError: it becomes an HTTP response)

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
from collections.abc import Sequence
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


class MissingDependencyError(ChannelkitError, ImportError):
    """An optional capability is used without its extra; the message names the extra."""


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


# --- the parts' own errors: each names what cannot be used, in the user's words ----------


class SyncError(ChannelkitError):
    """A sync did not complete; `report` (a `SyncReport`) holds what it did and kept."""

    def __init__(self, message: str, report: Any) -> None:
        super().__init__(message)
        self.report = report


class SyncViewError(ChannelkitError):
    """A sync through a narrower view than the one that filled the warehouse (another key):
    refused before anything is written, so that nothing it cannot see is marked deleted."""


class SyncDataError(ChannelkitError):
    """An item the server sent does not fit the warehouse (wrong type, bad timestamp...)."""


class WarehouseError(ChannelkitError):
    """The warehouse file cannot be used: missing, foreign, newer, locked or unwritable."""


class LakeError(ChannelkitError):
    """The lake cannot be written or read (missing package, storage, credentials...)."""


class ReportError(ChannelkitError):
    """The report cannot be made: the data is missing or stale, or the template is broken."""


class NotebookCellError(ReportError):
    """A cell of a report notebook failed: the message names it in one line, `trace` holds the
    last frames of its traceback (`File .../style.py:1568, in Styler.background_gradient`).

    try:
        notebook_report("mine.ipynb", "warehouse.duckdb", out="page.html")
    except NotebookCellError as exc:
        print(exc, *exc.trace, sep="\n")
    """

    def __init__(self, message: str, *, trace: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.trace = tuple(trace)


class NotDueError(ReportError):
    """The report's period is not over yet: nothing to send, nothing wrong."""


class DeliveryError(ChannelkitError):
    """One delivery target did not receive the report; the message is safe to print."""


class ImageExportError(ChannelkitError):
    """A static image cannot be written: the extra or a browser is missing."""


@dataclass(frozen=True)
class FieldError:
    """One problem with one field of a post: `field` names it, `message` says what to fix.

    Not an exception: `PostValidationError` and a plan's rows carry a list of them.
    """

    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.field}: {self.message}"


class PublishError(ChannelkitError):
    """A post or a file of posts cannot go through; the message says what to fix."""


class SpreadsheetError(PublishError):
    """A file that cannot be read as a posts spreadsheet; the message names the problem."""


class PostValidationError(PublishError):
    """A post that failed validation; `errors` holds one `FieldError` per problem."""

    def __init__(self, errors: Sequence[FieldError]) -> None:
        self.errors = tuple(errors)
        super().__init__("; ".join(str(error) for error in self.errors))


class PlanNotValidError(PublishError):
    """`Plan.submit` refused: some rows have errors and `allow_partial` was not given."""


class TimeError(PublishError, ValueError):
    """A time that cannot be used; the message says why, in the user's terms."""


class UnknownZoneError(InvalidParameterError, TimeError):
    """A name that is not a time zone: the one class and message (`_tz.unknown_zone`) of
    every entry (a `--tz` option, `CHANNELKIT_TZ`, `tz=`, a delivery or watch file, a
    sheet's timezone column). Both an `InvalidParameterError` (a bad argument) and a
    `TimeError` (publishing reports it as a row error); `param` names where, when the
    raiser knows it ("" for a value inside a row, whose column the row error names).

    >>> print(UnknownZoneError("reports[0].tz", "'Mars/Base' is not a time zone"))
    reports[0].tz: 'Mars/Base' is not a time zone
    >>> print(UnknownZoneError("", "'Mars/Base' is not a time zone"))
    'Mars/Base' is not a time zone
    """

    def __str__(self) -> str:
        return f"{self.param}: {self.message}" if self.param else self.message


class ServiceError(ChannelkitError):
    """The local service could not start, or was used before `start()`."""


class ServiceDatabaseError(ChannelkitError):
    """The service's database file cannot be opened or is not a channelkit service file."""


class WorkspaceError(ChannelkitError):
    """A key or user request that cannot be satisfied (unknown scope, plan or key)."""


# --- the local service's side of the wire -----------------------------------------------


class ServiceHTTPError(Exception):
    """An error the local service answers with: `{"error": {"code", "message", "param"}}`.

    The service's own, named apart from `APIError` (what a client raises when it reads
    such an answer); not a `ChannelkitError`, since it never reaches a user as an exception.

        raise ServiceHTTPError(404, "no post post_123")
        raise ServiceHTTPError.bad_request("title", "must be 1..200 characters")
    """

    def __init__(self, status: int, message: str, *, param: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = ERROR_CODES[status]
        self.message = message
        self.param = param

    @classmethod
    def bad_request(cls, param: str, message: str) -> ServiceHTTPError:
        """400 `invalid_request` naming `param`, with the message prefixed by it."""
        return cls(400, f"{param}: {message}", param=param)

    def body(self) -> dict[str, Any]:
        return error_body(self.status, self.message, self.param)


def error_body(status: int, message: str, param: str | None = None) -> dict[str, Any]:
    """The spec's error body for `status`."""
    return {"error": {"code": ERROR_CODES[status], "message": message, "param": param}}
