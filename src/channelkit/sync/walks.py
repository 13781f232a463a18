"""Which walks a run makes, planned from what the warehouse holds (dlt's extract plan).

The planning reads the warehouse, so it runs in the writing thread; each plan returns the
function its walking thread runs (network and Arrow only, through the pipeline).

    planner = Planner(client, writer, Holdings(con), options, report, pipeline, later)
    walkers = {resource: planner.walker(resource) for resource in ("posts", "channels")}
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from channelkit._resources import BY_TABLE, RESOURCES
from channelkit.errors import NotFoundError
from channelkit.storage.holdings import Holdings
from channelkit.storage.writer import Checkpoint, WarehouseWriter
from channelkit.sync import windows
from channelkit.sync.arrow import SHAPES, items_to_arrow
from channelkit.sync.checkpoints import sweep_checkpoint, sweep_of
from channelkit.sync.history import (
    Axis,
    HistorySlice,
    Sweep,
    days_query,
    next_slice,
    posts_query,
)
from channelkit.sync.options import SyncOptions
from channelkit.sync.pipeline import Fetcher, Gone, Pipeline, Rows, Skipped
from channelkit.sync.report import SyncReport
from channelkit.sync.walk import Walk, resumable

if TYPE_CHECKING:
    from channelkit.client import Client

# The walks re-reading older history (one slice per incremental run) keep their own
# checkpoints, named after the resource whose table they write.
POSTS_HISTORY = "posts:history"
CHANNEL_DAILY_HISTORY = "channel_daily:history"
HISTORIES = frozenset({POSTS_HISTORY, CHANNEL_DAILY_HISTORY})
# The daily resources whose past days change after the fact: a slice re-read every run
_PAST_CHANGES = frozenset(r.table for r in RESOURCES if r.past_changes)


@dataclass
class Planner:
    """Plans each resource's walks for one run and walks them through `pipeline`.

    `later` collects planning that may wait until the walks have started.
    """

    client: Client
    writer: WarehouseWriter
    held: Holdings
    options: SyncOptions
    report: SyncReport
    pipeline: Pipeline
    later: list[Callable[[], None]]
    # When the run's history walks began (their cost on the run's clock), if they did.
    history_started: float | None = None

    def __post_init__(self) -> None:
        self.run_id = self.report.run_id
        self.fetcher = Fetcher(self.pipeline, self._pages, SHAPES, self.options.batch_rows)

    def walker(self, resource: str) -> Callable[[], None]:
        """Plan `resource`'s walk (reading the warehouse: this thread only) and return the
        function that walks it in its own thread."""
        previous = self._previous_mark(resource)
        kind = BY_TABLE[resource].walk
        if kind == "whole":
            walk = self._prepare(Walk(resource, {}, True, datetime.now(UTC)))
            return lambda: self._walk(walk, previous)
        if kind == "published":
            return self._plan_posts(previous)
        return self._plan_analytics(resource, previous)

    # --- planning ---------------------------------------------------------------------------

    def _prepare(self, wanted: Walk) -> Walk:
        """`wanted`, or the interrupted walk of the resource when it may be continued."""
        checkpoint = self.writer.checkpoint(wanted.resource)
        if resumable(checkpoint, wanted, self.options.since is not None):
            resumed = Walk.restore(wanted.resource, checkpoint)
            if resumed is not None:
                self.report.resumed.append(wanted.resource)
                return resumed
        return wanted

    def _previous_mark(self, resource: str) -> datetime | None:
        checkpoint = self.writer.checkpoint(resource)
        return checkpoint.high_water_mark if checkpoint else None

    def _plan_posts(self, previous: datetime | None) -> Callable[[], None]:
        options = self.options
        posts_plan = windows.plan_posts(
            full=options.full,
            since=options.since,
            high_water_mark=previous,
            lookback_days=options.lookback_days,
        )
        pending = self.held.pending_posts()
        if not posts_plan.full and windows.prefer_full_walk(
            pending=len(pending),
            known_posts=self.held.count("posts"),
            page_limit=options.page_limit,
        ):
            posts_plan = windows.PostsPlan(published_after=None, full=True)
        after = posts_plan.published_after
        query = {"published_after": after.isoformat()} if after else {}
        walk = self._prepare(Walk("posts", query, posts_plan.full, datetime.now(UTC)))
        # The slice of older history is planned once the walk has started: it is walked
        # after the recent posts, and its planning reads the whole posts table.
        history: Future[Walk | None] = Future()
        planning_started: list[float] = []  # the slice's cost includes its planning

        def plan_history() -> None:
            planning_started.append(time.monotonic())
            try:
                history.set_result(self._posts_history(restart=walk.full))
            except BaseException as exc:
                history.set_exception(exc)
                raise

        self.later.append(plan_history)

        def mark(done: Walk) -> Checkpoint:
            after = done.query.get("published_after")
            moved = windows.next_posts_mark(
                previous=previous,
                published_after=datetime.fromisoformat(after) if after else None,
                max_seen=done.max_seen,
                walk_seconds=(datetime.now(UTC) - done.started_at).total_seconds(),
            )
            return Checkpoint("posts", self.run_id, high_water_mark=moved)

        def run() -> None:
            self._walk(walk, previous, mark)
            if not walk.full and pending:
                self._reread(pending)
            planned = self.pipeline.result(history)
            if planned is not None:
                self._walk_history(planned, since=planning_started[0])

        return run

    def _posts_history(self, *, restart: bool) -> Walk | None:
        """This run's slice of the older posts (None: a full walk, or `--since`)."""
        if restart:  # a full walk re-reads everything: the next cycle starts from the oldest
            self.writer.save_checkpoint(sweep_checkpoint(POSTS_HISTORY, self.run_id, Sweep()))
            return None
        if self.options.since is not None:
            return None
        held = self.held
        walk = self._history(
            POSTS_HISTORY, Axis(remaining=held.published_from, end=held.slice_end), posts_query
        )
        if walk is not None and isinstance(walk.step, HistorySlice):
            step = walk.step
            self.report.history_slice = (
                f"{step.number}/{step.count}, every post listed (drafts and scheduled too)"
                if step.last
                else step.describe("posts published")
            )
            self.writer.record_slice(
                self.run_id,
                number=step.number,
                count=step.count,
                after=step.after,
                before=step.before,
            )
        return walk

    def _days_history(
        self, walk: Walk, earliest: datetime | None, previous: datetime | None
    ) -> Walk | None:
        """This run's share of the final `channel_daily` days, swept like the posts: a
        channel's past days change when its posts are deleted or hidden."""
        if walk.resource not in _PAST_CHANGES or walk.full or self.options.since is not None:
            return None
        if earliest is None or previous is None:
            return self._history(CHANNEL_DAILY_HISTORY, None, posts_query)
        first, final = _midnight(earliest), _midnight(previous)
        days = Axis(
            remaining=lambda at: (final - (at or first)).days,
            end=lambda at, n: (at or first) + timedelta(days=n),
            start=first,
            final=final,
        )
        return self._history(CHANNEL_DAILY_HISTORY, days, lambda s: days_query(s, final))

    def _history(
        self,
        name: str,
        axis: Axis | None,
        query: Callable[[HistorySlice], dict[str, str]],
    ) -> Walk | None:
        """The one history planner: the interrupted slice walk of `name`, else the next
        slice along `axis` (None: only an interrupted one is continued)."""
        checkpoint = self.writer.checkpoint(name)
        resumed = Walk.restore(name, checkpoint)
        if resumed is not None and isinstance(resumed.step, HistorySlice):
            self.report.resumed.append(name)
            return resumed
        if axis is None:
            return None
        step = next_slice(sweep_of(checkpoint), axis, runs=self.options.convergence_runs)
        if step is None:
            return None
        asked = query(step)
        # An unfiltered slice (the posts cycle's last) sees every row: it may tell deletions.
        return Walk(name, asked, not asked, datetime.now(UTC), step=step)

    def _plan_analytics(self, resource: str, previous: datetime | None) -> Callable[[], None]:
        earliest, newest = self.held.data_range()
        options = self.options
        wanted_plan = windows.plan_analytics(
            full=options.full,
            since=options.since,
            high_water_mark=previous,
            earliest_in_data=earliest,
            today=windows.analytics_today(datetime.now(UTC), newest),
            lookback_days=options.lookback_days,
        )
        resumed = Walk.restore(resource, self.writer.checkpoint(resource))
        if wanted_plan is not None:
            query = {"start": wanted_plan.start.isoformat(), "end": wanted_plan.end.isoformat()}
            full = options.full or previous is None
            walk = self._prepare(Walk(resource, query, full, datetime.now(UTC), step=wanted_plan))
        elif resumed is not None:
            walk = resumed
            self.report.resumed.append(resource)
        else:
            reason = "no posts or channels in the warehouse yet to date it from"
            return lambda: self.pipeline.put(Skipped(resource, reason))
        history = self._days_history(walk, earliest, previous)

        def mark(done: Walk) -> Checkpoint:
            assert isinstance(done.step, windows.AnalyticsPlan)
            moved = windows.next_analytics_mark(previous=previous, plan=done.step)
            return Checkpoint(resource, self.run_id, high_water_mark=moved)

        def run() -> None:
            self._walk(walk, previous, mark)
            if history is not None:
                self._walk_history(history)

        return run

    # --- walking (in the walk's own thread) -------------------------------------------------

    def _walk(
        self,
        walk: Walk,
        previous: datetime | None,
        mark: Callable[[Walk], Checkpoint] | None = None,
    ) -> None:
        def unmoved(done: Walk) -> Checkpoint:
            return Checkpoint(done.resource, self.run_id, high_water_mark=previous)

        keep = Checkpoint(walk.resource, self.run_id, high_water_mark=previous)
        self.fetcher.walk(walk, keep=keep, end=mark or unmoved)

    def _walk_history(self, walk: Walk, *, since: float | None = None) -> None:
        step = walk.step
        assert isinstance(step, HistorySlice)
        # Its cost on the run's clock lasts until its last batch is written: measured from
        # here, or from `since` when its planning began, to the end of the phase (the
        # history walk is its thread's last).
        self.history_started = time.monotonic() if since is None else since
        name = walk.resource
        self.fetcher.walk(
            walk,
            keep=sweep_checkpoint(name, self.run_id, step.started_from()),
            end=lambda done: sweep_checkpoint(name, self.run_id, step.next_sweep()),
            on_page=self._count_history_page,
        )

    def _count_history_page(self) -> None:
        self.report.history_requests += 1

    def _pages(self, path: str, walk: Walk) -> Any:
        return iter(
            self.client.raw_pages(
                path, walk.query, cursor=walk.cursor, limit=self.options.page_limit
            )
        )

    def _reread(self, ids: list[str]) -> None:
        """Re-read drafts and scheduled posts one by one; 404 means deleted (or hidden)."""
        found: list[dict[str, Any]] = []
        gone: list[str] = []
        for post_id in ids:
            self.pipeline.check_stop()
            try:
                item = self.client.request("GET", f"/posts/{quote(post_id, safe='')}")
            except NotFoundError:
                gone.append(post_id)
                continue
            found.append(item)
        if found:
            shape = SHAPES["posts"]
            self.pipeline.put(Rows("posts", items_to_arrow(shape, found, "GET /posts/{id}"), None))
        if gone:
            self.pipeline.put(Gone("posts", gone))


def _midnight(at: datetime) -> datetime:
    day: date = at.astimezone(UTC).date()
    return datetime(day.year, day.month, day.day, tzinfo=UTC)
