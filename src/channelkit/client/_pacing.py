"""Rate-limit pacing: how long to wait before the next request. Pure: time is passed in.

The service counts requests in fixed windows and tells, on every response, how many are
left (`Remaining`) and when the window ends (`Reset`, Unix seconds on the *server's* clock).
`Pacer` spends the budget while it lasts and, once the headers say it is spent, holds every
request until the window resets: it never sends a request the headers say would be refused,
and a job that fits in the budget never waits. (Spreading the budget evenly instead would
make a 30-page walk on a 60-per-minute plan take half a minute for no gain: the bound on a
long walk, ceil(pages / limit) windows, is the same either way.) Requests still in flight
are subtracted from the server's `Remaining`, so concurrent threads or tasks share one
budget.

`ServerClock` turns the server's `Reset` into a local deadline despite clock skew, from the
response `Date` headers. A `Reset` more than two windows away is not believed (see
`Pacer.observe`); one less far is capped to a window.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from channelkit.client._headers import RateLimitHeaders

WaitReason = Literal["pacing", "retry_after", "backoff", "connection"]


class ServerClock:
    """Estimates `server time - local time` from `Date` headers (whole seconds, maybe stale).

    Each response bounds the offset: the server wrote `Date` = D while handling a request
    sent at local `sent` and answered at `received`, and D lags the true time by less than
    one second plus `date_lag` (uvicorn refreshes its cached Date once a second). When the
    local clock fits every bound, it is the better (sub-second) clock and the offset is 0;
    otherwise the lowest offset consistent with the bounds is used, which errs towards
    waiting a little longer rather than provoking a 429.

        clock = ServerClock(date_lag=1.0)
        clock.observe(date=1_700_000_000, sent=1_699_999_970.2, received=1_699_999_970.3)
        clock.offset()  # ~29.7: the server is about half a minute ahead
    """

    def __init__(self, date_lag: float) -> None:
        self._date_lag = date_lag
        self._low = -math.inf
        self._high = math.inf

    def observe(self, date: float, sent: float, received: float) -> None:
        low = date - received
        high = date + 1.0 + self._date_lag - sent
        if low > self._high or high < self._low:  # a clock was stepped: start again
            self._low, self._high = low, high
        else:
            self._low, self._high = max(self._low, low), min(self._high, high)

    def offset(self) -> float:
        if self._low == -math.inf or self._low <= 0.0 <= self._high:
            return 0.0
        return self._low


@dataclass(frozen=True)
class Grant:
    """`reserve`'s answer: go now (`wait` 0), or wait `wait` seconds and ask again."""

    wait: float
    reason: WaitReason = "pacing"

    @property
    def granted(self) -> bool:
        return self.wait <= 0.0


GO = Grant(0.0)


class Pacer:
    """The shared request budget of one client. Not thread-safe: callers hold a lock.

    Protocol: `reserve(now)` until granted, send, then exactly one of `observe(...)` (a
    response arrived) or `release()` (no response). Times are `time.monotonic()` seconds.

        pacer = Pacer(reset_margin=0.05, poll=0.01, max_window=60.0)
        grant = pacer.reserve(now)          # Grant(wait=0.0) -> send
        pacer.observe(headers, seconds_to_reset=1.8, now=now + 0.01)
    """

    def __init__(self, *, reset_margin: float, poll: float, max_window: float):
        self._margin = reset_margin
        self._poll = poll
        self._max_window = max_window
        self.in_flight = 0
        self._remaining: int | None = None  # budget left this window, net of requests in flight
        self._deadline: float | None = None  # local time the window is over (margin included)
        self._window_reset: float | None = None  # server's Reset of the window we track
        self._blocked_until = -math.inf  # after a 429: Retry-After
        self._unpaced = False  # the server sends no rate-limit headers

    def reserve(self, now: float) -> Grant:
        """Take one request from the budget, or say how long to wait first."""
        if now < self._blocked_until:
            return Grant(self._blocked_until - now, "retry_after")
        if self._deadline is not None and now >= self._deadline:
            self._remaining, self._deadline = None, None
        if self._remaining is None:
            # A new window (or no headers yet): one request finds out what the budget is.
            if self.in_flight > 0 and not self._unpaced:
                return Grant(self._poll)
            return self._take()
        if self._remaining <= 0:
            if self._deadline is None:  # the server gave no reset: nothing to predict with
                return self._take()
            return Grant(self._deadline - now)
        self._remaining -= 1
        return self._take()

    def _take(self) -> Grant:
        self.in_flight += 1
        return GO

    def release(self) -> None:
        """A granted request ended without a response (connection error, timeout)."""
        self.in_flight = max(0, self.in_flight - 1)

    def observe(
        self, headers: RateLimitHeaders | None, *, seconds_to_reset: float | None, now: float
    ) -> None:
        """A granted request got a response with these rate-limit headers.

        `seconds_to_reset` is `headers.reset` minus the server's current time (see
        `ServerClock`), None when the response has no usable `Reset`.
        """
        self.release()
        if headers is None:
            if self._window_reset is None and self._remaining is None:
                self._unpaced = True
            return
        self._unpaced = False
        reset = headers.reset
        if seconds_to_reset is not None and seconds_to_reset > 2 * self._max_window:
            # No window lasts that long: the clock that wrote `Reset` is off (not the one
            # that wrote `Date`, or the offset would have absorbed it). Its `Remaining` is
            # still believed; a spent budget then costs one 429, whose `Retry-After` counts
            # seconds from now and so does not depend on anyone's clock.
            reset = seconds_to_reset = None
        if reset is not None and self._window_reset is not None and reset < self._window_reset:
            return  # a late answer from a window that is already over
        if reset is None or seconds_to_reset is None:
            self._remaining = max(0, headers.remaining - self.in_flight)
            self._deadline = None
            return
        if seconds_to_reset <= 0.0:  # the reset is in the past: that window is over
            self._window_reset = reset
            self._remaining, self._deadline = None, None
            return
        remaining = max(0, headers.remaining - self.in_flight)
        if reset == self._window_reset and self._remaining is not None:
            # Within one window the server's count only goes down; concurrent answers can
            # arrive out of order, and an older (higher) `Remaining` must not raise ours.
            remaining = min(remaining, self._remaining)
        self._window_reset = reset
        self._remaining = remaining
        self._deadline = now + min(seconds_to_reset, self._max_window) + self._margin

    def block(self, until: float) -> None:
        """After a 429: no request of this client goes out before `until`."""
        self._blocked_until = max(self._blocked_until, until)
        # The 429 proves our estimate wrong (another client shares the key?): after the
        # wait, the next answer tells the budget afresh.
        self._remaining, self._deadline = None, None
