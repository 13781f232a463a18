"""The Warehouse object: opening, locking, bad arguments, SQL escape hatch, freshness."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from channelkit._resources import RESOURCES
from channelkit.errors import InvalidParameterError, NotSyncedError, WarehouseError
from channelkit.storage.connection import open_warehouse
from channelkit.warehouse import Warehouse
from fixtures.warehouse import BASE_URL, LAST_SYNC_FINISHED, build_small_warehouse


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Warehouse:
    """One warehouse for the tests that only read it."""
    return Warehouse(build_small_warehouse(tmp_path_factory.mktemp("wh") / "small.duckdb"))


def test_missing_and_foreign_files_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(WarehouseError, match="no such warehouse"):
        Warehouse(tmp_path / "nope.duckdb")
    foreign = tmp_path / "foreign.duckdb"
    con = duckdb.connect(str(foreign))
    con.execute("CREATE TABLE t (x INT)")
    con.close()
    with pytest.raises(WarehouseError, match="another tool"):
        Warehouse(foreign)


def test_a_warehouse_object_does_not_hold_the_file(small_warehouse: Path) -> None:
    wh = Warehouse(small_warehouse)
    wh.kpis(start="2026-03-23", end="2026-03-30")
    wh.posts()
    # A sync (the single writer) can open the file while `wh` is still alive.
    writer = open_warehouse(small_warehouse, read_only=False)
    writer.execute("UPDATE posts SET title = 'Renamed' WHERE id = 'post_01'")
    writer.close()
    assert wh.posts(channel="chan_eng")["title"].iloc[0] == "Renamed"


def test_file_locked_by_a_sync_gives_warehouse_error(small_warehouse: Path) -> None:
    wh = Warehouse(small_warehouse)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time\n"
            f"con = duckdb.connect({str(small_warehouse)!r})\n"
            "print('ready', flush=True)\n"
            "sys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        with pytest.raises(WarehouseError, match="locked"):
            wh.kpis()
    finally:
        holder.communicate(timeout=30)
    assert wh.posts().shape[0] == 12  # usable again once the writer is gone


@pytest.mark.parametrize(
    ("call", "param", "detail"),
    [
        (lambda wh: wh.kpis(channel="marketing"), "channel", "'marketing'"),
        (lambda wh: wh.kpis(channel=["chan_eng", "gone"]), "channel", "'gone'"),
        (lambda wh: wh.kpis(channel=[]), "channel", "empty"),
        (lambda wh: wh.engagement_over_time(tag="nope"), "tag", "'nope'"),
        (lambda wh: wh.top_posts(author="carol@example.com"), "author", "carol"),
        (lambda wh: wh.priority_impact(priority="critical"), "priority", "normal, high, urgent"),
        (lambda wh: wh.posts(status="deleted"), "status", "'deleted'"),
        (lambda wh: wh.engagement_over_time("hour"), "freq", "day, week, month"),
        (lambda wh: wh.top_posts(by="likes"), "by", "'likes'"),
        (lambda wh: wh.top_posts(n=0), "n", "0"),
        (lambda wh: wh.top_posts(min_opens=-1), "min_opens", "-1"),
        (lambda wh: wh.tag_performance(small_sample_n=0), "small_sample_n", "0"),
        (lambda wh: wh.channels(tz="Berlin"), "tz", "'Berlin'"),
        (lambda wh: wh.kpis(start="2026-03-30", end="2026-03-23"), "end", "not after"),
        (lambda wh: wh.upcoming_scheduled(as_of="soon"), "as_of", "'soon'"),
        (lambda wh: wh.sql("SELECT * FROM nowhere"), "query", "nowhere"),
        (lambda wh: wh.sql("DELETE FROM posts"), "query", "read-only"),
    ],
)
def test_bad_arguments_name_the_parameter(
    shared: Warehouse, call: object, param: str, detail: str
) -> None:
    wh = shared
    with pytest.raises(InvalidParameterError) as info:
        call(wh)  # type: ignore[operator]
    assert info.value.param == param
    assert detail in str(info.value)
    assert isinstance(info.value, ValueError)


def test_ambiguous_channel_name_asks_for_id(small_warehouse: Path) -> None:
    con = open_warehouse(small_warehouse, read_only=False)
    con.execute(
        "INSERT INTO channels (id, name, slug, visibility, synced_at) "
        "VALUES ('chan_news2', 'Company News', 'company-news-2', 'team', now())"
    )
    con.close()
    wh = Warehouse(small_warehouse)
    with pytest.raises(InvalidParameterError, match="chan_news, slug company-news.*chan_news2"):
        wh.kpis(channel="company news")
    assert wh.kpis(channel="Company-News").attrs["filters"] == {"channel": ["Company News"]}


def test_sql_escape_hatch(shared: Warehouse) -> None:
    wh = shared
    df = wh.sql(
        "SELECT channel_id, count(*) AS n, max(published_at) AS last FROM posts "
        "WHERE deleted_at IS NULL AND channel_id = ? GROUP BY 1",
        ["chan_news"],
        tz="Europe/Berlin",
    )
    assert df["n"].tolist() == [4]  # post_03, post_04, post_06, post_12 (post_10 deleted)
    assert df["last"].iloc[0] == pd.Timestamp("2026-03-30 00:30", tz="Europe/Berlin")
    total = wh.sql("SELECT sum(views) AS total FROM post_daily WHERE post_id = 'post_01'")
    assert total["total"].dtype == "Int64" and total["total"].tolist() == [210]  # not Decimal
    runs = wh.sql("SELECT status FROM sync_runs ORDER BY started_at")
    assert runs["status"].tolist() == ["completed", "failed"]  # not post statuses: kept as text
    named = wh.sql("SELECT $x + 1 AS y", {"x": 41})
    assert named["y"].tolist() == [42]
    with wh.duckdb as con:
        assert con.execute("SELECT count(*) FROM channels").fetchall() == [(4,)]
        with pytest.raises(duckdb.Error, match="read-only"):
            con.execute("DELETE FROM channels")


def test_freshness(shared: Warehouse) -> None:
    f = shared.freshness()
    assert f.last_sync_at == LAST_SYNC_FINISHED  # the later run failed
    assert f.last_sync_mode == "full"
    assert f.base_url == BASE_URL
    # Every declared resource is counted; the hand-built file fills these, the rest are empty.
    built = {"channels": 3, "posts": 12, "post_daily": 56, "channel_daily": 42}
    assert f.row_counts == {r.table: built.get(r.table, 0) for r in RESOURCES}
    assert f.last_published_at == datetime(2026, 4, 2, 6, tzinfo=UTC)
    assert (f.last_post_day, f.last_channel_day) == (date(2026, 4, 5), date(2026, 4, 5))
    assert f.age(LAST_SYNC_FINISHED + timedelta(hours=3)) == timedelta(hours=3)


def test_a_warehouse_never_synced_says_to_run_sync(tmp_path: Path) -> None:
    open_warehouse(tmp_path / "empty.duckdb", read_only=False).close()
    with pytest.raises(NotSyncedError, match="run `channelkit sync`"):
        Warehouse(tmp_path / "empty.duckdb")


def test_export_parquet_and_sync_report(small_warehouse: Path, tmp_path: Path) -> None:
    marker = object()
    wh = Warehouse(small_warehouse, sync_report=marker)  # type: ignore[arg-type]
    assert wh.sync_report is marker
    written = wh.export_parquet(tmp_path / "parquet")
    assert set(written) >= {"posts", "post_daily", "channels"}
    assert len(pd.read_parquet(written["posts"])) == 13
    assert repr(wh).startswith(f"Warehouse({str(small_warehouse)!r}): ")


def test_session_reuses_one_connection_until_the_block_ends(small_warehouse: Path) -> None:
    wh = Warehouse(small_warehouse)
    with wh.session() as same:
        assert same is wh
        first = wh.kpis(start="2026-03-23", end="2026-03-30")
        with wh.session():  # nested blocks share the outer connection
            wh.posts()
        # The file is held: a writer in this process is refused with a clear error.
        with pytest.raises(WarehouseError, match="open read-only in this process"):
            open_warehouse(small_warehouse, read_only=False)
    open_warehouse(small_warehouse, read_only=False).close()  # released
    assert wh.kpis(start="2026-03-23", end="2026-03-30").equals(first)


def test_works_beside_the_users_own_read_only_connection(small_warehouse: Path) -> None:
    own = duckdb.connect(str(small_warehouse), read_only=True)
    try:
        wh = Warehouse(small_warehouse)
        ids = sorted(wh.posts()["id"])
        assert len(ids) == 12
        mine = own.execute("SELECT id FROM posts WHERE deleted_at IS NULL ORDER BY id").fetchall()
        assert [row[0] for row in mine] == ids
        # The user's connection keeps its own settings (DuckDB shares them per file).
        setting = "SELECT current_setting('autoload_known_extensions')"
        assert own.execute(setting).fetchone() == (True,)
    finally:
        own.close()


def test_beside_the_users_writable_connection_says_what_to_do(small_warehouse: Path) -> None:
    own = duckdb.connect(str(small_warehouse))
    try:
        with pytest.raises(WarehouseError) as caught:
            Warehouse(small_warehouse)
    finally:
        own.close()
    message = str(caught.value)
    assert "writable" in message and "con.close()" in message
    assert f"duckdb.connect({str(small_warehouse)!r}, read_only=True)" in message
    assert "\n" not in message
