"""The sync's DuckDB memory limit grows with the key indexes (storage/memory.py)."""

from __future__ import annotations

import random
import uuid
from pathlib import Path

from channelkit._constants import SYNC_KEY_INDEX_BYTES
from channelkit.storage.connection import open_warehouse
from channelkit.storage.writer import WarehouseWriter
from fixtures.rows import post, posts

WORK = 32 * 2**20


def test_a_warehouse_whose_key_indexes_outgrow_the_work_limit_keeps_syncing(
    tmp_path: Path,
) -> None:
    """Random ids, as the service gives them: under a fixed 32 MB the 20th batch of 5,000
    posts failed to commit ("failed to pin block of size 256.0 KiB (31.9 MiB/32.0 MiB
    used)"), as a fixed 128 MB ended a 1M-post sync at its ~480,000th post. The limit now
    follows the rows held: the work's share plus SYNC_KEY_INDEX_BYTES per keyed row."""
    rng = random.Random(7)
    con = open_warehouse(
        tmp_path / "wh.duckdb", read_only=False, settings={"threads": 1, "memory_limit": f"{WORK}B"}
    )
    try:
        writer = WarehouseWriter(con, memory_work=WORK)
        for _ in range(25):
            ids = (f"post_{uuid.UUID(int=rng.getrandbits(128)).hex[:16]}" for _ in range(5000))
            writer.commit_batch("posts", posts(*(post(i) for i in ids)))
        con.execute("CHECKPOINT")  # what the closing does: every index written whole
        keyed = sum(
            con.execute(f"SELECT count(*) FROM {table}").fetchall()[0][0]
            for table in ("posts", "post_tags", "channels", "sync_checkpoints", "schema_meta")
        )
        (limit,) = con.execute("SELECT current_setting('memory_limit')").fetchall()[0]
    finally:
        con.close()
    assert keyed >= 125_000 * 3  # each post and its two tags
    expected = WORK + SYNC_KEY_INDEX_BYTES * keyed
    # DuckDB shows the limit rounded, in MiB
    assert limit == f"{expected / 2**20:.1f} MiB"
