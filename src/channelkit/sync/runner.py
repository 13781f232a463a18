"""`run_sync`: walk the listings, hand batches to one writer, checkpoint after each.

Each resource is walked by its own thread (channels and posts together, then the two
analytics listings together, since their date range comes from the posts), sharing the
client and therefore its rate budget. The threads only fetch: they put the page bodies
of each batch on a small bounded queue. The calling thread reads them into Arrow columns
(pyarrow's JSON reader, which runs outside the GIL) and writes them with one set-based
statement per table; it is the only one writing to DuckDB. Fetching and writing overlap
(a bounded producer/consumer pipeline) while memory stays bounded.
"""

from __future__ import annotations

import contextlib
import functools
import queue
import threading
import time
from collections.abc import Callable, Collection, Iterator, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from datetime import time as dt_time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote

import duckdb
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from channelkit._constants import (
    LAKE_DUCKDB_MEMORY_LIMIT,
    SYNC_BATCH_ROWS,
    SYNC_BATCH_SECONDS,
    SYNC_CONVERGENCE_RUNS,
    SYNC_DUCKDB_MEMORY_LIMIT,
    SYNC_DUCKDB_THREADS,
    SYNC_LOOKBACK_DAYS,
    SYNC_PAGE_LIMIT,
    SYNC_QUEUE_BATCHES,
    SYNC_STOP_GRACE_SECONDS,
    WAREHOUSE_PATH,
)
from channelkit._spec import PAGE_LIMIT_MAX
from channelkit._urls import redact_url
from channelkit.errors import (
    BadRequestError,
    ChannelkitError,
    InvalidParameterError,
    NotFoundError,
    PermissionDeniedError,
)
from channelkit.sync import listings, plan
from channelkit.sync.arrow import (
    CHANNEL_DAILY,
    CHANNELS,
    POST_DAILY,
    POSTS,
    SyncDataError,
    TableShape,
    items_to_arrow,
    pages_to_arrow,
)
from channelkit.sync.progress import Progress, visible
from channelkit.sync.report import SyncReport
from channelkit.sync.walk import Walk, resumable
from channelkit.warehouse.connection import WarehouseError, open_warehouse, storage_problem
from channelkit.warehouse.lake import LakeError, write_lake
from channelkit.warehouse.parquet import export_parquet
from channelkit.warehouse.writer import Checkpoint, DeletionScope, WarehouseWriter, new_run_id

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client._base import WaitEvent

RESOURCE_GROUPS = listings.GROUPS
# The walks re-reading older history (one slice per incremental run) keep their own
# checkpoints, named after the resource whose table they write.
POSTS_HISTORY = "posts:history"
CHANNEL_DAILY_HISTORY = "channel_daily:history"
# Analytics rows never disappear: only these tables mark rows a full walk did not see.
_DELETABLE = frozenset({"channels", "posts"})
_SHAPES = {
    "channels": CHANNELS,
    "posts": POSTS,
    "post_daily": POST_DAILY,
    "channel_daily": CHANNEL_DAILY,
}


class SyncError(ChannelkitError):
    """A sync did not complete; `report` holds what it did (and kept) before stopping."""

    def __init__(self, message: str, report: SyncReport) -> None:
        super().__init__(message)
        self.report = report


# --- messages from the walking threads to the writing one --------------------------------


@dataclass
class _Batch:
    resource: str
    rows: pa.Table | None
    checkpoint: Checkpoint | None
    deletions: DeletionScope | None = None


@dataclass
class _Pages:
    """Page bodies of one walk, and what the checkpoint after them needs."""

    walk: Walk
    shape: TableShape
    where: str
    bodies: list[bytes]
    cursor: str | None  # of the next page; None: the walk's last batch
    previous: datetime | None
    mark: Callable[[Walk], datetime | None] | None
    done: Checkpoint | None
    state: Mapping[str, Any] | None


@dataclass
class _Gone:
    resource: str
    ids: list[str]


@dataclass
class _Skipped:
    resource: str
    reason: str


@dataclass
class _Failed:
    resource: str
    error: BaseException


@dataclass
class _Finished:
    resource: str


_Message = _Batch | _Pages | _Gone | _Skipped | _Failed | _Finished
# A history walk, the checkpoint saved when it completes, and the position and state the
# checkpoints keep until then.
_HistoryPlan = tuple[Walk, Checkpoint, datetime | None, dict[str, Any]]


def parse_only(only: str | Collection[str] | None) -> tuple[str, ...]:
    """`--only posts,channels,analytics` (any subset; default all) to table resources."""
    if only is None:
        names: list[str] = list(RESOURCE_GROUPS)
    else:
        parts = only.split(",") if isinstance(only, str) else list(only)
        names = [p.strip() for p in parts if p.strip()]
        unknown = [n for n in names if n not in RESOURCE_GROUPS]
        if unknown or not names:
            raise InvalidParameterError(
                "only", f"{only!r} is not a comma-separated subset of {', '.join(RESOURCE_GROUPS)}"
            )
    return tuple(r for group in RESOURCE_GROUPS if group in names for r in RESOURCE_GROUPS[group])


def run_sync(
    client: Client,
    path: str | Path = WAREHOUSE_PATH,
    *,
    full: bool = False,
    since: str | date | datetime | None = None,
    only: str | Collection[str] | None = None,
    lookback_days: int = SYNC_LOOKBACK_DAYS,
    parquet: str | Path | None = None,
    lake: str | Path | None = None,
    progress: bool = True,
    page_limit: int = SYNC_PAGE_LIMIT,
    batch_rows: int = SYNC_BATCH_ROWS,
    convergence_runs: int = SYNC_CONVERGENCE_RUNS,
) -> SyncReport:
    """Sync the service into the DuckDB warehouse at `path`; return what was done.

    The first run (or `full=True`) reads everything and marks posts and channels that
    disappeared as deleted; later runs are incremental (see `channelkit.sync.plan`).
    `since` limits posts and analytics to that date onwards. A run that stops on an error
    returns a report with `completed=False`; the next run continues where it stopped.
    `parquet` (a directory) gets a snapshot of every table; `lake` (a directory or an
    `s3://...` URL) a Delta Lake copy, merged with what each run changed.
    `page_limit` is the page size asked for; `batch_rows` the rows per committed batch
    (smaller: less work lost to a kill; larger: fewer transactions). Every incremental
    run also re-reads one slice of the older history, so that after `convergence_runs`
    incremental runs the warehouse equals a full sync (see `docs/warehouse.md`).
    """
    resources = parse_only(only)
    try:
        since_at = plan.parse_since(since) if since is not None else None
    except ValueError as exc:
        raise InvalidParameterError("since", str(exc)) from None
    if isinstance(lookback_days, bool) or not isinstance(lookback_days, int) or lookback_days < 0:
        raise InvalidParameterError(
            "lookback_days", f"{lookback_days!r} is not a whole number of days >= 0"
        )
    for name, value, low, high in (
        ("page_limit", page_limit, 1, PAGE_LIMIT_MAX),
        ("batch_rows", batch_rows, 1, None),
        ("convergence_runs", convergence_runs, 1, None),
    ):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise InvalidParameterError(name, f"{value!r} is not an integer >= {low}")
        if high is not None and value > high:
            raise InvalidParameterError(name, f"{value!r} is more than the service allows ({high})")
    # DuckDB would otherwise cache the written table up to 80% of RAM; the sync only needs
    # a batch's worth, and a flat footprint whatever the workspace size. Its threads would
    # compete with the fetching thread, which bounds the sync's speed.
    settings: dict[str, str | int] = {
        "threads": SYNC_DUCKDB_THREADS,
        "memory_limit": SYNC_DUCKDB_MEMORY_LIMIT,
    }
    con = open_warehouse(path, read_only=False, settings=settings)
    try:
        sync = _Sync(
            client,
            con,
            path=str(path),
            resources=resources,
            full=full,
            since=since_at,
            lookback_days=lookback_days,
            page_limit=page_limit,
            batch_rows=batch_rows,
            convergence_runs=convergence_runs,
            progress=Progress(enabled=progress and visible()),
        )
        report = sync.run()
        _copy(con, report, parquet=parquet, lake=lake)
        return report
    except duckdb.Error as exc:
        # Outside a batch (bookkeeping, planning): the file itself is the problem.
        raise WarehouseError(f"{path}: {storage_problem(exc)}") from None
    finally:
        con.close()


def _copy(
    con: duckdb.DuckDBPyConnection,
    report: SyncReport,
    *,
    parquet: str | Path | None,
    lake: str | Path | None,
) -> None:
    """The copies made after a completed run: the lake first (it is merged), then Parquet."""
    if not report.completed:
        return
    if lake is not None:
        # Arrow keeps freed batches for reuse, DuckDB its cache: hand both back before
        # delta-rs buffers the files it writes (peak memory of a 1M-post run).
        pa.default_memory_pool().release_unused()
        con.execute(f"SET memory_limit = '{LAKE_DUCKDB_MEMORY_LIMIT}'")
        started = time.monotonic()
        try:
            report.lake_rows = write_lake(con, lake)
        except LakeError as exc:
            # The warehouse is complete; only the copy is behind, and the next run merges it.
            report.completed, report.error = False, str(exc)
            return
        report.lake_seconds = time.monotonic() - started
    if parquet is not None:
        export_parquet(con, parquet)


class _Sync:
    def __init__(
        self,
        client: Client,
        con: duckdb.DuckDBPyConnection,
        *,
        path: str,
        resources: tuple[str, ...],
        full: bool,
        since: datetime | None,
        lookback_days: int,
        page_limit: int,
        batch_rows: int,
        convergence_runs: int,
        progress: Progress,
    ) -> None:
        self.client = client
        self.con = con
        self.writer = WarehouseWriter(con)
        self.resources = resources
        self.full = full
        self.since = since
        self.lookback_days = lookback_days
        self.page_limit = page_limit
        self.batch_rows = batch_rows
        self.convergence_runs = convergence_runs
        self.history: plan.HistorySlice | None = None
        self._history_started: float | None = None
        self.progress = progress
        # Work for the writing thread once the walks have started (before any batch).
        self._later: list[Callable[[], None]] = []
        self.stop = threading.Event()
        self.queue: queue.Queue[_Message] = queue.Queue(maxsize=SYNC_QUEUE_BATCHES)
        # A first run reads everything whatever was asked: call it what it is.
        mode: Literal["full", "incremental"] = (
            "full" if full or not self.writer.has_completed_run() else "incremental"
        )
        self.mode = mode
        base_url = redact_url(client.base_url)
        self.run_id = new_run_id()
        # Recorded once the first walks have started (before any batch is written): the
        # transaction overlaps their first requests.
        self._recorded = False
        self._later.append(functools.partial(self._record_run, base_url))
        self.report = SyncReport(
            run_id=self.run_id,
            mode=mode,
            base_url=base_url,
            path=path,
        )
        self.report.counts = {r: self.report.counts[r] for r in resources}

    # --- the run ---------------------------------------------------------------------------

    def run(self) -> SyncReport:
        stats_before = self.client.stats
        started = time.monotonic()
        previous_hook = self.client.on_wait
        self.client.on_wait = self._on_wait_chain(previous_hook)
        interrupted: BaseException | None = None
        try:
            # Posts first: their walk is the longer one.
            self._run_phase([r for r in ("posts", "channels") if r in self.resources])
            if not self.stop.is_set():
                self._run_phase([r for r in ("post_daily", "channel_daily") if r in self.resources])
        except BaseException as exc:  # KeyboardInterrupt included: record, then re-raise
            interrupted = exc
            self.stop.set()
            self.report.error = self.report.error or f"interrupted ({type(exc).__name__})"
        finally:
            self.client.on_wait = previous_hook
            self.progress.close()
            self._finish(stats_before, started)
        if interrupted is not None:
            raise interrupted
        return self.report

    def _record_run(self, base_url: str) -> None:
        if not self._recorded:
            self.writer.start_run(mode=self.mode, base_url=base_url, run_id=self.run_id)
            self._recorded = True

    def _finish(self, before: Any, started: float) -> None:
        after = self.client.stats
        report = self.report
        report.requests = after.requests - before.requests
        report.retries = after.retries - before.retries
        report.responses_429 = after.responses_429 - before.responses_429
        report.rate_limit_waits = after.rate_limit_waits - before.rate_limit_waits
        report.wait_seconds = after.wait_seconds - before.wait_seconds
        report.duration_seconds = time.monotonic() - started
        if report.error is None and len(report.skipped) == len(self.resources):
            report.error = "nothing was synced: every requested resource was skipped"
        report.completed = report.error is None
        self._record_run(report.base_url)
        self.writer.finish_run(
            self.run_id,
            status="completed" if report.completed else "failed",
            counts={"tables": report.counts_dict(), "skipped": report.skipped},
            requests=report.requests,
            rate_limit_waits=report.rate_limit_waits,
            error=report.error,
        )

    def _on_wait_chain(
        self, previous: Callable[[WaitEvent], None] | None
    ) -> Callable[[WaitEvent], None]:
        def hook(event: WaitEvent) -> None:
            self.progress.waiting(event.path, event.seconds, event.reason)
            if previous is not None:
                previous(event)

        return hook

    def _run_phase(self, resources: list[str]) -> None:
        threads: list[threading.Thread] = []
        active = 0
        try:
            # Each walk starts as soon as it is planned: its first requests overlap the
            # planning of the next walk, and of what a walk needs only later (_later).
            for resource in resources:
                walker = self._walker(resource)
                thread = threading.Thread(
                    target=self._guard,
                    args=(resource, walker),
                    name=f"sync-{resource}",
                    daemon=True,
                )
                thread.start()
                threads.append(thread)
                active += 1
            while self._later:
                self._later.pop(0)()
            while active:
                try:
                    message = self.queue.get(timeout=0.2)
                except queue.Empty:
                    if not any(thread.is_alive() for thread in threads):
                        break  # a walk that ended without saying so (see _guard)
                    continue
                if isinstance(message, _Finished):
                    active -= 1
                elif not self.stop.is_set() or not isinstance(message, _Batch | _Pages | _Gone):
                    self._handle(message)
        finally:
            self._later.clear()
            if self._history_started is not None:
                self.report.history_seconds += time.monotonic() - self._history_started
                self._history_started = None
            if active:  # left early (interrupted): let the walks end at their next page
                self.stop.set()
                deadline = time.monotonic() + SYNC_STOP_GRACE_SECONDS
                while time.monotonic() < deadline and any(t.is_alive() for t in threads):
                    with contextlib.suppress(queue.Empty):
                        self.queue.get(timeout=0.05)  # unblock walks waiting to hand over

    def _handle(self, message: _Message) -> None:
        report = self.report
        if isinstance(message, _Skipped):
            report.skipped[message.resource] = message.reason
            self.progress.finish(message.resource, f"skipped: {message.reason}")
        elif isinstance(message, _Failed):
            self._fail(message.resource, message.error)
        elif isinstance(message, _Gone):
            resource = _base(message.resource)
            try:
                report.counts[resource].deleted += self.writer.mark_deleted(
                    _SHAPES[resource].table, message.ids
                )
            except duckdb.Error as exc:
                self._fail(resource, exc)
        elif isinstance(message, _Batch | _Pages):
            walked = message.walk.resource if isinstance(message, _Pages) else message.resource
            resource = _base(walked)
            try:
                batch = self._batch(message) if isinstance(message, _Pages) else message
                counts = self.writer.commit_batch(
                    _SHAPES[resource].table,
                    batch.rows,
                    checkpoint=batch.checkpoint,
                    deletions=batch.deletions,
                )
            except (duckdb.Error, SyncDataError) as exc:
                self._fail(resource, exc)
                return
            report.counts[resource].add(counts)
            self.progress.advance(resource, batch.rows.num_rows if batch.rows else 0)

    def _fail(self, resource: str, error: BaseException) -> None:
        if isinstance(error, duckdb.Error):
            self.report.resumable = False
        if self.report.error is None:
            self.report.error = _describe(resource, error, self.report.path)
        self.stop.set()

    def _guard(self, resource: str, walker: Callable[[], None]) -> None:
        try:
            walker()
        except PermissionDeniedError:
            scope = listings.BY_RESOURCE[_base(resource)].scope
            self._put(_Skipped(resource, f"the API key lacks the {scope} scope (403 forbidden)"))
        except _Stopped:
            pass
        except BaseException as exc:  # reported to the writing thread, which decides
            self._put(_Failed(resource, exc))
        finally:
            # The writing thread may have stopped listening (interrupted): don't hang then.
            while not self.stop.is_set() or not self.queue.full():
                try:
                    self.queue.put(_Finished(resource), timeout=0.1)
                    break
                except queue.Full:
                    continue

    def _put(self, message: _Message) -> None:
        while True:
            if self.stop.is_set() and isinstance(message, _Batch | _Pages | _Gone):
                raise _Stopped
            try:
                self.queue.put(message, timeout=0.1)
                return
            except queue.Full:
                continue

    # --- the walks ------------------------------------------------------------------------

    def _walker(self, resource: str) -> Callable[[], None]:
        """Plan `resource`'s walk (reading the warehouse: this thread only) and return the
        function that walks it in its own thread (network and Arrow only)."""
        previous = self._previous_mark(resource)
        if resource == "channels":
            walk = self._prepare(resource, Walk(resource, {}, True, datetime.now(UTC)))
            return lambda: self._walk(walk, previous=previous, mark=None)
        if resource == "posts":
            return self._plan_posts(previous)
        return self._plan_analytics(resource, previous)

    def _prepare(self, resource: str, wanted: Walk) -> Walk:
        checkpoint = self.writer.checkpoint(resource)
        if checkpoint is not None and resumable(checkpoint, wanted, self.since is not None):
            self.report.resumed.append(resource)
            return Walk.resume(resource, checkpoint)
        return wanted

    def _previous_mark(self, resource: str) -> datetime | None:
        checkpoint = self.writer.checkpoint(resource)
        return checkpoint.high_water_mark if checkpoint else None

    def _plan_posts(self, previous: datetime | None) -> Callable[[], None]:
        posts_plan = plan.plan_posts(
            full=self.full,
            since=self.since,
            high_water_mark=previous,
            lookback_days=self.lookback_days,
        )
        pending = self._pending_posts()
        if not posts_plan.full and plan.prefer_full_walk(
            pending=len(pending), known_posts=self._count("posts"), page_limit=self.page_limit
        ):
            posts_plan = plan.PostsPlan(published_after=None, full=True)
        query = (
            {"published_after": posts_plan.published_after.isoformat()}
            if posts_plan.published_after
            else {}
        )
        walk = self._prepare("posts", Walk("posts", query, posts_plan.full, datetime.now(UTC)))
        # The slice of older history is planned once the walk has started: it is walked
        # after the recent posts, and its planning reads the whole posts table.
        history: Future[_HistoryPlan | None] = Future()

        def plan_history() -> None:
            try:
                history.set_result(self._plan_history(restart=walk.full))
            except BaseException as exc:
                history.set_exception(exc)
                raise

        self._later.append(plan_history)

        def mark(done: Walk) -> datetime | None:
            after = done.query.get("published_after")
            return plan.next_posts_mark(
                previous=previous,
                published_after=datetime.fromisoformat(after) if after else None,
                max_seen=done.max_seen,
                walk_seconds=(datetime.now(UTC) - done.started_at).total_seconds(),
            )

        def run() -> None:
            self._walk(walk, previous=previous, mark=mark)
            if not walk.full and pending:
                self._reread(pending)
            planned = self._await(history)
            if planned is not None:
                self._walk_history(*planned)

        return run

    def _plan_history(self, *, restart: bool) -> _HistoryPlan | None:
        """This run's slice of the older posts (None: a full walk, or `--since`).

        Returns the walk, the checkpoint that records the sweep's new position once the
        walk completes, and the position and state to keep until then.
        """
        checkpoint = self.writer.checkpoint(POSTS_HISTORY)
        if restart:  # a full walk re-reads everything: the next cycle starts from the oldest
            self.writer.save_checkpoint(Checkpoint(POSTS_HISTORY, self.run_id, state={"runs": 0}))
            return None
        if self.since is not None:
            return None
        if checkpoint is not None and checkpoint.in_progress:
            walk = Walk.resume(POSTS_HISTORY, checkpoint)
            self.report.resumed.append(POSTS_HISTORY)
            history = _slice_of(walk)
        else:
            state = dict(checkpoint.state or {}) if checkpoint else {}
            runs_done = int(state.get("runs", 0))
            position = checkpoint.high_water_mark if checkpoint else None
            if runs_done >= self.convergence_runs:  # the horizon was shortened: start over
                runs_done, position = 0, None
            quota = plan.slice_quota(
                remaining=self._published_from(position),
                runs_done=runs_done,
                runs=self.convergence_runs,
            )
            history = plan.HistorySlice(
                after=position,
                before=None if quota is None else self._slice_end(position, quota),
                number=runs_done + 1,
                count=self.convergence_runs,
            )
            walk = Walk(
                POSTS_HISTORY,
                plan.history_query(history),
                False,
                datetime.now(UTC),
                extra=_slice_extra(history),
            )
        self.history = history
        self.report.history_slice = _describe_slice(history)
        self.writer.record_slice(
            self.run_id,
            number=history.number,
            count=history.count,
            after=history.after,
            before=history.before,
        )
        done = Checkpoint(
            POSTS_HISTORY,
            self.run_id,
            high_water_mark=history.before,
            state={"runs": 0 if history.last else history.number},
        )
        return walk, done, history.after, {"runs": history.number - 1}

    def _walk_history(
        self,
        walk: Walk,
        done: Checkpoint,
        previous: datetime | None = None,
        state: Mapping[str, Any] | None = None,
    ) -> None:
        # Its cost on the run's clock lasts until its last batch is written: measured
        # from here to the end of the phase (the history walk is its thread's last).
        self._history_started = time.monotonic()
        self._walk(walk, previous=previous, mark=None, done=done, state=state)

    def _reread(self, ids: list[str]) -> None:
        """Re-read drafts and scheduled posts one by one; 404 means deleted (or hidden)."""
        found: list[dict[str, Any]] = []
        gone: list[str] = []
        for post_id in ids:
            self._check_stop()
            try:
                item = self.client.request("GET", f"/posts/{quote(post_id, safe='')}")
            except NotFoundError:
                gone.append(post_id)
                continue
            found.append(item)
        if found:
            self._put(_Batch("posts", items_to_arrow(POSTS, found, "GET /posts/{id}"), None))
        if gone:
            self._put(_Gone("posts", gone))

    def _plan_analytics(self, resource: str, previous: datetime | None) -> Callable[[], None]:
        earliest, newest = self._data_range()
        wanted_plan = plan.plan_analytics(
            full=self.full,
            since=self.since,
            high_water_mark=previous,
            earliest_in_data=earliest,
            today=plan.analytics_today(datetime.now(UTC), newest),
            lookback_days=self.lookback_days,
        )
        checkpoint = self.writer.checkpoint(resource)
        if wanted_plan is not None:
            walk = self._prepare(
                resource,
                Walk(
                    resource,
                    {"start": wanted_plan.start.isoformat(), "end": wanted_plan.end.isoformat()},
                    full=self.full or previous is None,
                    started_at=datetime.now(UTC),
                    extra={"final_before": wanted_plan.final_before.isoformat()},
                ),
            )
        elif checkpoint is not None and checkpoint.in_progress:
            walk = Walk.resume(resource, checkpoint)
            self.report.resumed.append(resource)
        else:
            reason = "no posts or channels in the warehouse yet to date it from"
            return lambda: self._put(_Skipped(resource, reason))
        history = self._plan_channel_history(resource, walk, earliest, previous)

        def mark(done: Walk) -> datetime | None:
            done_plan = plan.AnalyticsPlan(
                start=date.fromisoformat(done.query["start"]),
                end=date.fromisoformat(done.query["end"]),
                final_before=date.fromisoformat(done.extra["final_before"]),
            )
            return plan.next_analytics_mark(previous=previous, plan=done_plan)

        def run() -> None:
            self._walk(walk, previous=previous, mark=mark)
            if history is not None:
                self._walk_history(*history)

        return run

    def _plan_channel_history(
        self, resource: str, walk: Walk, earliest: datetime | None, previous: datetime | None
    ) -> _HistoryPlan | None:
        """This run's share of the final `channel_daily` days, swept like the posts: a
        channel's past days change when its posts are deleted or hidden."""
        if resource != "channel_daily" or walk.full or self.since is not None:
            return None
        checkpoint = self.writer.checkpoint(CHANNEL_DAILY_HISTORY)
        position = checkpoint.high_water_mark if checkpoint else None
        state = dict(checkpoint.state or {}) if checkpoint else {}
        if checkpoint is not None and checkpoint.in_progress:
            self.report.resumed.append(CHANNEL_DAILY_HISTORY)
            resumed = Walk.resume(CHANNEL_DAILY_HISTORY, checkpoint)
            return resumed, _days_done(resumed, self.run_id), position, state
        if earliest is None or previous is None:
            return None
        runs_done = int(state.get("runs", 0))
        if runs_done >= self.convergence_runs:
            runs_done, position = 0, None
        first = (position or earliest).astimezone(UTC).date()
        final = previous.astimezone(UTC).date()
        if first >= final:
            return None
        quota = plan.slice_quota(
            remaining=(final - first).days, runs_done=runs_done, runs=self.convergence_runs
        )
        end = final if quota is None else first + timedelta(days=quota)
        last = quota is None or end >= final
        extra = {
            "next": "" if last else datetime.combine(end, dt_time(), UTC).isoformat(),
            "runs": str(0 if last else runs_done + 1),
        }
        query = {"start": first.isoformat(), "end": min(end, final).isoformat()}
        days = Walk(CHANNEL_DAILY_HISTORY, query, False, datetime.now(UTC), extra=extra)
        return days, _days_done(days, self.run_id), position, {"runs": runs_done}

    def _walk(
        self,
        walk: Walk,
        *,
        previous: datetime | None,
        mark: Callable[[Walk], datetime | None] | None,
        done: Checkpoint | None = None,
        state: Mapping[str, Any] | None = None,
    ) -> None:
        base = _base(walk.resource)
        path = listings.BY_RESOURCE[base].path
        consume = functools.partial(
            self._consume,
            walk,
            _SHAPES[base],
            f"GET {path}",
            previous=previous,
            mark=mark,
            done=done,
            state=state,
        )
        try:
            consume(self._pages(path, walk))
        except BadRequestError as exc:
            if exc.param != "cursor" or walk.cursor is None:
                raise
            # The saved cursor is no longer accepted (expired on a real server?): the walk
            # starts over; rows already written are simply confirmed again.
            walk.cursor = None
            consume(self._pages(path, walk))

    def _pages(self, path: str, walk: Walk) -> Iterator[Any]:
        return iter(
            self.client.raw_pages(path, walk.query, cursor=walk.cursor, limit=self.page_limit)
        )

    def _consume(
        self,
        walk: Walk,
        shape: TableShape,
        where: str,
        pages: Iterator[Any],
        *,
        previous: datetime | None,
        mark: Callable[[Walk], datetime | None] | None,
        done: Checkpoint | None,
        state: Mapping[str, Any] | None,
    ) -> None:
        """Turn pages into batches; `done` is the checkpoint to save when the walk ends
        (by default: no walk in progress, the mark moved by `mark`); until then the
        checkpoints keep `previous` and `state`."""
        bodies: list[bytes] = []
        count = 0
        flushed = time.monotonic()
        for page in pages:
            self._check_stop()
            if walk.resource in (POSTS_HISTORY, CHANNEL_DAILY_HISTORY):
                self.report.history_requests += 1
            # The page's bytes go to the writing thread, which turns them into columns
            # (pyarrow's JSON reader, outside the GIL): this thread only fetches.
            bodies.append(page.body if page.body is not None else orjson.dumps(page.data))
            count += len(page.data)
            last = not page.has_more or not page.next_cursor
            if not last and (
                count < self.batch_rows and time.monotonic() - flushed < SYNC_BATCH_SECONDS
            ):
                walk.cursor = page.next_cursor
                continue
            if not last:
                walk.cursor = page.next_cursor
            self._put(
                _Pages(
                    walk=walk,
                    shape=shape,
                    where=where,
                    bodies=bodies if count else [],
                    cursor=None if last else page.next_cursor,
                    previous=previous,
                    mark=mark,
                    done=done,
                    state=state,
                )
            )
            bodies, count = [], 0
            flushed = time.monotonic()
            if last:
                return

    def _batch(self, pages: _Pages) -> _Batch:
        """Pages to rows and the checkpoint after them (in the writing thread, in order:
        the newest `published_at` seen is complete when the last batch is reached)."""
        walk = pages.walk
        rows = pages_to_arrow(pages.shape, pages.bodies, pages.where) if pages.bodies else None
        if rows is not None and walk.resource in (POSTS_HISTORY, CHANNEL_DAILY_HISTORY):
            self.report.history_rows += rows.num_rows
        if rows is not None and walk.resource == "posts":
            walk.max_seen = _latest(walk.max_seen, rows.column("published_at"))
        if pages.cursor is None:
            checkpoint = pages.done or Checkpoint(
                walk.resource,
                self.run_id,
                high_water_mark=pages.mark(walk) if pages.mark else pages.previous,
            )
            return _Batch(walk.resource, rows, checkpoint, _deletions(walk, pages.shape))
        checkpoint = Checkpoint(
            walk.resource,
            self.run_id,
            cursor=pages.cursor,
            params=walk.state(),
            high_water_mark=pages.previous,
            state=pages.state,
        )
        return _Batch(walk.resource, rows, checkpoint)

    def _await(self, planned: Future[_HistoryPlan | None]) -> _HistoryPlan | None:
        """What the writing thread planned for this walk (unless the run stops first)."""
        while True:
            try:
                return planned.result(timeout=0.1)
            except TimeoutError:
                self._check_stop()

    def _check_stop(self) -> None:
        if self.stop.is_set():
            raise _Stopped

    # --- what the warehouse already knows (read by the planning, writing thread) -----------

    def _pending_posts(self) -> list[str]:
        rows = self.con.execute(
            "SELECT id FROM posts WHERE deleted_at IS NULL "
            "AND status IN ('draft', 'scheduled') ORDER BY id"
        ).fetchall()
        return [r[0] for r in rows]

    def _published_from(self, position: datetime | None) -> int:
        """Posts with a publication time at or after `position` (None: all of them)."""
        sql = "SELECT count(*) FROM posts WHERE published_at IS NOT NULL"
        args: list[Any] = []
        if position is not None:
            sql += " AND published_at >= CAST(? AS TIMESTAMPTZ)"
            args.append(position.isoformat())
        return int(self.con.execute(sql, args).fetchall()[0][0])

    def _slice_end(self, position: datetime | None, quota: int) -> datetime | None:
        """Where a slice of `quota` posts from `position` ends (None: it takes the rest).

        Posts published at the same instant stay in one slice."""
        since = "" if position is None else " AND published_at >= CAST(? AS TIMESTAMPTZ)"
        args: list[Any] = [] if position is None else [position.isoformat()]
        row = self.con.execute(
            "SELECT epoch_us(published_at) FROM posts WHERE published_at IS NOT NULL"
            f"{since} ORDER BY published_at LIMIT 1 OFFSET ?",
            [*args, quota],
        ).fetchall()
        end = _from_us(row[0][0]) if row else None
        if end is not None and position is not None and end <= position:
            row = self.con.execute(
                "SELECT epoch_us(min(published_at)) FROM posts "
                "WHERE published_at > CAST(? AS TIMESTAMPTZ)",
                [position.isoformat()],
            ).fetchall()
            end = _from_us(row[0][0])
        return end

    def _count(self, table: str) -> int:
        return int(self.con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0])

    def _data_range(self) -> tuple[datetime | None, datetime | None]:
        row = self.con.execute(
            "SELECT epoch_us(least(p.first, c.first)), epoch_us(greatest(p.last, c.last)) "
            "FROM (SELECT min(published_at) AS first, "
            "greatest(max(published_at), max(updated_at)) AS last FROM posts) p, "
            "(SELECT min(created_at) AS first, max(updated_at) AS last FROM channels) c"
        ).fetchall()[0]
        return _from_us(row[0]), _from_us(row[1])


def _base(resource: str) -> str:
    """The resource whose table a walk writes (`posts:history` writes `posts`)."""
    return resource.split(":", 1)[0]


def _describe_slice(history: plan.HistorySlice) -> str:
    after = history.after.strftime("%Y-%m-%d %H:%M") if history.after else "the oldest"
    before = history.before.strftime("%Y-%m-%d %H:%M") if history.before else "the newest"
    return f"{history.number}/{history.count}, posts published {after} .. {before}"


def _slice_extra(history: plan.HistorySlice) -> dict[str, str]:
    return {
        "after": history.after.isoformat() if history.after else "",
        "before": history.before.isoformat() if history.before else "",
        "number": str(history.number),
        "count": str(history.count),
    }


def _slice_of(walk: Walk) -> plan.HistorySlice:
    extra = walk.extra
    return plan.HistorySlice(
        after=datetime.fromisoformat(extra["after"]) if extra["after"] else None,
        before=datetime.fromisoformat(extra["before"]) if extra["before"] else None,
        number=int(extra["number"]),
        count=int(extra["count"]),
    )


def _days_done(walk: Walk, run_id: str) -> Checkpoint:
    """The checkpoint ending a `channel_daily` history walk: where the next one starts."""
    following = walk.extra["next"]
    return Checkpoint(
        CHANNEL_DAILY_HISTORY,
        run_id,
        high_water_mark=datetime.fromisoformat(following) if following else None,
        state={"runs": int(walk.extra["runs"])},
    )


def _deletions(walk: Walk, shape: TableShape) -> DeletionScope | None:
    """What a completed walk can tell about deletions: an unfiltered walk of posts or
    channels, or a slice of the published history."""
    if walk.resource == POSTS_HISTORY:
        history = _slice_of(walk)
        return DeletionScope(
            walk.started_at,
            sliced=True,
            published_from=history.after,
            published_before=history.before,
        )
    if walk.full and shape.table in _DELETABLE:
        return DeletionScope(walk.started_at)
    return None


class _Stopped(Exception):
    """The run is stopping (another walk failed); this walk ends quietly."""


def _latest(current: datetime | None, column: pa.ChunkedArray) -> datetime | None:
    # As epoch microseconds: a zoned Arrow timestamp turned into a datetime imports pandas.
    value = _from_us(pc.max(column.cast(pa.int64())).as_py())
    if value is None:
        return current
    return value if current is None else max(current, value)


def _from_us(value: int | None) -> datetime | None:
    if value is None:
        return None
    return datetime.fromtimestamp(value / 1_000_000, UTC)


def _describe(resource: str, error: BaseException, path: str) -> str:
    if isinstance(error, duckdb.Error):
        return f"writing {resource} into {path} failed: {storage_problem(error)}"
    if isinstance(error, ChannelkitError):
        return f"{resource}: {error}"
    return f"{resource}: unexpected {type(error).__name__}: {error}"
