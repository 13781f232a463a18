"""Sizes and query times of the warehouse and its lake at 100k and 1M posts (docs/scale.md).

    .venv/bin/python bench/lake_scale.py [--posts 100000 1000000] [--days-per-post 15]

Builds each warehouse directly with SQL (the shapes the sync writes: one post every ten
minutes over the years, two tags each, `--days-per-post` daily rows per post, daily rows
for 10 channels), because serving hundreds of millions of daily rows over HTTP would
measure the page server, not storage; the sync's own speed is in sync_full.py and
sync_rss.py. Then writes the lake (write_lake: the first copy), and times one query,
"monthly posts and readers per channel", on the DuckDB file, on the lake through DuckDB
(`Warehouse.from_lake`) and on the lake through Polars, side by side.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from channelkit.storage.connection import open_warehouse
from channelkit.storage.derived import refresh_derived
from channelkit.storage.lake import open_lake, write_lake

BODY = ("Team update: the rollout continues as planned. " * 6).strip()
QUERY = """
WITH live AS (SELECT id, channel_id, published_at FROM posts WHERE deleted_at IS NULL),
p AS (SELECT channel_id, strftime(published_at, '%Y-%m') AS month, count(*) AS posts
      FROM live GROUP BY ALL),
r AS (SELECT d.channel_id, strftime(d.date, '%Y-%m') AS month,
      sum(d.unique_viewers) AS readers
      FROM post_daily d SEMI JOIN live ON live.id = d.post_id GROUP BY ALL)
SELECT * FROM p FULL JOIN r USING (channel_id, month)
"""


def build(path: Path, posts: int, days: int) -> None:
    con = open_warehouse(path, read_only=False)
    con.execute("SET TimeZone = 'UTC'")
    at = "TIMESTAMPTZ '2020-01-01 00:00:00+00' + to_seconds(i * 600)"
    con.execute(
        "INSERT INTO posts (id, channel_id, title, body, priority, tags, author_id, "
        "author_name, author_email, status, published_at, scheduled_at, cover_image_url, "
        "views, created_at, updated_at, deleted_at, synced_at) "
        f"SELECT 'post_' || lpad(i::VARCHAR, 9, '0'), 'chan_' || (i % 10), "
        f"'Post number ' || i, '{BODY} #' || i, ['normal', 'high', 'urgent'][i % 3 + 1], "
        "['tag' || (i % 7), 'team' || (i % 3)], 'user_' || (i % 50), 'User ' || (i % 50), "
        f"'user' || (i % 50) || '@example.com', 'published', {at}, NULL, NULL, i % 997, "
        f"{at}, {at}, NULL, now() FROM range({posts}) r(i)"
    )
    con.execute("INSERT INTO post_tags (post_id, tag) SELECT DISTINCT id, unnest(tags) FROM posts")
    con.execute(
        "INSERT INTO post_daily (post_id, channel_id, date, views, unique_viewers, reactions, "
        "comments, shares, clicks, synced_at) "
        "SELECT p.id, p.channel_id, "
        "CAST(p.published_at AS DATE) + CAST(k AS INTEGER), "
        "40 + k, 30 + k, 3, 1, 0, 2, now() FROM posts p, range(?) d(k)",
        [days],
    )
    con.execute(
        "INSERT INTO channel_daily (channel_id, date, subscribers, subscribers_gained, "
        "subscribers_lost, posts_published, views, synced_at) "
        "SELECT 'chan_' || c, "
        "DATE '2020-01-01' + CAST(k AS INTEGER), 1000, 5, 2, "
        "144, 4000, now() FROM range(10) a(c), "
        "range(CAST(? AS BIGINT) * 600 // 86400 + ?) b(k)",
        [posts, days],
    )
    refresh_derived(con)  # what the writer keeps beside the daily rows
    con.close()


def size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def timed(run: object) -> float:
    assert callable(run)
    best = float("inf")
    for _ in range(2):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--days-per-post", type=int, default=15)
    parser.add_argument(
        "--small",
        action="store_true",
        help="a run of a few seconds (the test suite runs every bench so)",
    )
    args = parser.parse_args()
    if args.small:
        args.posts, args.days_per_post = [2_000], 3
    import polars as pl

    for posts in args.posts:
        with tempfile.TemporaryDirectory() as tmp:
            db, lake = Path(tmp) / "wh.duckdb", Path(tmp) / "lake"
            build(db, posts, args.days_per_post)
            con = open_warehouse(db, read_only=False)
            rows = {
                t: int(con.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0])
                for t in ("posts", "post_tags", "post_daily", "channel_daily")
            }
            started = time.perf_counter()
            write_lake(con, lake)
            lake_write = time.perf_counter() - started
            on_file = timed(lambda con=con: con.execute(QUERY).fetchall())
            con.close()
            reader = open_lake(lake)
            on_lake = timed(lambda reader=reader: reader.execute(QUERY).fetchall())
            reader.close()

            def polars_query(lake: Path = lake) -> None:
                live = pl.scan_delta(str(lake / "posts")).filter(pl.col("deleted_at").is_null())
                daily = pl.scan_delta(str(lake / "post_daily"))
                p = live.group_by(
                    "channel_id", month=pl.col("published_at").dt.strftime("%Y-%m")
                ).agg(posts=pl.len())
                r = (
                    daily.join(live.select("id"), left_on="post_id", right_on="id", how="semi")
                    .group_by("channel_id", "month")
                    .agg(readers=pl.col("unique_viewers").sum())
                )
                p.join(r, on=["channel_id", "month"], how="full").collect()

            on_polars = timed(polars_query)
            print(
                f"{posts:>10,} posts: rows {rows}; DuckDB file {size(db) / 1e6:,.0f} MB, "
                f"lake {size(lake) / 1e6:,.0f} MB (first write {lake_write:.1f} s)"
            )
            print(
                f"{'':>17}monthly posts+readers per channel: file {on_file:.2f} s, "
                f"lake via DuckDB {on_lake:.2f} s ({on_lake / on_file:.1f}x), "
                f"lake via Polars {on_polars:.2f} s ({on_polars / on_file:.1f}x)"
            )


if __name__ == "__main__":
    main()
