"""Fixed-window rate limiting, per key (by plan) or per client address (Starter)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from channelkit._constants import SERVICE_RATE_BUCKETS_MAX


@dataclass(frozen=True, slots=True)
class Quota:
    """The three rate-limit headers' values, and whether the request may go ahead.

    quota = limiter.hit(("key", 7), limit=60, now=time.time())
    response_headers += quota.headers()  # X-RateLimit-*, and Retry-After when refused
    """

    allowed: bool
    limit: int
    remaining: int
    reset: int  # Unix seconds at which the current window ends
    retry_after: int

    def headers(self, *, shift: float = 0.0) -> list[tuple[bytes, bytes]]:
        """The headers; `shift` moves the reset instant onto the service's (moved) clock."""
        headers = [
            (b"x-ratelimit-limit", str(self.limit).encode()),
            (b"x-ratelimit-remaining", str(self.remaining).encode()),
            (b"x-ratelimit-reset", str(self.reset + round(shift)).encode()),
        ]
        if not self.allowed:
            headers.append((b"retry-after", str(self.retry_after).encode()))
        return headers


class FixedWindowLimiter:
    """Counts requests per bucket in windows aligned to multiples of `window` seconds.

    limiter = FixedWindowLimiter(window=60.0)
    quota = limiter.hit(("key", 7), limit=300, now=time.time())
    quota.allowed, quota.remaining
    """

    def __init__(self, window: float) -> None:
        self.window = window
        self._counts: dict[tuple[str, object], tuple[int, int]] = {}

    def hit(
        self, bucket: tuple[str, object], *, limit: int, now: float, refusable: bool = True
    ) -> Quota:
        """Count one request in `bucket`; a refused request is not counted.

        With `refusable=False` the request is counted but never refused (used for requests that
        fail authentication, which must keep their 401).
        """
        index = int(now // self.window)
        window_end = (index + 1) * self.window
        current_index, used = self._counts.get(bucket, (index, 0))
        if current_index != index:
            used = 0
        reset = math.ceil(window_end)
        retry_after = max(1, math.ceil(window_end - now))
        if used >= limit and refusable:
            self._counts[bucket] = (index, used)
            return Quota(False, limit, 0, reset, retry_after)
        used += 1
        self._counts[bucket] = (index, used)
        if len(self._counts) > SERVICE_RATE_BUCKETS_MAX:
            self._forget_old(index)
        return Quota(True, limit, max(0, limit - used), reset, retry_after)

    def _forget_old(self, index: int) -> None:
        self._counts = {k: v for k, v in self._counts.items() if v[0] == index}
