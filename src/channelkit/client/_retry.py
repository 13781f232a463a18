"""Which failures are retried, and after how long. Pure: randomness is passed in.

A request may be replayed when replaying cannot do anything twice: reads, DELETE and PATCH
(they set a state, they do not add one), and POSTs that carry an `Idempotency-Key` (the
service answers a replay with the first response). Failures where the request surely never
reached the server (connection refused, pool timeout) are retried for any method. A host
that does not resolve, or a TLS handshake that fails, is not retried at all: waiting does not
fix a wrong address.
"""

from __future__ import annotations

import socket
import ssl
from collections.abc import Iterator
from enum import Enum

RETRYABLE_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
IDEMPOTENT_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"})


class Failure(Enum):
    """A request that got no usable response."""

    NOT_SENT = "not_sent"  # connect error/timeout, pool timeout: the server saw nothing
    TIMEOUT = "timeout"  # sent, no answer in time: it may have been processed
    BROKEN = "broken"  # connection dropped or body cut short: it may have been processed
    UNDECODABLE = "undecodable"  # a 2xx whose body is not the JSON promised


def replayable(method: str, *, has_idempotency_key: bool) -> bool:
    """Whether sending the request again cannot repeat its effect."""
    return method in IDEMPOTENT_METHODS or has_idempotency_key


def should_retry_failure(failure: Failure, *, replayable: bool) -> bool:
    return failure is Failure.NOT_SENT or replayable


def should_retry_status(
    status: int, *, replayable: bool, error_param: str | None, is_replay: bool
) -> bool:
    """Whether an error status is worth another attempt.

    A 409 on `Idempotency-Key` while replaying means the first attempt is still being
    processed: the replay will get its answer once it is done.
    """
    if status == 409:
        return replayable and is_replay and error_param == "Idempotency-Key"
    return status in RETRYABLE_STATUSES and replayable


def backoff_delay(attempt: int, *, base: float, cap: float, jitter: float) -> float:
    """Exponential backoff with full jitter: `jitter` (uniform in [0, 1)) times the ceiling.

    `attempt` counts from 0 for the first retry.
    """
    ceiling = min(cap, base * 2.0 ** min(attempt, 62))
    return jitter * ceiling


# what OpenSSL reports when the other side answers a TLS hello in plain HTTP
_PLAIN_HTTP_REASONS = frozenset(
    {"WRONG_VERSION_NUMBER", "HTTP_REQUEST", "PACKET_LENGTH_TOO_LONG", "RECORD_LAYER_FAILURE"}
)


def _chain(exc: BaseException) -> Iterator[BaseException]:
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def hopeless_connect(exc: BaseException, *, scheme: str, host: str, port: int | None) -> str | None:
    """Why a failed connection cannot succeed on a retry, in the user's words, or None when
    it might (refused, reset, timed out)."""
    for cause in _chain(exc):
        if isinstance(cause, socket.gaierror):
            reason = cause.strerror or str(cause)
            return f"the host {host!r} does not resolve ({reason}); check the base URL"
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"the TLS certificate of {host!r} is not trusted: {cause.verify_message}"
        if isinstance(cause, ssl.SSLError):
            where = host if port is None else f"{host}:{port}"
            if scheme == "https" and (cause.reason or "").upper() in _PLAIN_HTTP_REASONS:
                return f"the server at {where} speaks plain HTTP, use http:// instead of https://"
            return f"the TLS handshake with {where} failed: {cause.reason or cause}"
    return None
