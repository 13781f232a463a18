"""DuckDB's memory limit for a writing connection: the work's share and the key indexes'.

A table's primary key is an ART index. DuckDB's docs say such an index "must currently be
able to fit in memory during index creation" (duckdb.org/docs/stable/sql/indexes); measured
here, a writing connection holds it in memory as rows arrive (DuckDB's duckdb_memory():
44 MB for 1M random post ids), and each checkpoint writes it whole (duckdb/duckdb#24848). A
checkpoint that cannot get the memory ends the database for the process ("could not
allocate block of size 256.0 KiB"): under the fixed 128 MB a sync once had, a full sync of
1M posts with random ids died at its ~480,000th post.

    set_memory_limit(con, memory_limit(con, work=128 * 2**20))
"""

from __future__ import annotations

import contextlib
import os

import duckdb

from channelkit._constants import SYNC_KEY_INDEX_BYTES, SYNC_MOST_MEMORY_SHARE


def memory_limit(con: duckdb.DuckDBPyConnection, *, work: int) -> int:
    """`work` bytes, and room for the key indexes of the rows the open file now holds; at
    most DuckDB's own default, 80% of the machine's memory (duckdb.org/docs/stable/
    operations_manual/limits): beyond it the operating system would end the process
    without a word, where DuckDB says what it could not allocate."""
    keyed = con.execute(
        "SELECT coalesce(sum(estimated_size), 0) FROM duckdb_tables() "
        "WHERE has_primary_key AND database_name = current_database()"
    ).fetchall()[0][0]
    return min(work + SYNC_KEY_INDEX_BYTES * int(keyed), _most())


def _most() -> int:
    with contextlib.suppress(AttributeError, ValueError, OSError):  # no sysconf (Windows)
        machine = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        return int(machine * SYNC_MOST_MEMORY_SHARE)
    return 2**62


def set_memory_limit(con: duckdb.DuckDBPyConnection, limit: int) -> None:
    con.execute(f"SET memory_limit = '{limit}B'")
