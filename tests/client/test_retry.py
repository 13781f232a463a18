"""Retry decisions and backoff delays."""

from __future__ import annotations

import pytest

from channelkit.client._retry import (
    Failure,
    backoff_delay,
    replayable,
    should_retry_failure,
    should_retry_status,
)


def test_posts_are_replayable_only_with_an_idempotency_key() -> None:
    assert not replayable("POST", has_idempotency_key=False)
    assert replayable("POST", has_idempotency_key=True)
    assert replayable("GET", has_idempotency_key=False)
    assert replayable("DELETE", has_idempotency_key=False)


@pytest.mark.parametrize("failure", list(Failure))
def test_failures_retried_when_replayable(failure: Failure) -> None:
    assert should_retry_failure(failure, replayable=True)


def test_unsent_requests_are_retried_even_when_not_replayable() -> None:
    assert should_retry_failure(Failure.NOT_SENT, replayable=False)
    assert not should_retry_failure(Failure.TIMEOUT, replayable=False)
    assert not should_retry_failure(Failure.BROKEN, replayable=False)


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
def test_transient_statuses_are_retried(status: int) -> None:
    assert should_retry_status(status, replayable=True, error_param=None, is_replay=False)
    assert not should_retry_status(status, replayable=False, error_param=None, is_replay=False)


@pytest.mark.parametrize("status", [400, 401, 403, 404, 422])
def test_client_errors_are_not_retried(status: int) -> None:
    assert not should_retry_status(status, replayable=True, error_param=None, is_replay=True)


def test_409_retried_only_for_an_idempotency_key_replay() -> None:
    kwargs = {"replayable": True, "error_param": "Idempotency-Key"}
    assert should_retry_status(409, is_replay=True, **kwargs)  # type: ignore[arg-type]
    assert not should_retry_status(409, is_replay=False, **kwargs)  # type: ignore[arg-type]
    assert not should_retry_status(409, replayable=True, error_param="slug", is_replay=True)


def test_backoff_grows_exponentially_up_to_the_cap_with_full_jitter() -> None:
    ceilings = [backoff_delay(n, base=0.25, cap=8.0, jitter=0.999999) for n in range(8)]
    assert ceilings == pytest.approx([0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0], rel=1e-3)
    assert backoff_delay(3, base=0.25, cap=8.0, jitter=0.0) == 0.0
    assert backoff_delay(3, base=0.25, cap=8.0, jitter=0.5) == pytest.approx(1.0)
    assert backoff_delay(10_000, base=0.25, cap=8.0, jitter=0.5) == pytest.approx(4.0)
