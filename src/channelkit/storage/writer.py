"""The warehouse's write side: batch upserts, checkpoints and sync_runs bookkeeping.

Every batch is one transaction: its rows, the `post_tags` they imply and the checkpoint
that says where the walk continues. A process killed at any moment therefore leaves the
file at the end of some batch, and the next run continues from that batch's cursor.

Timestamps cross the Python/DuckDB boundary as ISO strings or epoch microseconds, so that
reading TIMESTAMPTZ values never needs pytz.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from channelkit._resources import BY_TABLE, ChildTable, Resource
from channelkit.storage.memory import memory_limit, set_memory_limit
from channelkit.storage.reach import refresh_reach
from channelkit.storage.schema import OWN_COLUMNS, REACH_COLUMNS
from channelkit.storage.totals import counted, shift_posts, shift_totals

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_BATCH_VIEW = "_ck_batch"
_KEYS_VIEW = "_ck_keys"  # a batch's key columns, while counting distinct keys
_MATCHED_TABLE = "_ck_matched"  # every row of the batch, with the row it meets
_STAGE_TABLE = "_ck_stage"  # the batch's new and changed rows
_ROWID = "_ck_rowid"  # the `rowid` of the row a batch row meets (NULL: none)
_ORDER_COLUMN = "_ck_ord"
# Columns the writer maintains itself; never compared to decide "updated".
_BOOKKEEPING = ("synced_at", "deleted_at")


@dataclass(frozen=True)
class Checkpoint:
    """Where a resource's walk stands.

    `params` is None when no walk is in progress; otherwise it holds what is needed to
    continue it (the query, when it started, the largest value seen so far...), and
    `cursor` the cursor of the next page (None: the first page).
    `high_water_mark` belongs to the last completed walk; `state` outlives walks (where
    the history sweep stands).
    """

    resource: str
    run_id: str
    cursor: str | None = None
    params: Mapping[str, Any] | None = None
    high_water_mark: datetime | None = None
    state: Mapping[str, Any] | None = None

    @property
    def in_progress(self) -> bool:
        return self.params is not None


@dataclass(frozen=True)
class DeletionScope:
    """Rows a completed walk would have listed: those it did not see are deleted.

    `unseen_since` is when the walk began; for posts, `published_from` (inclusive) and
    `published_before` (exclusive) narrow the scope to a slice of the published history
    (`sliced=True`; None then means open on that side).
    """

    unseen_since: datetime
    sliced: bool = False
    published_from: datetime | None = None
    published_before: datetime | None = None


@dataclass
class UpsertCounts:
    """Rows a batch (or a run) added, changed, confirmed unchanged, or marked deleted."""

    new: int = 0
    updated: int = 0
    unchanged: int = 0
    deleted: int = 0

    def add(self, other: UpsertCounts) -> None:
        self.new += other.new
        self.updated += other.updated
        self.unchanged += other.unchanged
        self.deleted += other.deleted

    def as_dict(self) -> dict[str, int]:
        return {
            "new": self.new,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "deleted": self.deleted,
        }


@dataclass
class _TableInfo:
    resource: Resource  # what the writer does after writing the table, as declared
    columns: tuple[str, ...]
    key: tuple[str, ...]
    has_deleted_at: bool = field(default=False)
    types: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Matched:
    """A batch matched with the table (`WarehouseWriter._match`): how many rows it has, how
    many are new or changed, how many this run wrote before, and of those how many changed."""

    total: int
    new: int
    updated: int
    again: int
    again_changed: int


@dataclass
class KeptFields:
    """What `WarehouseWriter.keep_fields` did with a batch's unknown fields: the rows to
    write, each field's column type (NULL: only nulls so far, no column yet) and notes."""

    rows: pa.Table
    types: dict[str, str]
    notes: list[str]


# DuckDB column types of the Arrow types an unknown field arrives as (else VARCHAR).
_FIELD_TYPES = (
    (pa.types.is_boolean, "BOOLEAN"),
    (pa.types.is_integer, "BIGINT"),
    (pa.types.is_floating, "DOUBLE"),
    (pa.types.is_timestamp, "TIMESTAMP WITH TIME ZONE"),
    (pa.types.is_string, "VARCHAR"),
)
# An unknown field becomes a column under its own name when that is a plain lower-case
# SQL name; any other (or one the warehouse uses itself) is named in the run's notes.
_FIELD_NAME = re.compile(r"[a-z][a-z0-9_]{0,62}")


@dataclass(frozen=True)
class RunCost:
    """What a run cost, as `sync_runs` records it (waits: pacing and Retry-After sleeps)."""

    requests: int = 0
    pages: int = 0
    responses_429: int = 0
    retries: int = 0
    rate_limit_waits: int = 0
    wait_seconds: float = 0.0
    # How the run's working copy came to be (`storage.working_copy.WorkingCopy.how`) and
    # the copy's seconds: a clone, a plain copy, a killed run's copy continued, or new.
    start_copy: str | None = None
    start_copy_seconds: float = 0.0


class WarehouseWriter:
    """Writes synced rows into an open, migrated warehouse connection.

        con = open_warehouse("warehouse.duckdb", read_only=False)
        writer = WarehouseWriter(con)
        run_id = writer.start_run(mode="full", base_url=client.base_url)
        counts = writer.commit_batch("posts", rows, checkpoint=Checkpoint("posts", run_id))
        writer.finish_run(run_id, status="completed", counts={"posts": counts.as_dict()})

    Not thread-safe: one thread writes, the fetching threads hand it batches.
    """

    def __init__(self, con: duckdb.DuckDBPyConnection, *, memory_work: int | None = None) -> None:
        self._con = con
        # DuckDB's memory for the run's work, in bytes (None: left as the connection has it);
        # the key indexes get theirs on top, kept in step as the tables grow (`_fit_memory`).
        self._memory_work = memory_work
        self._memory_set = 0
        self._tables: dict[str, _TableInfo] = {}
        self._fresh: set[str] = set()  # tables empty when first met: rows need no comparing
        # Every checkpoint, read in one query when a run plans its walks; forgotten on any
        # write, so a later read sees what was committed (or rolled back).
        self._checkpoints: dict[str, Checkpoint] | None = None
        # When the current run started: a row it already wrote (the lookback window and a
        # history slice may both read a post) is counted once, not again as unchanged.
        self._run_started: str | None = None
        self._reserved: frozenset[str] | None = None  # DuckDB's reserved words
        self._fit_memory()

    # --- sync_runs -------------------------------------------------------------------------

    def has_completed_run(self) -> bool:
        """Whether a sync into this warehouse has ever completed (else the next reads all)."""
        rows = self._con.execute(
            "SELECT 1 FROM sync_runs WHERE status = 'completed' LIMIT 1"
        ).fetchall()
        return bool(rows)

    def start_run(self, *, mode: str, base_url: str, run_id: str | None = None) -> str:
        """Record a new run as `running` (under `run_id`, by default a new one); runs left
        `running` by a killed process fail."""
        run_id = run_id or new_run_id()
        now = _iso(datetime.now(UTC))
        with self._transaction():
            self._con.execute(
                "UPDATE sync_runs SET status = 'failed', finished_at = CAST(? AS TIMESTAMPTZ), "
                "error = 'interrupted: the process ended before the sync finished' "
                "WHERE status = 'running'",
                [now],
            )
            self._con.execute(
                "INSERT INTO sync_runs (run_id, started_at, status, mode, base_url) "
                "VALUES (?, CAST(? AS TIMESTAMPTZ), 'running', ?, ?)",
                [run_id, now, mode, base_url],
            )
        self._run_started = now
        return run_id

    def record_slice(
        self,
        run_id: str,
        *,
        number: int,
        count: int,
        after: datetime | None,
        before: datetime | None,
    ) -> None:
        """Note which slice of the published history `run_id` re-reads."""
        self._con.execute(
            "UPDATE sync_runs SET slice_number = ?, slice_count = ?, "
            "slice_after = CAST(? AS TIMESTAMPTZ), slice_before = CAST(? AS TIMESTAMPTZ) "
            "WHERE run_id = ?",
            [
                number,
                count,
                _iso(after) if after else None,
                _iso(before) if before else None,
                run_id,
            ],
        )

    def finish_run(
        self,
        run_id: str,
        *,
        status: str,
        counts: Mapping[str, Any],
        error: str | None = None,
        cost: RunCost | None = None,
        unknown_fields: Mapping[str, Mapping[str, str]] | None = None,
        notes: Sequence[str] = (),
    ) -> None:
        """Record how `run_id` ended, in one statement: the run's last transaction."""
        cost = cost or RunCost()
        self._con.execute(
            "UPDATE sync_runs SET status = ?, finished_at = CAST(? AS TIMESTAMPTZ), "
            "counts = ?, requests = ?, rate_limit_waits = ?, error = ?, pages = ?, "
            "responses_429 = ?, retries = ?, wait_seconds = ?, unknown_fields = ?, notes = ?, "
            "start_copy = ?, start_copy_seconds = ? WHERE run_id = ?",
            [
                status,
                _iso(datetime.now(UTC)),
                json.dumps(counts, sort_keys=True),
                cost.requests,
                cost.rate_limit_waits,
                error,
                cost.pages,
                cost.responses_429,
                cost.retries,
                cost.wait_seconds,
                json.dumps(unknown_fields or {}, sort_keys=True),
                json.dumps(list(notes)),
                cost.start_copy,
                cost.start_copy_seconds,
                run_id,
            ],
        )

    # --- checkpoints -----------------------------------------------------------------------

    def checkpoint(self, resource: str) -> Checkpoint | None:
        if self._checkpoints is None:
            rows = self._con.execute(
                "SELECT resource, run_id, cursor, params, epoch_us(high_water_mark), state "
                "FROM sync_checkpoints"
            ).fetchall()
            self._checkpoints = {
                name: Checkpoint(
                    resource=name,
                    run_id=run_id,
                    cursor=cursor,
                    params=json.loads(params) if params is not None else None,
                    high_water_mark=from_epoch_us(hwm_us),
                    state=json.loads(state) if state is not None else None,
                )
                for name, run_id, cursor, params, hwm_us, state in rows
            }
        return self._checkpoints.get(resource)

    def save_checkpoint(self, checkpoint: Checkpoint) -> None:
        with self._transaction():
            self._save_checkpoint(checkpoint)

    def _save_checkpoint(self, checkpoint: Checkpoint) -> None:
        self._checkpoints = None
        hwm = checkpoint.high_water_mark
        values = [
            checkpoint.run_id,
            checkpoint.cursor,
            json.dumps(checkpoint.params) if checkpoint.params is not None else None,
            _iso(hwm) if hwm is not None else None,
            _iso(datetime.now(UTC)),
            json.dumps(checkpoint.state) if checkpoint.state is not None else None,
            checkpoint.resource,
        ]
        # An UPDATE, and an INSERT only for a resource never saved: a third of the time of
        # INSERT OR REPLACE, which every batch of every run pays.
        (updated,) = self._con.execute(
            "UPDATE sync_checkpoints SET run_id = ?, cursor = ?, params = ?, "
            "high_water_mark = CAST(? AS TIMESTAMPTZ), updated_at = CAST(? AS TIMESTAMPTZ), "
            "state = ? WHERE resource = ?",
            values,
        ).fetchall()[0]
        if not updated:
            self._con.execute(
                "INSERT INTO sync_checkpoints "
                "(run_id, cursor, params, high_water_mark, updated_at, state, resource) "
                "VALUES (?, ?, ?, CAST(? AS TIMESTAMPTZ), CAST(? AS TIMESTAMPTZ), ?, ?)",
                values,
            )

    # --- rows ------------------------------------------------------------------------------

    def commit_batch(
        self,
        table: str,
        rows: pa.Table | None,
        *,
        checkpoint: Checkpoint | None = None,
        synced_at: datetime | None = None,
        deletions: DeletionScope | None = None,
    ) -> UpsertCounts:
        """Upsert `rows` (columns named like `table`'s), save `checkpoint`, in one transaction.

        Rows are matched on the table's primary key; within a batch the last row of a key
        wins. `deletions` ends a complete walk: rows in its scope not written since it
        began get `deleted_at` (a row seen again later loses it).
        """
        synced = _iso(synced_at or datetime.now(UTC))
        counts = UpsertCounts()
        staged = rows is not None and rows.num_rows > 0
        if staged:
            assert rows is not None
            info = self._table_info(table)
            unknown = set(rows.column_names) - set(info.columns)
            if unknown:
                raise ValueError(f"{table}: no such column(s) {sorted(unknown)}")
            # Registered outside the transaction: an aborted one refuses to unregister.
            rows = _last_per_key(rows, info.key, self._distinct_keys(rows, info.key))
            self._con.register(_BATCH_VIEW, rows)
        try:
            try:
                counts = self._commit(
                    table, rows if staged else None, synced, deletions, checkpoint
                )
            except duckdb.ConstraintException:
                if table not in self._fresh:
                    raise
                # A key the table already had after all: compare this batch, and the rest.
                self._fresh.discard(table)
                counts = self._commit(
                    table, rows if staged else None, synced, deletions, checkpoint
                )
        finally:
            if staged:
                self._con.unregister(_BATCH_VIEW)
                for temporary in (_MATCHED_TABLE, _STAGE_TABLE):
                    self._con.execute(f"DROP TABLE IF EXISTS {temporary}")
        if counts.new:
            self._fit_memory()
        return counts

    def _fit_memory(self) -> None:
        """Raise DuckDB's memory limit to the run's work and the key indexes of the rows
        written so far (`storage.memory`); never lower it (not worth a setting per batch)."""
        if self._memory_work is None:
            return
        needed = memory_limit(self._con, work=self._memory_work)
        if needed > self._memory_set:
            set_memory_limit(self._con, needed)
            self._memory_set = needed

    def _commit(
        self,
        table: str,
        rows: pa.Table | None,
        synced: str,
        deletions: DeletionScope | None,
        checkpoint: Checkpoint | None,
    ) -> UpsertCounts:
        counts = UpsertCounts()
        with self._transaction():
            if rows is not None:
                counts = self._upsert(table, rows, synced)
            if deletions is not None:
                counts.deleted = self._mark_deleted(table, deletions, synced)
            if checkpoint is not None:
                self._save_checkpoint(checkpoint)
        return counts

    def keep_fields(self, table: str, rows: pa.Table, fields: Sequence[str]) -> KeptFields:
        """Give `table` a nullable column for each of `fields` (columns of `rows` the
        contract does not name) it lacks, typed as the values came. A field whose values
        no longer fit its column's type keeps the column: the values that do not fit are
        left empty, and a note says so. Outside the batch's transaction: an empty
        nullable column changes nothing a reader sees."""
        info = self._table_info(table)
        types: dict[str, str] = {}
        notes: list[str] = []
        for name in fields:
            column = rows.column(name)
            came = _field_type(column.type)
            if not _FIELD_NAME.fullmatch(name) or name in self._unusable_names():
                rows = rows.drop_columns([name])
                notes.append(f"{table}: field {name!r} is not kept (not a usable column name)")
                continue
            if name not in info.columns:
                if came is None:  # only nulls so far: nothing to type a column by
                    rows = rows.drop_columns([name])
                    types[name] = "NULL"
                    continue
                self._con.execute(f"ALTER TABLE {table} ADD COLUMN {name} {came}")
                self._tables.pop(table)
                info = self._table_info(table)
            kept = info.types[name]
            types[name] = kept
            if came is not None and came != kept:
                notes.append(
                    f"{table}.{name} arrived as {came}, kept as {kept}: values that do not "
                    "fit are left empty"
                )
                rows = rows.set_column(rows.column_names.index(name), name, self._fit(column, kept))
        return KeptFields(rows, types, notes)

    def _unusable_names(self) -> frozenset[str]:
        if self._reserved is None:
            words = self._con.execute(
                "SELECT keyword_name FROM duckdb_keywords() WHERE keyword_category = 'reserved'"
            ).fetchall()
            self._reserved = frozenset(w for (w,) in words)
        return self._reserved | frozenset(OWN_COLUMNS)

    def _fit(self, column: pa.ChunkedArray, type_: str) -> pa.ChunkedArray:
        """`column` as `type_`, NULL where a value does not fit (DuckDB's TRY_CAST)."""
        self._con.register(_KEYS_VIEW, pa.table({"v": column}))
        try:
            fitted: pa.ChunkedArray = (
                self._con.sql(f"SELECT TRY_CAST(v AS {type_}) AS v FROM {_KEYS_VIEW}")
                .to_arrow_table()
                .column("v")
            )
        finally:
            self._con.unregister(_KEYS_VIEW)
        return fitted

    def mark_deleted(self, table: str, keys: list[str]) -> int:
        """Mark rows whose id the server now answers 404 for as deleted."""
        if not keys:
            return 0
        where = "deleted_at IS NULL AND id IN (SELECT unnest(?::VARCHAR[]))"
        with self._transaction():
            self._uncount(table, where, [keys])
            row = self._con.execute(
                f"UPDATE {table} SET deleted_at = CAST(? AS TIMESTAMPTZ) WHERE {where}",
                [_iso(datetime.now(UTC)), keys],
            ).fetchall()
        return int(row[0][0])

    def _upsert(self, table: str, rows: pa.Table, synced: str) -> UpsertCounts:
        # DuckDB rewrites whole rows on ON CONFLICT DO UPDATE, which is slow for wide text
        # rows; so only new and changed rows are written (changed ones deleted first), and
        # unchanged rows just get their synced_at refreshed.
        data_columns = [c for c in rows.column_names if c not in _BOOKKEEPING]
        if table in self._fresh:
            # Empty when this writer first met it (a first sync): every row is new, and
            # comparing each batch with all rows so far would cost O(rows²). A repeated
            # key raises ConstraintException, and the batch is compared after all.
            return self._insert(table, data_columns, _BATCH_VIEW, synced, new=rows.num_rows)
        batch = self._match(table, rows, data_columns)
        if batch.new == batch.total:  # all new: the batch itself is the stage, no copy needed
            return self._insert(table, data_columns, _BATCH_VIEW, synced, new=batch.total)
        self._con.execute(
            f"CREATE TEMP TABLE {_STAGE_TABLE} AS SELECT * FROM {_MATCHED_TABLE} "
            "WHERE _ck_new OR _ck_changed"
        )
        if batch.total > batch.new + batch.updated:
            self._touch(table, synced)
        if batch.updated:
            self._replace(table)
        counts = self._insert(
            table, data_columns, _STAGE_TABLE, synced, new=batch.new, updated=batch.updated
        )
        # Rows this run wrote before and reads again unchanged were counted the first time.
        counts.unchanged = (
            batch.total - batch.new - batch.updated - (batch.again - batch.again_changed)
        )
        return counts

    def _match(self, table: str, rows: pa.Table, data_columns: list[str]) -> _Matched:
        """Match the batch with the table's rows of the same keys, once: every batch row
        with the `rowid` of the row it meets (the statements after it in this transaction
        find those rows by it: "The rowid values are stable within a transaction",
        duckdb.org/docs/stable/sql/statements/select#row-ids) and whether it is new, changed,
        or written by this run before."""
        info = self._table_info(table)
        # A daily batch is compared only with the days it covers, not the whole history.
        days = f" AND t.{_date_range(rows)}" if "date" in info.key else ""
        match = " AND ".join(f"b.{k} = t.{k}" for k in info.key)
        this_run = "false"
        if self._run_started is not None:
            this_run = f"t.synced_at >= CAST('{self._run_started}' AS TIMESTAMPTZ)"
        compared = [c for c in data_columns if c not in info.key]
        changed = " OR ".join(f"b.{c} IS DISTINCT FROM t.{c}" for c in compared) or "false"
        if info.has_deleted_at:
            changed = f"{changed} OR t.deleted_at IS NOT NULL"
        # A changed row that holds its reach is rewritten whole and keeps it; a counted one
        # that was deleted comes back, and its daily rows count again (`_ck_revived`).
        carried = "".join(f", t.{c}" for c in _held(info.resource))
        if info.resource.totals == "counted":
            carried += ", t.deleted_at IS NOT NULL AS _ck_revived"
        known = f"t.{_ROWID} IS NOT NULL"
        # The rows met are found by the key columns alone, then read whole by rowid: a
        # batch's rows were mostly written lately (recent posts are rewritten each run, and
        # the writer appends), so they lie together and only their part of the table is
        # read whole, not all of it (docs/warehouse.md, "the writer's lookups").
        self._con.execute(
            f"CREATE TEMP TABLE {_MATCHED_TABLE} AS WITH met AS (SELECT t.rowid AS {_ROWID} "
            f"FROM {table} t SEMI JOIN {_BATCH_VIEW} b ON {match}{days}) "
            f"SELECT b.*, t.{_ROWID}, NOT {known} AS _ck_new, "
            f"coalesce({known} AND ({changed}), false) AS _ck_changed, "
            f"coalesce({this_run}, false) AS _ck_again{carried} FROM {_BATCH_VIEW} b "
            f"LEFT JOIN (SELECT rowid AS {_ROWID}, * FROM {table} "
            f"WHERE rowid IN (SELECT {_ROWID} FROM met)) t ON {match}"
        )
        total, new, updated, again, again_changed = (
            int(v)
            for v in self._con.execute(
                "SELECT count(*), count(*) FILTER (WHERE _ck_new), "
                "count(*) FILTER (WHERE _ck_changed), count(*) FILTER (WHERE _ck_again), "
                f"count(*) FILTER (WHERE _ck_again AND _ck_changed) FROM {_MATCHED_TABLE}"
            ).fetchall()[0]
        )
        return _Matched(total, new, updated, again, again_changed)

    def _touch(self, table: str, synced: str) -> None:
        """Refresh `synced_at` of the batch's rows the table has unchanged."""
        self._con.execute(
            f"UPDATE {table} SET synced_at = CAST(? AS TIMESTAMPTZ) WHERE rowid IN "
            f"(SELECT {_ROWID} FROM {_MATCHED_TABLE} WHERE NOT _ck_new AND NOT _ck_changed)",
            [synced],
        )

    def _replace(self, table: str) -> None:
        """Delete the rows the stage's changed rows replace."""
        replaced = f"rowid IN (SELECT {_ROWID} FROM {_STAGE_TABLE} WHERE _ck_changed)"
        if self._table_info(table).resource.totals == "summed":
            # The daily totals lose the rows replaced (and gain the new ones in _insert).
            shift_totals(self._con, counted(f"SELECT * FROM {table} WHERE {replaced}"), -1)
        self._con.execute(f"DELETE FROM {table} WHERE {replaced}")

    def _insert(
        self,
        table: str,
        data_columns: list[str],
        source: str,
        synced: str,
        *,
        new: int,
        updated: int = 0,
    ) -> UpsertCounts:
        if new or updated:
            resource = self._table_info(table).resource
            staged = source == _STAGE_TABLE
            columns = [*data_columns, *(_held(resource) if staged else ())]
            self._con.execute(
                f"INSERT INTO {table} ({', '.join(columns)}, synced_at) "
                f"SELECT {', '.join(columns)}, CAST(? AS TIMESTAMPTZ) FROM {source}",
                [synced],
            )
            self._after_insert(table, source, new=new, updated=updated)
            if resource.child is not None and resource.child.field in data_columns:
                self._write_child(table, resource.child, source, updated=updated)
        return UpsertCounts(new=new, updated=updated)

    def _after_insert(self, table: str, source: str, *, new: int, updated: int) -> None:
        """The reach and the daily totals follow the rows written, in this transaction, as
        the table's resource declares (`reach`, `totals`).

        Each post's reach follows its daily rows: those of the posts whose rows were
        inserted or changed, and those of new posts (their daily rows may have been synced
        before them). The sums per channel and day follow the daily rows that count: those
        written (less those they replace, in `_replace`), and those of posts that come back.
        """
        info = self._table_info(table)
        resource, post = info.resource, info.key[0]
        staged = source == _STAGE_TABLE
        if resource.reach == "given":
            first = self._con.execute(f"SELECT min(date) FROM {source}").fetchall()[0][0]
            refresh_reach(self._con, f"SELECT {post} FROM {source}", since=first)
        elif resource.reach == "held" and new:
            only_new = " WHERE _ck_new" if staged else ""
            refresh_reach(self._con, f"SELECT {post} FROM {source}{only_new}")
        if resource.totals == "summed":
            shift_totals(self._con, counted(f"SELECT * FROM {source}"), 1)
        elif resource.totals == "counted" and staged:
            shift_posts(self._con, f"SELECT {post} FROM {source} WHERE _ck_revived", 1)

    def _write_child(self, table: str, child: ChildTable, source: str, *, updated: int) -> None:
        """Rewrite the child table's rows of the items written (`post_tags` of posts)."""
        parent = self._table_info(table).key[0]
        if updated:
            self._con.execute(
                f"DELETE FROM {child.table} WHERE {child.parent} IN (SELECT {parent} FROM {source})"
            )
        self._con.execute(
            f"INSERT INTO {child.table} ({child.parent}, {child.value}) "
            f"SELECT DISTINCT {parent}, unnest({child.field}) FROM {source}"
        )

    def _uncount(self, table: str, where: str, args: list[Any]) -> None:
        """Rows about to be marked deleted leave the daily totals, for a table whose live
        rows count in them (storage/totals.py)."""
        if self._table_info(table).resource.totals == "counted":
            key = self._table_info(table).key[0]
            shift_posts(self._con, f"SELECT {key} FROM {table} WHERE {where}", -1, args)

    def _mark_deleted(self, table: str, scope: DeletionScope, now: str) -> int:
        where = "deleted_at IS NULL AND synced_at < CAST(? AS TIMESTAMPTZ)"
        args: list[Any] = [now, _iso(scope.unseen_since)]
        if scope.sliced:
            where += " AND published_at IS NOT NULL"
            if scope.published_from is not None:
                where += " AND published_at >= CAST(? AS TIMESTAMPTZ)"
                args.append(_iso(scope.published_from))
            if scope.published_before is not None:
                where += " AND published_at < CAST(? AS TIMESTAMPTZ)"
                args.append(_iso(scope.published_before))
        self._uncount(table, where, args[1:])
        row = self._con.execute(
            f"UPDATE {table} SET deleted_at = CAST(? AS TIMESTAMPTZ) WHERE {where}", args
        ).fetchall()
        return int(row[0][0])

    def _distinct_keys(self, rows: pa.Table, key: tuple[str, ...]) -> int:
        """How many distinct keys `rows` holds, counted without `Table.group_by`: it loads
        pyarrow's Acero, which imports pandas, half a second on a cron job's every run."""
        if len(key) == 1:
            distinct: int = pc.count_distinct(rows.column(key[0]), mode="all").as_py()
            return distinct
        self._con.register(_KEYS_VIEW, rows.select(list(key)))
        try:
            row = self._con.execute(
                f"SELECT count(DISTINCT ({', '.join(key)})) FROM {_KEYS_VIEW}"
            ).fetchall()
        finally:
            self._con.unregister(_KEYS_VIEW)
        return int(row[0][0])

    def _table_info(self, table: str) -> _TableInfo:
        info = self._tables.get(table)
        if info is None:
            # Key columns in declaration order, which is the PRIMARY KEY's order in schema.py.
            described = self._con.execute(
                "SELECT name, pk, type FROM pragma_table_info(?)", [table]
            ).fetchall()
            if not described:
                raise ValueError(f"the warehouse has no table {table!r}")
            key = tuple(name for name, pk, _ in described if pk)
            if not key:
                raise ValueError(f"table {table!r} has no primary key to upsert on")
            columns = tuple(name for name, _, _ in described)
            info = _TableInfo(
                resource=_resource(table),
                columns=columns,
                key=key,
                has_deleted_at="deleted_at" in columns,
                types={name: type_ for name, _, type_ in described},
            )
            self._tables[table] = info
            if not self._con.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchall():
                self._fresh.add(table)
        return info

    # --- plumbing --------------------------------------------------------------------------

    def _transaction(self) -> _Transaction:
        return _Transaction(self._con)


class _Transaction:
    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con

    def __enter__(self) -> None:
        self._con.execute("BEGIN TRANSACTION")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is None:
            self._con.execute("COMMIT")
        else:
            self._con.execute("ROLLBACK")


def _resource(table: str) -> Resource:
    resource = BY_TABLE.get(table)
    if resource is None:
        raise ValueError(f"{table!r} is not a synced resource (_resources.py)")
    return resource


def _held(resource: Resource) -> tuple[str, ...]:
    """The columns a row holding its reach keeps when it is rewritten."""
    return REACH_COLUMNS if resource.reach == "held" else ()


def _field_type(type_: pa.DataType) -> str | None:
    """The column type of an unknown field arriving as `type_` (None: only nulls)."""
    if pa.types.is_null(type_):
        return None
    return next((name for test, name in _FIELD_TYPES if test(type_)), "VARCHAR")


def new_run_id() -> str:
    """A new `sync_runs.run_id`."""
    return uuid.uuid4().hex


def _last_per_key(rows: pa.Table, key: tuple[str, ...], distinct: int) -> pa.Table:
    """Keep the last row of each key (a server may repeat an item within a batch), given
    the number of `distinct` keys."""
    if distinct == rows.num_rows:
        return rows
    ordered = rows.append_column(_ORDER_COLUMN, pa.array(range(rows.num_rows), pa.int64()))
    last = ordered.group_by(list(key)).aggregate([(_ORDER_COLUMN, "max")])
    indices = last.column(f"{_ORDER_COLUMN}_max")
    return rows.take(pc.take(indices, pc.sort_indices(indices)))


def _date_range(rows: pa.Table) -> str:
    """`date BETWEEN first AND last` of a batch of daily rows, as SQL."""
    bounds = pc.min_max(rows.column("date"))
    first, last = bounds["min"].as_py(), bounds["max"].as_py()
    return f"date BETWEEN DATE '{first.isoformat()}' AND DATE '{last.isoformat()}'"


def _iso(value: datetime) -> str:
    if value.tzinfo is None:
        raise ValueError("naive datetime: the warehouse stores UTC instants only")
    return value.astimezone(UTC).isoformat()


def from_epoch_us(value: int | None) -> datetime | None:
    """A TIMESTAMPTZ read as `epoch_us(...)` (no pytz needed), None stays None."""
    if value is None:
        return None
    return _EPOCH + timedelta(microseconds=value)
