"""Which failures are retried, and after how long. Pure: randomness is passed in.

A request may be replayed when replaying cannot do anything twice: reads, DELETE and PATCH
(they set a state, they do not add one), and POSTs that carry an `Idempotency-Key` (the
service answers a replay with the first response). Failures where the request surely never
reached the server (connection refused, pool timeout) are retried for any method.
"""

from __future__ import annotations

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
