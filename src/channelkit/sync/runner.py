"""`run_sync`: plan the walks, run them through the pipeline, write each batch.

The jobs are apart, as dlt splits extract / normalize / load: `options` checks the
arguments, `walks` plans each resource's walks from what the warehouse holds (the history
sweep in `history`, typed checkpoints in `checkpoints`), `pipeline` fetches in threads
behind a bounded queue, and this module's writing thread turns page bodies into Arrow
columns (pyarrow's JSON reader, outside the GIL) and commits them through the
`warehouse` storage, one batch and its checkpoint per transaction.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import fields
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from channelkit._constants import (
    LAKE_DUCKDB_MEMORY_BYTES,
    SYNC_DUCKDB_MEMORY_BYTES,
    SYNC_DUCKDB_THREADS,
    WAREHOUSE_PATH,
)
from channelkit._resources import BY_TABLE, PHASES, RESOURCES
from channelkit._urls import redact_url
from channelkit.errors import (
    ChannelkitError,
    LakeError,
    PermissionDeniedError,
    SyncDataError,
    SyncViewError,
    WarehouseError,
)
from channelkit.storage.connection import open_warehouse, storage_problem
from channelkit.storage.holdings import Holdings
from channelkit.storage.lake import require_lake_package, write_lake
from channelkit.storage.memory import memory_limit, set_memory_limit
from channelkit.storage.parquet import export_parquet
from channelkit.storage.working_copy import switch, working_copy
from channelkit.storage.writer import (
    Checkpoint,
    DeletionScope,
    RunCost,
    WarehouseWriter,
    from_epoch_us,
    new_run_id,
)
from channelkit.sync.arrow import SHAPES, TableShape, pages_to_arrow
from channelkit.sync.history import HistorySlice
from channelkit.sync.options import SyncOptions
from channelkit.sync.pipeline import (
    Failed,
    Gone,
    Message,
    Pages,
    Pipeline,
    Rows,
    Skipped,
    base,
)
from channelkit.sync.progress import Progress, shown
from channelkit.sync.report import SyncReport
from channelkit.sync.view import UNLISTED, KeyView, check_view
from channelkit.sync.walk import Walk
from channelkit.sync.walks import HISTORIES, POSTS_HISTORY, Planner

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client._base import ClientStats, WaitEvent

# The resources walked by publishing time: their walk's newest `published_at` is its mark
_BY_PUBLISHING_TIME = frozenset(r.table for r in RESOURCES if r.walk == "published")


def run_sync(
    client: Client,
    path: str | Path = WAREHOUSE_PATH,
    options: SyncOptions | None = None,
    *,
    progress: bool = True,
    **flags: Any,
) -> SyncReport:
    """Sync the service into the DuckDB warehouse at `path`; return what was done.

        report = run_sync(client, "warehouse.duckdb", only="posts", since="2026-11-01")
        report = run_sync(client, "warehouse.duckdb", SyncOptions.check(full=True))

    `options` is what `ck.sync` and `channelkit sync` build once; the same may be given as
    keywords instead (`full`, `since`, `only`, `lookback_days`, `parquet`, `lake`,
    `page_limit`, `batch_rows`, `convergence_runs`: see `ck.sync`), checked by
    `SyncOptions.check`. The first run (or `full`) reads everything and marks posts and
    channels that disappeared as deleted; later runs are incremental (see
    `channelkit.sync.windows`). A run that stops on an error returns a report with
    `completed=False`; the next run continues where it stopped.
    """
    if options is None:
        options = SyncOptions.check(**flags)
    elif flags:
        raise TypeError(f"run_sync takes options or keywords, not both: {sorted(flags)}")
    if options.lake is not None:
        require_lake_package()
    # DuckDB would otherwise cache the written table up to 80% of RAM; the sync only needs
    # a batch's worth, and a flat footprint whatever the workspace size. Its threads would
    # compete with the fetching thread, which bounds the sync's speed.
    settings: dict[str, str | int] = {
        "threads": SYNC_DUCKDB_THREADS,
        "memory_limit": f"{SYNC_DUCKDB_MEMORY_BYTES}B",  # the writer adds the key indexes'
    }
    began = (client.stats, time.monotonic())
    # Readers keep the warehouse: the run writes a working copy, switched in at its end.
    copy = working_copy(Path(path))
    work = copy.path
    con = open_warehouse(work, read_only=False, settings=settings)
    try:
        sync = _Sync(
            client,
            con,
            path=str(path),
            options=options,
            progress=Progress.of(shown(progress)),
        )
        sync.report.start_copy, sync.report.start_copy_seconds = copy.how, copy.seconds
        if copy.set_aside is not None:
            sync.report.set_aside = (
                f"{work.name} was not copied from the warehouse now at {path} (deleted or "
                f"replaced since a killed run began it): set aside as {copy.set_aside.name}, "
                "not switched in"
            )
            sync.report.notes.append(sync.report.set_aside)
        report = sync.run(began)
        _copy(con, report, parquet=options.parquet, lake=options.lake)
    except duckdb.Error as exc:
        # Outside a batch (bookkeeping, planning): the file itself is the problem. The
        # working copy stays where it is, not in the readers' place.
        con.close()
        raise WarehouseError(f"{path}: {storage_problem(exc)}") from None
    except BaseException:  # interrupted: what it committed is kept, as by a failed run
        con.close()
        switch(work, Path(path))
        raise
    con.close()
    switch(work, Path(path))
    return report


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
        set_memory_limit(con, memory_limit(con, work=LAKE_DUCKDB_MEMORY_BYTES))
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
    """One run: the walks planned by `Planner`, fetched by the pipeline, written here."""

    def __init__(
        self,
        client: Client,
        con: duckdb.DuckDBPyConnection,
        *,
        path: str,
        options: SyncOptions,
        progress: Progress,
    ) -> None:
        self.client = client
        self.writer = WarehouseWriter(con, memory_work=SYNC_DUCKDB_MEMORY_BYTES)
        self.options = options
        self.progress = progress
        self.pipeline = Pipeline()
        # A first run reads everything whatever was asked: call it what it is.
        mode: Literal["full", "incremental"] = (
            "full" if options.full or not self.writer.has_completed_run() else "incremental"
        )
        self.mode = mode
        self.report = SyncReport(
            run_id=new_run_id(), mode=mode, base_url=redact_url(client.base_url), path=path
        )
        self.report.counts = {r: self.report.counts[r] for r in options.resources}
        # Recorded once the first walks have started (before any batch is written): the
        # transaction overlaps their first requests.
        self._recorded = False
        self._later: list[Callable[[], None]] = [self._record_run]
        self.holdings = Holdings(con)
        # False for a key whose view cannot be named (`sync.view`): nothing is marked deleted.
        self.marks_deletions = True
        self.planner = Planner(
            client, self.writer, self.holdings, options, self.report, self.pipeline, self._later
        )

    def run(self, began: tuple[ClientStats, float]) -> SyncReport:
        """The run, its cost counted from `began` (the client's stats and the clock when
        `run_sync` began: the working copy and its opening count)."""
        stats_before, started = began
        previous_hook = self.client.on_wait
        self.client.on_wait = self._on_wait_chain(previous_hook)
        interrupted: BaseException | None = None
        try:
            if self._view_checked():
                for phase in PHASES:
                    if self.pipeline.stop.is_set():
                        break
                    self._run_phase(phase)
        except BaseException as exc:  # KeyboardInterrupt included: record, then re-raise
            interrupted = exc
            self.pipeline.stop.set()
            self.report.error = self.report.error or f"interrupted ({type(exc).__name__})"
        finally:
            self.client.on_wait = previous_hook
            self.progress.close()
            self._finish(stats_before, started)
        if interrupted is not None:
            raise interrupted
        return self.report

    def _view_checked(self) -> bool:
        """Whether this key's view may sync into this warehouse (`sync.view`): one listing of
        its channels, before anything is written. False (the run's error said) when not."""
        try:
            seen = KeyView.of_key(self.client)
        except PermissionDeniedError:
            # No channels:read: a post it does not see may be one its user may not see.
            seen, self.marks_deletions = UNLISTED, False
        except ChannelkitError as exc:
            self.report.error = _describe("channels", exc, self.report.path)
            return False
        self.report.view = seen.record()
        try:
            filled_by = KeyView.of_record(self.holdings.last_view())
            check_view(
                filled_by,
                seen,
                holding_posts=self.holdings.channels_with_posts,
                accept=self.options.new_view,
            )
        except SyncViewError as exc:
            self.report.error = str(exc)
            return False
        return True

    def _run_phase(self, resources: tuple[str, ...]) -> None:
        try:
            wanted = [r for r in resources if r in self.options.resources]
            self.pipeline.run_phase(wanted, self.planner.walker, self._later, self._handle)
        finally:
            started, self.planner.history_started = self.planner.history_started, None
            if started is not None:
                self.report.history_seconds += time.monotonic() - started

    def _record_run(self) -> None:
        if not self._recorded:
            report = self.report
            self.writer.start_run(mode=self.mode, base_url=report.base_url, run_id=report.run_id)
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
        if report.error is None and len(report.skipped) == len(self.options.resources):
            report.error = "nothing was synced: every requested resource was skipped"
        report.completed = report.error is None
        self._record_run()
        self.writer.finish_run(
            report.run_id,
            status="completed" if report.completed else "failed",
            counts={"tables": report.counts_dict(), "skipped": report.skipped, "view": report.view},
            error=report.error,
            cost=RunCost(**{f.name: getattr(report, f.name) for f in fields(RunCost)}),
            unknown_fields=report.unknown_fields,
            notes=report.notes,
        )

    def _on_wait_chain(
        self, previous: Callable[[WaitEvent], None] | None
    ) -> Callable[[WaitEvent], None]:
        def hook(event: WaitEvent) -> None:
            self.progress.waiting(event.path, event.seconds, event.reason)
            if previous is not None:
                previous(event)

        return hook

    # --- the writing thread -----------------------------------------------------------------

    def _handle(self, message: Message) -> None:
        report = self.report
        if isinstance(message, Skipped):
            report.skipped[message.resource] = message.reason
            self.progress.finish(message.resource, f"skipped: {message.reason}")
        elif isinstance(message, Failed):
            self._fail(message.resource, message.error)
        elif isinstance(message, Gone):
            if not self.marks_deletions:
                return
            resource = base(message.resource)
            try:
                report.counts[resource].deleted += self.writer.mark_deleted(
                    SHAPES[resource].table, message.ids
                )
            except duckdb.Error as exc:
                self._fail(resource, exc)
        elif isinstance(message, Rows | Pages):
            if isinstance(message, Pages):
                report.pages += message.pages
            walked = message.walk.resource if isinstance(message, Pages) else message.resource
            resource = base(walked)
            try:
                batch = self._rows(message) if isinstance(message, Pages) else message
                rows = batch.rows
                if rows is not None:
                    rows = self._keep_fields(resource, rows)
                counts = self.writer.commit_batch(
                    SHAPES[resource].table,
                    rows,
                    checkpoint=batch.checkpoint,
                    deletions=batch.deletions,
                )
            except (duckdb.Error, SyncDataError) as exc:
                self._fail(resource, exc)
                return
            report.counts[resource].add(counts)
            self.progress.advance(resource, batch.rows.num_rows if batch.rows else 0)

    def _keep_fields(self, table: str, rows: pa.Table) -> pa.Table:
        """The batch with its fields the contract does not name given columns; each named
        once in the run's record, with what was noticed about them."""
        known = SHAPES[table].columns
        unknown = [name for name in rows.column_names if name not in known]
        if not unknown:
            return rows
        kept = self.writer.keep_fields(table, rows, unknown)
        seen = self.report.unknown_fields.setdefault(table, {})
        for name, type_ in kept.types.items():
            if seen.get(name, "NULL") == "NULL":
                seen[name] = type_
        self.report.notes.extend(n for n in kept.notes if n not in self.report.notes)
        return kept.rows

    def _rows(self, pages: Pages) -> Rows:
        """Pages to rows and the checkpoint after them (in the writing thread, in order:
        the newest `published_at` seen is complete when the last batch is reached)."""
        walk = pages.walk
        rows = pages_to_arrow(pages.shape, pages.bodies, pages.where) if pages.bodies else None
        if rows is not None and walk.resource in HISTORIES:
            self.report.history_rows += rows.num_rows
        if rows is not None and walk.resource in _BY_PUBLISHING_TIME:
            walk.max_seen = _latest(walk.max_seen, rows.column("published_at"))
        if pages.cursor is None:
            deletions = _deletions(walk, pages.shape) if self.marks_deletions else None
            return Rows(walk.resource, rows, pages.end(walk), deletions)
        keep = pages.keep
        checkpoint = Checkpoint(
            walk.resource,
            keep.run_id,
            cursor=pages.cursor,
            params=walk.state(),
            high_water_mark=keep.high_water_mark,
            state=keep.state,
        )
        return Rows(walk.resource, rows, checkpoint)

    def _fail(self, resource: str, error: BaseException) -> None:
        if isinstance(error, duckdb.Error):
            self.report.resumable = False
        if self.report.error is None:
            self.report.error = _describe(resource, error, self.report.path)
        self.pipeline.stop.set()


def _deletions(walk: Walk, shape: TableShape) -> DeletionScope | None:
    """What a completed walk can tell about deletions: an unfiltered walk of posts or
    channels (the history cycle's last slice included), or a slice of the published
    history."""
    step = walk.step
    if walk.resource == POSTS_HISTORY and isinstance(step, HistorySlice) and not step.last:
        return DeletionScope(
            walk.started_at,
            sliced=True,
            published_from=step.after,
            published_before=step.before,
        )
    if walk.full and BY_TABLE[shape.table].deletable:
        return DeletionScope(walk.started_at)
    return None


def _latest(current: datetime | None, column: pa.ChunkedArray) -> datetime | None:
    # As epoch microseconds: a zoned Arrow timestamp turned into a datetime imports pandas.
    value = from_epoch_us(pc.max(column.cast(pa.int64())).as_py())
    if value is None:
        return current
    return value if current is None else max(current, value)


def _describe(resource: str, error: BaseException, path: str) -> str:
    if isinstance(error, duckdb.Error):
        return f"writing {resource} into {path} failed: {storage_problem(error)}"
    if isinstance(error, ChannelkitError):
        return f"{resource}: {error}"
    return f"{resource}: unexpected {type(error).__name__}: {error}"
