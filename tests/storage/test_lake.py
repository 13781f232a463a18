"""The Delta Lake copy: equal to the warehouse after every run, one commit per table and
run, a killed commit invisible and completed by the next run, read back by DuckDB
(`Warehouse.from_lake`) and by another engine (Polars)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from channelkit.client import Client
from channelkit.service import LocalService
from channelkit.storage.connection import open_warehouse
from channelkit.storage.lake import LAKE_TABLES, open_lake
from channelkit.storage.schema import copied_columns
from channelkit.sync import run_sync
from channelkit.warehouse import Warehouse
from fixtures.s3 import S3_LAKE, s3_store

deltalake = pytest.importorskip("deltalake", reason="the lake needs channelkit[lake]")

DAY = 86_400.0


def table_rows(con: Any, table: str, columns: str = "*") -> list[tuple[str, ...]]:
    return [
        tuple(str(v) for v in row)
        for row in con.execute(
            f"SELECT COLUMNS(*)::VARCHAR FROM (SELECT {columns} FROM {table}) ORDER BY ALL"
        ).fetchall()
    ]


def assert_lake_equals_warehouse(db: Path, lake: str | Path) -> None:
    con, copy = open_warehouse(db, read_only=True), open_lake(lake)
    try:
        for table in LAKE_TABLES:
            # The warehouse's derived columns are not copied (storage.schema.copied_columns).
            expected = table_rows(con, table.name, copied_columns(table.name))
            assert table_rows(copy, table.name) == expected, table.name
    finally:
        con.close()
        copy.close()


@pytest.fixture
def service(service_factory: Callable[..., LocalService]) -> tuple[LocalService, str]:
    service = service_factory(rate_window=1.0)
    key = service.create_key(user="admin", team="comms", plan="enterprise")
    with Client(base_url=service.base_url, api_key=key) as client:
        channels = [client.channels.create(name=f"Channel {i}").id for i in range(2)]
        for day in range(30):
            for i in range(2):
                client.posts.create(
                    channel_id=channels[i], title=f"Post {day}/{i}", body="b", tags=[f"t{day % 3}"]
                )
            service.advance_clock(DAY)
    return service, key


@pytest.fixture
def synced(service: tuple[LocalService, str], tmp_path: Path) -> tuple[Path, Path]:
    """The service synced once into a warehouse file and a lake: (db, lake)."""
    svc, key = service
    db, lake = tmp_path / "wh.duckdb", tmp_path / "lake"
    with Client(base_url=svc.base_url, api_key=key) as client:
        assert run_sync(client, db, lake=lake, progress=False).completed
    return db, lake


def test_lake_follows_the_warehouse_run_after_run(
    service: tuple[LocalService, str], tmp_path: Path
) -> None:
    svc, key = service
    db, lake = tmp_path / "wh.duckdb", tmp_path / "lake"
    with Client(base_url=svc.base_url, api_key=key) as client:
        first = run_sync(client, db, lake=lake, progress=False)
        assert first.completed and first.lake_rows, first.summary()
        assert_lake_equals_warehouse(db, lake)
        versions = {t.name: deltalake.DeltaTable(str(lake / t.name)).version() for t in LAKE_TABLES}

        posts = list(client.posts.list(limit=100))
        client.posts.update(posts[0].id, title="Retitled", tags=["new-tag"])  # tags replaced
        client.posts.delete(posts[1].id)
        client.posts.create(channel_id=posts[0].channel_id, title="Fresh", body="b", tags=["x"])
        svc.advance_clock(DAY)
        second = run_sync(client, db, lake=lake, progress=False)
        assert second.completed, second.summary()
        assert "lake:" in second.summary()
    assert_lake_equals_warehouse(db, lake)
    for table in LAKE_TABLES:
        delta = deltalake.DeltaTable(str(lake / table.name))
        # One commit per table and run (none when nothing changed).
        assert delta.version() - versions[table.name] <= 1, table.name
    daily = deltalake.DeltaTable(str(lake / "post_daily"))
    assert daily.metadata().partition_columns == ["month"]
    months = {p["month"] for p in daily.partitions()}
    assert months and all(len(m) == 7 and m[4] == "-" for m in months)


def test_text_filters_read_both_the_first_write_and_a_merge(
    service_factory: Callable[..., LocalService], tmp_path: Path
) -> None:
    """A first write stores text as `string`, a MERGE's files (the demo's hour of changes)
    as `string_view`: a filter on text that DuckDB pushes into the lake's dataset
    (freshness: `status = 'completed'`, `status = 'published'`) reads both kinds."""
    svc = service_factory(seed="demo", rate_window=1.0)
    db, lake = tmp_path / "wh.duckdb", tmp_path / "lake"
    with Client(base_url=svc.base_url, api_key=svc.demo_keys["admin"]) as client:
        assert run_sync(client, db, lake=lake, progress=False).completed
        svc.advance_clock(3600)
        assert run_sync(client, db, lake=lake, progress=False).completed
    assert Warehouse.from_lake(lake).freshness() == Warehouse(db).freshness()


def test_warehouse_from_lake_gives_the_same_metrics(synced: tuple[Path, Path]) -> None:
    db, lake = synced
    on_file, on_lake = Warehouse(db), Warehouse.from_lake(lake)
    assert "from_lake" in repr(on_lake)
    month = on_file.sql("SELECT strftime(max(published_at), '%Y-%m') AS m FROM posts")["m"][0]
    calls: dict[str, dict[str, Any]] = {
        "kpis": {"period": month, "by": "channel"},
        "top_posts": {"period": month},
        "channel_comparison": {"period": month},
        "engagement_over_time": {"period": month},
        "posts": {},
        "channels": {},
        "freshness": {},
    }
    for name, kwargs in calls.items():
        left, right = getattr(on_file, name)(**kwargs), getattr(on_lake, name)(**kwargs)
        if hasattr(left, "equals"):
            assert len(left) and left.equals(right), name
        else:
            assert left == right, name
    with on_lake.session():
        assert on_lake.sql("SELECT count(*) AS n FROM posts")["n"][0] == 60


def test_a_missing_lake_is_named(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="not a Delta table; run `channelkit sync --lake"):
        Warehouse.from_lake(tmp_path / "nowhere")


KILLED_WRITER = """
import sys
from channelkit.storage.connection import open_warehouse
from channelkit.storage.lake import write_lake
con = open_warehouse(sys.argv[1], read_only=False)
write_lake(con, sys.argv[2])
"""


def _new_files(directory: Path, known: set[str]) -> bool:
    return any(
        name not in known
        for _, _, files in os.walk(directory)
        for name in files
        if not name.endswith(".crc")
    )


def test_kill_9_during_a_lake_commit_keeps_the_previous_version(
    service: tuple[LocalService, str], synced: tuple[Path, Path]
) -> None:
    svc, key = service
    db, lake = synced
    before = {t.name: deltalake.DeltaTable(str(lake / t.name)).version() for t in LAKE_TABLES}
    old_rows = deltalake.DeltaTable(str(lake / "posts")).to_pyarrow_table().num_rows
    # Many changed rows, so the commit takes long enough to be caught in the middle.
    con = open_warehouse(db, read_only=False)
    stamp = (datetime.now(UTC) + timedelta(seconds=1)).isoformat()
    con.execute("CREATE TEMP TABLE extra AS SELECT * FROM posts")
    con.execute(
        "INSERT INTO posts BY NAME SELECT e.* REPLACE (e.id || '_' || r.i AS id, "
        "CAST(? AS TIMESTAMPTZ) AS synced_at) FROM extra e, range(2000) r(i)",
        [stamp],
    )
    con.close()
    time.sleep(1.2)

    known = {name for _, _, files in os.walk(lake / "posts") for name in files}
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    child = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(db), str(lake)], env=env)
    deadline = time.monotonic() + 60
    while child.poll() is None and time.monotonic() < deadline:
        if _new_files(lake / "posts", known):  # posts' data files are being written
            os.kill(child.pid, signal.SIGKILL)
            break
        time.sleep(0.001)
    child.wait()
    assert child.returncode == -signal.SIGKILL, "the lake write ended before it could be killed"

    posts = deltalake.DeltaTable(str(lake / "posts"))
    assert posts.version() == before["posts"]  # the killed commit is not there
    assert posts.to_pyarrow_table().num_rows == old_rows
    assert Warehouse.from_lake(lake).sql("SELECT count(*) AS n FROM posts")["n"][0] == old_rows

    with Client(base_url=svc.base_url, api_key=key) as client:
        report = run_sync(client, db, lake=lake, progress=False)  # completes it
    assert report.completed, report.summary()
    assert_lake_equals_warehouse(db, lake)
    assert deltalake.DeltaTable(str(lake / "posts")).to_pyarrow_table().num_rows == 60 * 2001


@pytest.mark.engine
def test_polars_reads_the_lake_like_the_warehouse_kpis(synced: tuple[Path, Path]) -> None:
    pl = pytest.importorskip("polars", reason="the engine test reads the lake with Polars")
    db, lake = synced
    wh = Warehouse(db)
    # Monthly posts and readers per channel, by docs/metrics.md's rules: a post's readers
    # through the last complete synced day L = min(its lifetime readers, its daily unique
    # viewers summed through L); a month still running is cut to date, through L (posts
    # published after L are in no month yet).
    through = wh.kpis(tz="UTC").attrs["readers_through"]
    seen = (
        pl.read_delta(str(lake / "post_daily"))
        .filter(pl.col("date") <= through)
        .group_by("post_id")
        .agg(uv=pl.col("unique_viewers").sum())
    )
    monthly = (
        pl.read_delta(str(lake / "posts"))
        .filter(pl.col("deleted_at").is_null() & pl.col("published_at").is_not_null())
        .filter(pl.col("published_at").dt.date() <= through)
        .join(seen, left_on="id", right_on="post_id", how="left")
        .with_columns(readers=pl.min_horizontal("views", pl.col("uv").fill_null(0)))
        .group_by("channel_id", month=pl.col("published_at").dt.strftime("%Y-%m"))
        .agg(posts=pl.len(), readers=pl.col("readers").sum())
    )
    by_polars = {
        (r["channel_id"], r["month"]): (r["posts"], r["readers"])
        for r in monthly.iter_rows(named=True)
    }
    assert len({month for _, month in by_polars}) >= 2  # the workspace spans two months
    by_kpis = {}
    for month in sorted({month for _, month in by_polars}):
        kpis = wh.kpis(period=month, by="channel", tz="UTC")
        for channel_id, rows in kpis.groupby("channel_id"):
            values = dict(zip(rows["metric"], rows["value"], strict=True))
            if values["posts_published"]:
                by_kpis[(channel_id, month)] = (values["posts_published"], values["readers"])
    assert by_polars == by_kpis
    assert sum(readers for _, readers in by_polars.values()) > 0


@pytest.fixture
def s3(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An S3-compatible store (`tests/fixtures/s3.py`), its credentials in the environment."""
    pytest.importorskip("moto", reason="the S3 test needs moto[server] (test extra)")
    pytest.importorskip("boto3", reason="the S3 test needs boto3 (moto[server])")
    with s3_store() as env:
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        yield S3_LAKE


def test_the_lake_on_s3_compatible_storage(
    service: tuple[LocalService, str], tmp_path: Path, s3: str
) -> None:
    svc, key = service
    db = tmp_path / "wh.duckdb"
    with Client(base_url=svc.base_url, api_key=key) as client:
        report = run_sync(client, db, lake=s3, progress=False)
        assert report.completed, report.summary()
        svc.advance_clock(DAY)
        again = run_sync(client, db, lake=s3, progress=False)
        assert again.completed, again.summary()
    assert "s3cret" not in report.summary() + again.summary()
    assert_lake_equals_warehouse(db, s3)
    on_lake = Warehouse.from_lake(s3)
    assert on_lake.sql("SELECT count(*) AS n FROM posts")["n"][0] == 60


def test_without_deltalake_the_sync_stops_before_syncing_in_one_line(
    service_factory: Callable[..., LocalService],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from click.testing import CliRunner

    from channelkit.cli import main

    svc = service_factory(rate_window=1.0)
    key = svc.create_key(user="admin", team="comms", plan="enterprise")
    monkeypatch.setitem(sys.modules, "deltalake", None)  # `import deltalake` fails
    db = tmp_path / "wh.duckdb"
    result = CliRunner().invoke(
        main,
        ["sync", "--db", str(db), "--lake", str(tmp_path / "lake")],
        env={"CHANNELKIT_BASE_URL": svc.base_url, "CHANNELKIT_API_KEY": key},
    )
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'channelkit[lake]'" in lines[0], result.stderr
    assert not db.exists() and not (tmp_path / "lake").exists()  # nothing synced
