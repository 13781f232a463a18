"""Deterministic, believable engagement: who reads a post, on which day, and what they do.

Pure functions of a post's id, publication time, priority, tags and its channel's audience,
so the same workspace always shows the same figures. Each reader reads a post on exactly one
UTC day, so the sum of a post's daily `unique_viewers` is its distinct readers (`views`).
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass

from channelkit._constants import (
    ENGAGEMENT_HORIZON_DAYS,
    ENGAGEMENT_PRIORITY_REACH,
    ENGAGEMENT_READ_RATE,
    ENGAGEMENT_TAG_REACH,
)
from channelkit.service.timefmt import SECONDS_PER_DAY, day_of

# Share of a day's reading that happens in each UTC hour: office hours dominate.
HOURLY = (
    0.2, 0.1, 0.1, 0.1, 0.2, 0.5, 1.2, 2.6, 4.2, 4.8, 4.6, 4.1,
    3.6, 4.0, 4.3, 4.0, 3.4, 2.6, 1.8, 1.3, 1.0, 0.8, 0.5, 0.3,
)  # fmt: skip
HOURLY_TOTAL = sum(HOURLY)
WEEKDAY = (1.0, 1.05, 1.0, 0.95, 0.85, 0.35, 0.3)  # Monday..Sunday (1970-01-01 was Thursday)


@dataclass(frozen=True, slots=True)
class DailyRow:
    day: int
    views: int
    unique_viewers: int
    reactions: int
    comments: int
    shares: int
    clicks: int


def weekday(day: int) -> int:
    """0 = Monday for a day number counted from 1970-01-01 (a Thursday)."""
    return (day + 3) % 7


def subscribers_on(channel_id: str, audience: int, created_day: int, day: int) -> int:
    """A channel's subscribers on `day`: growing towards `audience`, with a little noise."""
    if day < created_day:
        return 0
    age = day - created_day
    growth = 1.0 - 0.55 * math.exp(-age / 45.0)
    wobble = 1.0 + 0.02 * (_rng(f"{channel_id}/{day}").random() - 0.5)
    return max(1, round(audience * growth * wobble))


def channel_day(channel_id: str, audience: int, created_day: int, day: int) -> tuple[int, int, int]:
    """`(subscribers, gained, lost)` on `day`; gained - lost is the day's net change."""
    now = subscribers_on(channel_id, audience, created_day, day)
    before = subscribers_on(channel_id, audience, created_day, day - 1)
    churn = int(audience * 0.004 * _rng(f"{channel_id}/{day}/churn").random())
    churn = min(churn, before)
    net = now - before
    return now, max(net, 0) + churn, max(-net, 0) + churn


def lifetime_readers(
    post_id: str, published_at: int, priority: str, tags: list[str], audience: int
) -> int:
    """Distinct readers a post gets over its lifetime."""
    rng = _rng(f"{post_id}/reach")
    day = day_of(published_at)
    hour = (published_at % SECONDS_PER_DAY) // 3600
    factor = ENGAGEMENT_READ_RATE * ENGAGEMENT_PRIORITY_REACH.get(priority, 1.0)
    for tag in tags:
        factor *= ENGAGEMENT_TAG_REACH.get(tag, 1.0)
    factor *= 0.75 + 0.5 * WEEKDAY[weekday(day)] / max(WEEKDAY)
    factor *= 0.8 + 0.4 * HOURLY[hour] / max(HOURLY)
    factor *= math.exp(rng.gauss(0.0, 0.25))
    return max(0, min(audience, round(audience * min(factor, 0.97))))


def post_daily_rows(
    post_id: str,
    published_at: int,
    priority: str,
    tags: list[str],
    audience: int,
    has_cover: bool,
) -> list[DailyRow]:
    """A post's daily rows from its publication day on; days without readers are omitted."""
    total = lifetime_readers(post_id, published_at, priority, tags, audience)
    first = day_of(published_at)
    hour = (published_at % SECONDS_PER_DAY) // 3600
    tau = 0.9 if priority == "urgent" else 1.4
    weights = []
    for k in range(ENGAGEMENT_HORIZON_DAYS):
        share = math.exp(-k / tau) * WEEKDAY[weekday(first + k)]
        if k == 0:
            share *= sum(HOURLY[hour:]) / HOURLY_TOTAL
        weights.append(share)
    readers = _apportion(total, weights)
    rng = _rng(f"{post_id}/daily")
    interest = 1.0 + 0.25 * len(set(tags) & set(ENGAGEMENT_TAG_REACH))
    rows = []
    for k, unique in enumerate(readers):
        if unique == 0:
            continue
        views = unique + _draw(rng, unique * 0.18)
        rows.append(
            DailyRow(
                day=first + k,
                views=views,
                unique_viewers=unique,
                reactions=_draw(rng, unique * 0.07 * interest),
                comments=_draw(rng, unique * 0.012 * interest),
                shares=_draw(rng, unique * 0.008),
                clicks=_draw(rng, views * (0.09 if has_cover else 0.04)),
            )
        )
    return rows


def _rng(name: str) -> random.Random:
    """A generator seeded by `name`. Hashing to an int first is ~10x cheaper than seeding
    with the string itself, and channel listings seed thousands of them."""
    return random.Random(int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest()))


def _apportion(total: int, weights: list[float]) -> list[int]:
    """Split `total` in proportion to `weights`, exactly (largest remainders)."""
    scale = sum(weights)
    exact = [total * w / scale for w in weights]
    parts = [int(x) for x in exact]
    order = sorted(range(len(exact)), key=lambda i: parts[i] - exact[i])
    for i in order[: total - sum(parts)]:
        parts[i] += 1
    return parts


def _draw(rng: random.Random, mean: float) -> int:
    """An integer with the given mean: floor plus a Bernoulli draw of the fraction."""
    whole = int(mean)
    return whole + (1 if rng.random() < mean - whole else 0)
