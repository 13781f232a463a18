"""A Delta Lake copy of the warehouse, for Spark, Trino, DuckDB or Polars (`--lake`).

Every table of the warehouse becomes a Delta table under the lake's root (`ROOT/posts`,
`ROOT/post_daily`, ...), written with `deltalake` (delta-rs: no JVM). After each sync the
rows it touched are upserted into each Delta table by primary key (MERGE): one commit
per table and run, so a reader sees a table as of the end of one run or the next, never
in between. The daily tables carry a `month` column (`2026-11`) they are partitioned by.

What to merge is known without reading the lake: each Delta table records, as the
version of its `channelkit` application transaction, the instant (epoch microseconds)
up to which the warehouse's rows are in it. Rows synced (or marked deleted) since then
are merged. A commit that never happened (killed, disk full, network down) leaves that
instant where it was, so the next run merges those rows again: nothing is lost and a
half-written commit is never visible (its data files are orphans until `vacuum`).

Object storage: `s3://bucket/prefix` (and `gs://`, `az://`...) with the credentials and
settings delta-rs reads from the standard environment variables (`AWS_ACCESS_KEY_ID`,
`AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT_URL` for S3-compatible stores...);
nothing here reads, stores or prints them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from channelkit._constants import LAKE_BATCH_ROWS, LAKE_TARGET_FILE_BYTES
from channelkit._resources import RESOURCES, ChildTable, Resource
from channelkit._urls import redact_url as redact
from channelkit.errors import LakeError, WarehouseError
from channelkit.storage.connection import connect
from channelkit.storage.schema import copied_columns

if TYPE_CHECKING:
    import pyarrow as pa
    from deltalake import DeltaTable

APP_ID = "channelkit"  # the Delta application transaction holding the merged-up-to instant


@dataclass(frozen=True)
class LakeTable:
    """How one warehouse table is kept in the lake."""

    name: str
    key: tuple[str, ...]
    changed: str  # SQL: the rows synced since `?` (a TIMESTAMPTZ), lake-shaped
    partition_by: tuple[str, ...] = ()
    # A list field's table (`Resource.child`): it has no timestamps, so the rows of the
    # items of `changed` (their ids, since `?`) replace theirs.
    child: ChildTable | None = None


def _changed(resource: Resource) -> str:
    """SQL: a declared resource's rows synced (or marked deleted) since `?`."""
    return "synced_at >= ?" + (" OR deleted_at >= ?" if resource.deletable else "")


def _synced(resource: Resource) -> LakeTable:
    """A declared resource's table: the rows synced (or marked deleted) since `?`."""
    name = resource.table
    changed = _changed(resource)
    if resource.by_month:
        return LakeTable(
            name,
            resource.key,
            f"SELECT {copied_columns(name)}, strftime(date, '%Y-%m') AS month FROM {name} "
            f"WHERE {changed}",
            partition_by=("month",),
        )
    return LakeTable(
        name, resource.key, f"SELECT {copied_columns(name)} FROM {name} WHERE {changed}"
    )


def _child(resource: Resource, child: ChildTable) -> LakeTable:
    """A declared list field's table, merged by the items of `resource` changed since `?`."""
    changed = f"SELECT {resource.key[0]} FROM {resource.table} WHERE {_changed(resource)}"
    return LakeTable(child.table, (child.parent, child.value), changed, child=child)


# The list fields' tables last: their MERGE reads which items changed from the items' table.
LAKE_TABLES = (
    *(_synced(resource) for resource in RESOURCES),
    LakeTable(
        "sync_runs",
        ("run_id",),
        "SELECT * REPLACE (CAST(counts AS VARCHAR) AS counts) FROM sync_runs "
        "WHERE started_at >= ? OR finished_at >= ?",
    ),
    *(_child(r, r.child) for r in RESOURCES if r.child is not None),
)


def _deltalake() -> Any:
    try:
        import deltalake
    except ImportError:
        raise LakeError(
            "the Delta Lake copy needs the 'deltalake' package: pip install 'channelkit[lake]'"
        ) from None
    return deltalake


def require_lake_package() -> None:
    """Raise the `LakeError` naming the `lake` extra when `deltalake` is missing: checked
    before a sync with a lake starts, not after it has synced."""
    _deltalake()


def table_uri(root: str | Path, table: str) -> str:
    text = str(root)
    if "://" in text:
        return f"{text.rstrip('/')}/{table}"
    return str(Path(text) / table)


def _is_local(root: str | Path) -> bool:
    return "://" not in str(root) or str(root).startswith("file://")


def write_lake(con: duckdb.DuckDBPyConnection, root: str | Path) -> dict[str, int]:
    """Merge what changed since each Delta table's last commit; return rows per table.

    con = open_warehouse("warehouse.duckdb", read_only=False)
    write_lake(con, "lake/")              # or "s3://bucket/channelkit"
    ck.Warehouse.from_lake("lake/").kpis()
    """
    deltalake = _deltalake()
    if _is_local(root):
        try:
            Path(str(root).removeprefix("file://")).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LakeError(f"{root}: cannot create the lake directory: {exc}") from None
    merged: dict[str, int] = {}
    # The snapshot's instant: rows written before it are in this export.
    upto = datetime.now(UTC)
    con.execute("SET TimeZone = 'UTC'")  # Delta stores UTC instants: hand them over as such
    for table in LAKE_TABLES:
        uri = table_uri(root, table.name)
        try:
            merged[table.name] = _write_table(deltalake, con, table, uri, upto)
        except (OSError, duckdb.Error, deltalake.exceptions.DeltaError) as exc:
            raise LakeError(
                f"writing the lake table {redact(uri)} failed ({type(exc).__name__}: "
                f"{redact(str(exc)).splitlines()[0]}); the lake keeps its previous version "
                "of it and the next sync merges these rows again"
            ) from None
    return merged


def _write_table(
    deltalake: Any, con: duckdb.DuckDBPyConnection, table: LakeTable, uri: str, upto: datetime
) -> int:
    existing = _open_table(deltalake, uri)
    since = _merged_upto(existing)
    commit = deltalake.CommitProperties(
        app_transactions=[deltalake.Transaction(app_id=APP_ID, version=_us(upto))]
    )
    if table.child is not None:
        return _merge_child(deltalake, con, table, table.child, existing, uri, since, commit)
    params = [since] * table.changed.count("?")
    count = int(con.execute(f"SELECT count(*) FROM ({table.changed})", params).fetchall()[0][0])
    if count == 0 and existing is not None:
        return 0
    rows = con.sql(table.changed, params=params).to_arrow_reader(LAKE_BATCH_ROWS)
    if existing is None:
        _create(deltalake, uri, rows, list(table.partition_by) or None, commit)
        return count
    match = " AND ".join(f"t.{k} = s.{k}" for k in (*table.key, *table.partition_by))
    (
        existing.merge(
            rows,
            match,
            source_alias="s",
            target_alias="t",
            merge_schema=True,
            writer_properties=_writer_properties(deltalake),
            commit_properties=commit,
        )
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .execute()
    )
    return count


def _merge_child(
    deltalake: Any,
    con: duckdb.DuckDBPyConnection,
    table: LakeTable,
    child: ChildTable,
    existing: DeltaTable | None,
    uri: str,
    since: str,
    commit: Any,
) -> int:
    """A list field's table has no timestamps: the rows of the items that changed
    replace theirs (the lake's rows those items no longer have are deleted)."""
    name, parent, value = child.table, child.parent, child.value
    if existing is None:
        everything = con.sql(f"SELECT * FROM {name}").to_arrow_reader(LAKE_BATCH_ROWS)
        _create(deltalake, uri, everything, None, commit)
        return int(con.execute(f"SELECT count(*) FROM {name}").fetchall()[0][0])
    con.register("_ck_lake_child", existing.to_pyarrow_dataset())
    try:
        source = (
            f"SELECT {parent}, {value}, false AS _ck_drop FROM {name} "
            f"WHERE {parent} IN ({table.changed}) "
            f"UNION ALL SELECT l.{parent}, l.{value}, true FROM _ck_lake_child l "
            f"WHERE l.{parent} IN ({table.changed}) AND NOT EXISTS (SELECT 1 FROM {name} c "
            f"WHERE c.{parent} = l.{parent} AND c.{value} = l.{value})"
        )
        params = [since] * source.count("?")
        count = int(con.execute(f"SELECT count(*) FROM ({source})", params).fetchall()[0][0])
        if count == 0:
            return 0
        # Materialised: the source reads the Delta table the MERGE rewrites.
        rows: pa.Table = con.sql(source, params=params).to_arrow_table()
    finally:
        con.unregister("_ck_lake_child")
    match = f"t.{parent} = s.{parent} AND t.{value} = s.{value}"
    (
        existing.merge(rows, match, "s", "t", commit_properties=commit)
        .when_matched_delete("s._ck_drop")
        .when_not_matched_insert({parent: f"s.{parent}", value: f"s.{value}"}, "NOT s._ck_drop")
        .execute()
    )
    return count


def _create(
    deltalake: Any,
    uri: str,
    rows: pa.RecordBatchReader,
    partition_by: list[str] | None,
    commit: Any,
) -> None:
    deltalake.write_deltalake(
        uri,
        rows,
        mode="overwrite",
        partition_by=partition_by,
        target_file_size=LAKE_TARGET_FILE_BYTES,
        writer_properties=_writer_properties(deltalake),
        commit_properties=commit,
    )


def _writer_properties(deltalake: Any) -> Any:
    # Given properties replace delta-rs's defaults: compression must be asked for again.
    return deltalake.WriterProperties(max_row_group_size=LAKE_BATCH_ROWS, compression="SNAPPY")


def _open_table(deltalake: Any, uri: str) -> DeltaTable | None:
    if not deltalake.DeltaTable.is_deltatable(uri):
        return None
    table: DeltaTable = deltalake.DeltaTable(uri)
    return table


def _as_dataset(table: DeltaTable) -> Any:
    """`table` as one Arrow dataset whose text columns are `string_view`. The first write
    stores text as `string`, a MERGE's files as `string_view`; with the table's `string`
    schema a filter DuckDB pushes into the dataset (`status = 'completed'`) fails on the
    merged files, while `string_view` reads both kinds."""
    import pyarrow as pa

    schema = table.to_pyarrow_dataset().schema
    viewed = pa.schema(
        [
            field.with_type(pa.string_view()) if field.type == pa.string() else field
            for field in schema
        ]
    )
    return table.to_pyarrow_dataset(schema=viewed)


def _merged_upto(table: DeltaTable | None) -> str:
    """The instant up to which the warehouse's rows are in `table` (ISO; epoch if none)."""
    version = table.transaction_version(APP_ID) if table is not None else None
    upto = datetime.fromtimestamp((version or 0) / 1_000_000, UTC)
    return upto.isoformat()


def _us(value: datetime) -> int:
    return int(value.timestamp() * 1_000_000)


# --- reading ------------------------------------------------------------------------------


def open_lake(root: str | Path) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection whose tables are views over the lake's Delta tables.

        con = open_lake("lake/")
        con.sql("SELECT count(*) FROM posts").fetchall()

    Each table is read at its latest version when the connection is opened.
    """
    deltalake = _deltalake()
    con = connect(":memory:", read_only=False)
    try:
        con.execute("SET TimeZone = 'UTC'")
        for table in LAKE_TABLES:
            uri = table_uri(root, table.name)
            try:
                delta = _open_table(deltalake, uri)
            except (OSError, deltalake.exceptions.DeltaError) as exc:
                raise LakeError(f"{redact(uri)}: cannot read the lake table: {exc}") from None
            if delta is None:
                raise WarehouseError(
                    f"{redact(uri)} is not a Delta table; run `channelkit sync --lake "
                    f"{redact(str(root))}` first"
                )
            con.register(f"_ck_lake_{table.name}", _as_dataset(delta))
            drop = f" EXCLUDE ({', '.join(table.partition_by)})" if table.partition_by else ""
            con.execute(f"CREATE VIEW {table.name} AS SELECT *{drop} FROM _ck_lake_{table.name}")
    except BaseException:
        con.close()
        raise
    return con
