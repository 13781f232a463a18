"""The warehouse's tables, as versioned migrations.

The schema is the contract between the sync layer (which writes) and the analysis layer
(which reads); `docs/warehouse.md` describes every column. A migration is never edited after
it ships: a change to the schema is a new entry at the end of `MIGRATIONS`.

The posts and channels tables also hold every field of the contract (`_spec.POST_FIELDS`,
`_spec.CHANNEL_FIELDS`): a field the contract adds becomes a column without a migration
written by hand, as `contract_steps` adds the columns a file lacks when the sync opens it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection

from channelkit import _spec
from channelkit._resources import BY_TABLE, RESOURCES

SCHEMA_APP = "channelkit"

MIGRATIONS: tuple[str, ...] = (
    # 1: initial schema
    """
    CREATE TABLE schema_meta (
        key VARCHAR PRIMARY KEY,
        value VARCHAR NOT NULL
    );
    CREATE TABLE channels (
        id VARCHAR PRIMARY KEY,
        name VARCHAR NOT NULL,
        slug VARCHAR NOT NULL,
        description VARCHAR,
        visibility VARCHAR NOT NULL CHECK (visibility IN ('organization', 'team', 'private')),
        subscriber_count BIGINT,
        post_count BIGINT,
        is_default BOOLEAN,
        is_archived BOOLEAN,
        created_at TIMESTAMPTZ,
        updated_at TIMESTAMPTZ,
        deleted_at TIMESTAMPTZ,
        synced_at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE posts (
        id VARCHAR PRIMARY KEY,
        channel_id VARCHAR NOT NULL,
        title VARCHAR NOT NULL,
        body VARCHAR,
        priority VARCHAR NOT NULL CHECK (priority IN ('normal', 'high', 'urgent')),
        tags VARCHAR[],
        author_id VARCHAR,
        author_name VARCHAR,
        author_email VARCHAR,
        status VARCHAR NOT NULL
            CHECK (status IN ('draft', 'scheduled', 'published', 'archived')),
        published_at TIMESTAMPTZ,
        scheduled_at TIMESTAMPTZ,
        cover_image_url VARCHAR,
        views BIGINT,
        created_at TIMESTAMPTZ,
        updated_at TIMESTAMPTZ,
        deleted_at TIMESTAMPTZ,
        synced_at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE post_tags (
        post_id VARCHAR NOT NULL,
        tag VARCHAR NOT NULL,
        PRIMARY KEY (post_id, tag)
    );
    CREATE TABLE post_daily (
        post_id VARCHAR NOT NULL,
        channel_id VARCHAR NOT NULL,
        date DATE NOT NULL,
        views BIGINT NOT NULL,
        unique_viewers BIGINT NOT NULL,
        reactions BIGINT NOT NULL,
        comments BIGINT NOT NULL,
        shares BIGINT NOT NULL,
        clicks BIGINT NOT NULL,
        synced_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (post_id, date)
    );
    CREATE TABLE channel_daily (
        channel_id VARCHAR NOT NULL,
        date DATE NOT NULL,
        subscribers BIGINT NOT NULL,
        subscribers_gained BIGINT NOT NULL,
        subscribers_lost BIGINT NOT NULL,
        posts_published BIGINT NOT NULL,
        views BIGINT NOT NULL,
        synced_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (channel_id, date)
    );
    CREATE TABLE sync_runs (
        run_id VARCHAR PRIMARY KEY,
        started_at TIMESTAMPTZ NOT NULL,
        finished_at TIMESTAMPTZ,
        status VARCHAR NOT NULL CHECK (status IN ('running', 'completed', 'failed')),
        mode VARCHAR NOT NULL CHECK (mode IN ('full', 'incremental')),
        base_url VARCHAR NOT NULL,
        counts JSON,
        requests BIGINT,
        rate_limit_waits BIGINT,
        error VARCHAR
    );
    CREATE TABLE sync_checkpoints (
        resource VARCHAR PRIMARY KEY,
        run_id VARCHAR NOT NULL,
        cursor VARCHAR,
        params JSON,
        high_water_mark TIMESTAMPTZ,
        updated_at TIMESTAMPTZ NOT NULL
    );
    """,
    # 2: convergent incremental runs. Which slice of the published history each run
    # re-read (`[slice_after, slice_before)`, NULL = open; number 1..count of its cycle),
    # and a state per resource that outlives its walks (where the sweep stands).
    """
    ALTER TABLE sync_runs ADD COLUMN slice_number INTEGER;
    ALTER TABLE sync_runs ADD COLUMN slice_count INTEGER;
    ALTER TABLE sync_runs ADD COLUMN slice_after TIMESTAMPTZ;
    ALTER TABLE sync_runs ADD COLUMN slice_before TIMESTAMPTZ;
    ALTER TABLE sync_checkpoints ADD COLUMN state JSON;
    """,
    # 3: `channelkit deliver`'s ledger: each (report, period, target) that was sent, so a
    # cron job that runs again sends nothing twice. `target` names a recipient list or a
    # webhook by kind and a hash of its URL: no secret is stored.
    """
    CREATE TABLE delivery_ledger (
        report VARCHAR NOT NULL,
        period VARCHAR NOT NULL,
        target VARCHAR NOT NULL,
        sent_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (report, period, target)
    );
    """,
    # 4: each post's reach at every age, derived from its daily rows by the writer
    # (storage/reach.py): a comparison at the same age reads it instead of the rows.
    """
    ALTER TABLE posts ADD COLUMN reach_from DATE;
    ALTER TABLE posts ADD COLUMN reach_cumulative VARCHAR;
    ALTER TABLE posts ADD COLUMN reach_digits TINYINT;
    """,
    # 5: the daily rows summed per channel and day, kept by the writer (storage/totals.py):
    # metrics without a post-level filter read them instead of the rows.
    """
    CREATE TABLE daily_totals (
        channel_id VARCHAR NOT NULL,
        date DATE NOT NULL,
        row_count BIGINT NOT NULL,
        views BIGINT NOT NULL,
        unique_viewers BIGINT NOT NULL,
        reactions BIGINT NOT NULL,
        comments BIGINT NOT NULL,
        shares BIGINT NOT NULL,
        clicks BIGINT NOT NULL
    );
    """,
    # 6: the record of every run (`wh.runs()`, `channelkit status`): its pages, 429s,
    # retries and seconds waited, the fields items carried that the contract does not name
    # ({table: {field: type}}) and what the run noticed about them (a type that changed).
    # IF NOT EXISTS: a file set back a version by hand (tests of older files) keeps them.
    """
    ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS pages BIGINT;
    ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS responses_429 BIGINT;
    ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS retries BIGINT;
    ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS wait_seconds DOUBLE;
    ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS unknown_fields JSON;
    ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS notes JSON;
    """,
    # 7: how each run's working copy came to be (storage/working_copy.py): "clone" (copy-on-
    # write), "copy", "continued" (a killed run's) or "new", and the copy's seconds.
    """
    ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS start_copy VARCHAR;
    ALTER TABLE sync_runs ADD COLUMN IF NOT EXISTS start_copy_seconds DOUBLE;
    """,
)

# The versions that added the posts' reach columns and the daily totals: a file migrated
# past one gets them filled from its daily rows.
REACH_VERSION = 4
TOTALS_VERSION = 5
# The oldest version a read-only connection opens as it is: what came since is only derived
# for speed (the daily totals), and the read side sums the daily rows until a sync adds it.
READABLE_FROM = 4
# Columns the writer derives from post_daily (storage/reach.py). They stay in the file: the
# Parquet and lake copies leave them out, and the read side sums daily rows there instead.
REACH_COLUMNS = ("reach_from", "reach_cumulative", "reach_digits")


# Columns the warehouse keeps beside the contract's fields (and the lake's partition column):
# a field the contract does not name never takes one of these names.
OWN_COLUMNS = ("synced_at", "deleted_at", *REACH_COLUMNS, "month")


def unknown_columns(table: str, described: Collection[str]) -> list[str]:
    """The columns among `described` (a posts or channels table's, in order) that fields
    the contract does not name have added (`WarehouseWriter.keep_fields`)."""
    known = {column for column, _ in CONTRACT_COLUMNS[table]} | set(OWN_COLUMNS)
    return [column for column in described if column not in known]


def copied_columns(table: str) -> str:
    """The select list of `table`'s rows in the Parquet and lake copies: `*` less the
    derived columns."""
    resource = BY_TABLE.get(table)
    held = resource is not None and resource.reach == "held"
    return f"* EXCLUDE ({', '.join(REACH_COLUMNS)})" if held else "*"


SCHEMA_VERSION = len(MIGRATIONS)

# DuckDB types of the contract's field kinds (the author object is three text columns).
_KIND_TYPES: dict[_spec.FieldKind, str] = {
    "id": "VARCHAR",
    "text": "VARCHAR",
    "slug": "VARCHAR",
    "enum": "VARCHAR",
    "url": "VARCHAR",
    "instant": "TIMESTAMP WITH TIME ZONE",  # as DESCRIBE names TIMESTAMPTZ
    "tags": "VARCHAR[]",
    "count": "BIGINT",
    "flag": "BOOLEAN",
}


def _columns(fields: tuple[_spec.Field, ...]) -> tuple[tuple[str, str], ...]:
    columns: list[tuple[str, str]] = []
    for field in fields:
        if field.kind == "author":
            columns += [(f"{field.name}_{part}", "VARCHAR") for part in _spec.AUTHOR_FIELDS]
        else:
            columns.append((field.name, _KIND_TYPES[field.kind]))
    return tuple(columns)


# Table -> the (column, type) of each contract field, in the contract's order: the synced
# resources whose items have fields (_resources.py); posts before channels, the order
# CONTRACT_MARK of the files stamped so far was hashed in.
CONTRACT_COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    resource.table: _columns(resource.fields)
    for resource in sorted(RESOURCES, key=lambda r: -len(r.fields or ()))
    if resource.fields is not None
}
# Stored in schema_meta once a file has every contract column, so that opening it needs
# no look at the catalog while the contract stays the same.
CONTRACT_MARK = hashlib.sha256(repr(CONTRACT_COLUMNS).encode()).hexdigest()[:16]


def missing_columns(existing: Collection[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(table, column, type) of the contract columns not among `existing` (table, column)."""
    return [
        (table, column, type_)
        for table, columns in CONTRACT_COLUMNS.items()
        for column, type_ in columns
        if (table, column) not in existing
    ]


def contract_steps(existing: Collection[tuple[str, str]]) -> list[str]:
    """The statements adding the contract columns a file lacks (nullable: old rows have none)."""
    return [
        f"ALTER TABLE {table} ADD COLUMN {column} {type_}"
        for table, column, type_ in missing_columns(existing)
    ]
