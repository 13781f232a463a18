"""Which part of each listing a run reads: the incremental-window logic, free of I/O.

Posts. The spec lets a client filter posts by `published_after` and promises no order,
so an incremental run walks `published_after = high_water_mark - lookback`. The high-water
mark after a walk is the largest `published_at` seen minus the walk's own duration (plus a
margin): a post published while the walk ran may be missed by that walk, but its
`published_at` is later than the walk's start, hence later than the new mark, so the next
run reads it. The lookback re-reads recent posts whose `views` still move.

Posts without `published_at` (drafts, scheduled) never match `published_after`; the ones
the warehouse knows are re-read one by one, or by one walk of the whole list when that
costs fewer requests. A post scheduled since the last run shows up once it is published
(then `published_at` = `scheduled_at`, after the mark) or at the next `--full`.

Older history (convergence). Besides that window, every incremental run re-reads one
slice of the whole published history, oldest first, so that lifetime `views` of older
posts, their edits and deletions reach the warehouse without `--full`. A cycle of
`convergence_runs` slices (default 7) sweeps published time from the oldest post to the
newest: each slice starts exactly where the previous one ended and holds about an equal
share of the posts still ahead of it; the cycle's last slice is open-ended, so posts
published meanwhile are never skipped. A slice walk that completes marks the rows of its
range it did not see as deleted. `channel_daily` days (whose history changes when posts
are deleted or hidden) are swept the same way, one share of the final days per run: one
planner for both, `channelkit.sync.history`.

Analytics. Daily rows are UTC days. A day is final once it is older than the lookback
window; each run re-reads from the first day that was not final at the previous run up to
a little past "today" (the latest of the local date and the newest date seen in the data,
so that a server clock ahead of ours is followed).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from channelkit._constants import SYNC_ANALYTICS_END_SLACK_DAYS, SYNC_HWM_MARGIN_SECONDS


@dataclass(frozen=True)
class PostsPlan:
    """The posts walk of one run: its query and whether it can detect deletions."""

    published_after: datetime | None
    full: bool  # an unfiltered walk: rows it does not see were deleted


def parse_since(value: str | date | datetime) -> datetime:
    """`--since`: a date (00:00 UTC) or an RFC 3339 timestamp with an offset."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError(f"since={value!r}: a datetime needs a timezone (e.g. UTC)")
        return value.astimezone(UTC)
    if isinstance(value, date):
        return datetime.combine(value, time(), UTC)
    text = value.strip()
    example = "use YYYY-MM-DD, e.g. 2026-11-01 (or a timestamp with an offset)"
    if len(text) == 10:
        try:
            return datetime.combine(date.fromisoformat(text), time(), UTC)
        except ValueError as exc:
            why = f" ({exc})" if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text) else ""
            raise ValueError(f"{text!r} is not a date{why}; {example}") from None
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{text!r} is not a date; {example}") from None
    if parsed.tzinfo is None:
        raise ValueError(f"{text!r} needs an offset, e.g. {text}Z (UTC) or {text}+01:00")
    return parsed.astimezone(UTC)


def plan_posts(
    *, full: bool, since: datetime | None, high_water_mark: datetime | None, lookback_days: int
) -> PostsPlan:
    if since is not None:
        return PostsPlan(published_after=since, full=False)
    if full or high_water_mark is None:
        return PostsPlan(published_after=None, full=True)
    return PostsPlan(published_after=high_water_mark - timedelta(days=lookback_days), full=False)


def next_posts_mark(
    *,
    previous: datetime | None,
    published_after: datetime | None,
    max_seen: datetime | None,
    walk_seconds: float,
) -> datetime | None:
    """The high-water mark after a completed posts walk.

    A walk that started later than the previous mark leaves a gap behind it, so it keeps
    the previous mark; so does a walk that saw nothing.
    """
    if max_seen is None:
        return previous
    if previous is not None and published_after is not None and published_after > previous:
        return previous
    candidate = max_seen - timedelta(seconds=walk_seconds + SYNC_HWM_MARGIN_SECONDS)
    return candidate if previous is None else max(previous, candidate)


def prefer_full_walk(*, pending: int, known_posts: int, page_limit: int) -> bool:
    """Whether one walk of the whole list costs fewer requests than re-reading `pending`."""
    return pending > 0 and pending > -(-max(known_posts, 1) // page_limit)


@dataclass(frozen=True)
class AnalyticsPlan:
    start: date  # inclusive
    end: date  # exclusive
    final_before: date  # days before this are final once this walk completes


def analytics_today(local_now: datetime, newest_in_data: datetime | None) -> date:
    today = local_now.astimezone(UTC).date()
    if newest_in_data is not None:
        today = max(today, newest_in_data.astimezone(UTC).date())
    return today


def plan_analytics(
    *,
    full: bool,
    since: datetime | None,
    high_water_mark: datetime | None,
    earliest_in_data: datetime | None,
    today: date,
    lookback_days: int,
) -> AnalyticsPlan | None:
    """The date range to read, or None when there is nothing to read yet."""
    if since is not None:
        start = since.date()
    elif not full and high_water_mark is not None:
        start = high_water_mark.astimezone(UTC).date()
    elif earliest_in_data is not None:
        start = earliest_in_data.astimezone(UTC).date()
    else:
        return None
    end = today + timedelta(days=SYNC_ANALYTICS_END_SLACK_DAYS)
    return AnalyticsPlan(
        start=min(start, today), end=end, final_before=today - timedelta(days=lookback_days)
    )


def next_analytics_mark(*, previous: datetime | None, plan: AnalyticsPlan) -> datetime | None:
    """The first day still to re-read next run (as 00:00 UTC)."""
    final = datetime.combine(plan.final_before, time(), UTC)
    start = datetime.combine(plan.start, time(), UTC)
    if previous is not None and start > previous:
        return previous  # this walk began after the old mark: the days between were skipped
    return final if previous is None else max(previous, final)
