"""The pacer and the server clock, driven with explicit times (no sleeping)."""

from __future__ import annotations

import pytest

from channelkit.client._headers import RateLimitHeaders
from channelkit.client._pacing import Pacer, ServerClock


def make_pacer() -> Pacer:
    return Pacer(reset_margin=0.05, poll=0.01, max_window=60.0)


def rl(remaining: int, reset: float = 1000.0, limit: int = 60) -> RateLimitHeaders:
    return RateLimitHeaders(limit=limit, remaining=remaining, reset=reset)


def test_first_request_goes_and_concurrent_ones_wait_for_its_answer() -> None:
    pacer = make_pacer()
    assert pacer.reserve(0.0).granted
    second = pacer.reserve(0.0)
    assert not second.granted and second.wait == pytest.approx(0.01)
    pacer.observe(rl(59), seconds_to_reset=59.0, now=0.01)
    assert pacer.in_flight == 0


def test_the_budget_is_spent_without_waiting_then_the_reset_is_awaited() -> None:
    pacer = make_pacer()
    pacer.reserve(0.0)
    pacer.observe(rl(10), seconds_to_reset=10.0, now=0.0)  # 10 requests for 10 s
    for i in range(10):
        assert pacer.reserve(0.0).granted
        pacer.observe(rl(9 - i), seconds_to_reset=10.0, now=0.0)
    wait = pacer.reserve(0.0)
    assert wait.reason == "pacing"
    assert wait.wait == pytest.approx(10.05)
    assert pacer.reserve(10.05).granted  # a new window: one request learns its budget


def test_never_sends_when_the_headers_say_the_window_is_spent() -> None:
    pacer = make_pacer()
    pacer.reserve(0.0)
    pacer.observe(rl(0, reset=1000.0), seconds_to_reset=2.5, now=1.0)
    grant = pacer.reserve(1.0)
    assert not grant.granted and grant.wait == pytest.approx(2.55)
    assert pacer.reserve(3.56).granted  # the window is over: a probe goes


def test_in_flight_requests_count_against_the_budget() -> None:
    pacer = make_pacer()
    pacer.reserve(0.0)
    pacer.observe(rl(3), seconds_to_reset=10.0, now=0.0)
    granted = [pacer.reserve(0.0).granted for _ in range(5)]
    assert granted == [True, True, True, False, False]
    # An answer counted before two others still in flight: remaining 2 means 0 for us.
    pacer.observe(rl(2), seconds_to_reset=9.0, now=1.0)
    assert not pacer.reserve(1.0).granted


def test_concurrent_requests_take_exactly_the_budget_left() -> None:
    pacer = make_pacer()
    pacer.reserve(0.0)
    pacer.observe(rl(100), seconds_to_reset=100.0, now=0.0)
    granted = 0
    while pacer.reserve(0.0).granted:
        granted += 1
    assert granted == 100


def test_answers_arriving_out_of_order_never_raise_the_budget() -> None:
    pacer = make_pacer()
    pacer.reserve(0.0)
    pacer.observe(rl(3), seconds_to_reset=10.0, now=0.0)
    assert pacer.reserve(0.0).granted and pacer.reserve(0.0).granted  # sent as 2nd, 3rd
    pacer.observe(rl(1), seconds_to_reset=10.0, now=0.1)  # the 3rd request's answer first
    pacer.observe(rl(2), seconds_to_reset=10.0, now=0.1)  # then the 2nd's, older
    granted = 0
    while pacer.reserve(0.1).granted:
        granted += 1
    assert granted <= 1  # the server has one left; trusting the older answer would send two


def test_reset_in_the_past_means_a_new_window() -> None:
    pacer = make_pacer()
    pacer.reserve(0.0)
    pacer.observe(rl(0, reset=900.0), seconds_to_reset=-3.0, now=0.0)
    assert pacer.reserve(0.0).granted


def test_late_answer_from_an_old_window_is_ignored() -> None:
    pacer = make_pacer()
    pacer.reserve(0.0)
    pacer.reserve(0.0)  # unknown window: the second must wait for the probe
    pacer.observe(rl(50, reset=1060.0), seconds_to_reset=60.0, now=0.0)
    assert pacer.reserve(0.0).granted
    pacer.observe(rl(0, reset=1000.0), seconds_to_reset=-1.0, now=0.1)  # stale, remaining 0
    assert pacer.reserve(0.1).granted


def test_reset_beyond_a_window_is_capped_to_one_window() -> None:
    pacer = make_pacer()
    pacer.reserve(0.0)
    pacer.observe(rl(0), seconds_to_reset=90.0, now=0.0)
    assert pacer.reserve(0.0).wait == pytest.approx(60.05)


@pytest.mark.parametrize("far", [600.0, 86_400.0])
def test_reset_beyond_two_windows_is_not_believed(far: float) -> None:
    # A clock 10 minutes (or a day) ahead wrote it: waiting for it would stall the walk.
    pacer = make_pacer()
    pacer.reserve(0.0)
    pacer.observe(rl(2), seconds_to_reset=far, now=0.0)
    assert pacer.reserve(0.0).granted and pacer.reserve(0.0).granted  # Remaining still counts
    pacer.observe(rl(0), seconds_to_reset=far, now=0.1)
    pacer.observe(rl(0), seconds_to_reset=far, now=0.1)
    assert pacer.reserve(0.1).granted  # spent: one request goes, and its 429 says how long
    pacer.block(until=1.1)
    assert pacer.reserve(0.2).wait == pytest.approx(0.9)


def test_server_without_rate_limit_headers_is_not_paced() -> None:
    pacer = make_pacer()
    pacer.reserve(0.0)
    pacer.observe(None, seconds_to_reset=None, now=0.0)
    assert all(pacer.reserve(0.0).granted for _ in range(50))


def test_a_429_blocks_everyone_until_retry_after() -> None:
    pacer = make_pacer()
    pacer.reserve(0.0)
    pacer.observe(rl(10), seconds_to_reset=10.0, now=0.0)
    pacer.block(until=5.0)
    grant = pacer.reserve(1.0)
    assert grant.reason == "retry_after" and grant.wait == pytest.approx(4.0)
    assert pacer.reserve(5.0).granted


def test_release_after_a_failed_request_frees_the_probe_slot() -> None:
    pacer = make_pacer()
    assert pacer.reserve(0.0).granted
    assert not pacer.reserve(0.0).granted
    pacer.release()
    assert pacer.reserve(0.0).granted


def test_clock_agrees_with_local_time_gives_zero_offset() -> None:
    clock = ServerClock(date_lag=1.0)
    # Local and server clocks agree; the Date header is whole seconds and a bit stale.
    for t in (100.3, 100.9, 101.2, 102.7):
        clock.observe(date=float(int(t) - 1 if t % 1 < 0.5 else int(t)), sent=t - 0.01, received=t)
    assert clock.offset() == 0.0


def test_clock_skew_is_estimated_on_the_safe_side() -> None:
    clock = ServerClock(date_lag=1.0)
    skew = 30.4  # the server is ahead
    for t in (100.0, 100.25, 100.5, 100.75, 101.0):
        clock.observe(date=float(int(t + skew)), sent=t - 0.001, received=t)
    offset = clock.offset()
    assert offset <= skew  # never believe the server is behind where it may be
    assert offset == pytest.approx(skew, abs=0.3)


def test_clock_starts_again_when_a_clock_is_stepped() -> None:
    clock = ServerClock(date_lag=1.0)
    clock.observe(date=1000.0, sent=999.9, received=1000.0)
    clock.observe(date=5000.0, sent=1000.9, received=1001.0)  # server clock jumped
    assert clock.offset() == pytest.approx(3999.0, abs=0.01)
