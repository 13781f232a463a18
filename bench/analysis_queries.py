"""Metric query times on a synthetic warehouse of 1M posts and 10M daily rows.

    .venv/bin/python bench/analysis_queries.py [--posts 1000000] [--days 10] [--runs 5]

Builds the warehouse with DuckDB SQL (generate_series, no Python loops), then times each
`Warehouse` metric (median of `--runs`; target <= 200 ms): "cold" opens and closes the
read-only connection per call (the default), "session" reuses one inside
`wh.session()`. For the metrics with a pandas equivalent it also times the same
computation in pure pandas on DataFrames already in memory (loading them is not counted)
and prints cold/pandas; each pandas result is checked against the Warehouse result.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow.compute as pc

from channelkit.storage.connection import open_warehouse
from channelkit.storage.derived import refresh_derived
from channelkit.warehouse import Warehouse

START = "2025-12-01"
END = "2025-12-29"  # 4 weeks
KPI = {"start": "2025-12-22", "end": "2025-12-29"}
TZ = "Europe/Berlin"
TARGET_MS = 200.0


def build(path: Path, posts: int, days: int) -> None:
    con = open_warehouse(path, read_only=False)
    try:
        con.execute(
            "INSERT INTO channels (id, name, slug, description, visibility, subscriber_count, "
            "post_count, is_default, is_archived, created_at, updated_at, deleted_at, "
            "synced_at) "
            "SELECT 'chan_' || i, 'Channel ' || i, 'channel-' || i, NULL, "
            "(['organization', 'team', 'private'])[1 + i % 3], 100 + i * 37, NULL, false, "
            "false, TIMESTAMPTZ '2025-01-01 00:00:00+00', TIMESTAMPTZ '2025-01-01 00:00:00+00', "
            "NULL, now() FROM range(50) t(i)"
        )
        # Posts evenly spread over 2025, whatever their number.
        con.execute(
            "INSERT INTO posts (id, channel_id, title, body, priority, tags, author_id, "
            "author_name, author_email, status, published_at, scheduled_at, cover_image_url, "
            "views, created_at, updated_at, deleted_at, synced_at) "
            "SELECT 'post_' || lpad(i::VARCHAR, 8, '0'), 'chan_' || (i % 50), "
            "'Post ' || i, 'Body', "
            "(['normal', 'normal', 'normal', 'high', 'urgent'])[1 + (hash(i) % 5)::BIGINT], "
            "list_distinct(list_transform(range((hash(i) % 4)::BIGINT), "
            "lambda x: 'tag' || ((hash(i + x) // 7) % 30))), "
            "'user_' || (i % 200), 'User ' || (i % 200), 'user' || (i % 200) || '@example.com', "
            "'published', TIMESTAMPTZ '2025-01-01 00:00:00+00' + to_seconds(i * $gap), NULL, NULL, "
            "(hash(i) % 500)::BIGINT, TIMESTAMPTZ '2025-01-01 00:00:00+00' + to_seconds(i * $gap), "
            "TIMESTAMPTZ '2025-01-01 00:00:00+00' + to_seconds(i * $gap), NULL, now() "
            "FROM range($n) t(i)",
            {"n": posts, "gap": 365 * 86_400 / posts},
        )
        con.execute(
            "INSERT INTO posts (id, channel_id, title, body, priority, tags, author_id, "
            "author_name, author_email, status, published_at, scheduled_at, cover_image_url, "
            "views, created_at, updated_at, deleted_at, synced_at) "
            "SELECT 'sched_' || i, 'chan_' || (i % 50), 'Later ' || i, 'Body', "
            "'normal', [], 'user_1', 'User 1', 'user1@example.com', 'scheduled', NULL, "
            "TIMESTAMPTZ '2026-01-01 00:00:00+00' + to_seconds(i * 3600), NULL, 0, NULL, NULL, "
            "NULL, now() FROM range(1000) t(i)"
        )
        con.execute(
            "INSERT INTO post_tags (post_id, tag) "
            "SELECT DISTINCT id, unnest(tags) FROM posts WHERE len(tags) > 0"
        )
        con.execute(
            "INSERT INTO post_daily (post_id, channel_id, date, views, unique_viewers, "
            "reactions, comments, shares, clicks, synced_at) "
            "SELECT p.id, p.channel_id, "
            "(p.published_at AT TIME ZONE 'UTC')::DATE + d::INTEGER, "
            "(hash(p.id, d) % 200)::BIGINT, (hash(p.id, d) % 150)::BIGINT, "
            "(hash(p.id, d) % 11)::BIGINT, (hash(p.id, d) % 5)::BIGINT, "
            "(hash(p.id, d) % 3)::BIGINT, (hash(p.id, d) % 7)::BIGINT, now() "
            "FROM posts p, range(?) r(d) WHERE p.published_at IS NOT NULL",
            [days],
        )
        con.execute(
            "INSERT INTO channel_daily (channel_id, date, subscribers, subscribers_gained, "
            "subscribers_lost, posts_published, views, synced_at) "
            "SELECT 'chan_' || c, DATE '2025-01-01' + d::INTEGER, "
            "1000, 5, 2, 0, 0, now() FROM range(50) t(c), range(380) r(d)"
        )
        con.execute(
            "INSERT INTO sync_runs (run_id, started_at, finished_at, status, mode, base_url, "
            "counts, requests, rate_limit_waits, error) VALUES ('bench', now(), now(), "
            "'completed', 'full', 'http://bench/v1', NULL, 0, 0, NULL)"
        )
        refresh_derived(con)  # what the writer keeps beside the daily rows
    finally:
        con.close()


def median_ms(fn: Callable[[], Any], runs: int) -> tuple[float, Any]:
    result = fn()  # warm-up (file cache, imports)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times), result


# --- the same metrics in pure pandas ---------------------------------------------------------


def _load(con: Any, query: str, categorical: tuple[str, ...] = ()) -> pd.DataFrame:
    # Repeated ids as pandas categoricals: what a careful pandas user would do to fit 10M
    # rows in memory (plain strings take several GB).
    table = con.sql(query).to_arrow_table()
    for name in categorical:
        i = table.schema.get_field_index(name)
        table = table.set_column(i, name, pc.dictionary_encode(table.column(i)))
    return table.to_pandas()


class Frames:
    def __init__(self, wh: Warehouse) -> None:
        with wh.duckdb as con:
            self.posts = _load(
                con,
                "SELECT id, channel_id, priority, published_at FROM posts WHERE deleted_at IS NULL",
            )
            self.daily = _load(
                con,
                "SELECT * EXCLUDE (synced_at) FROM post_daily",
                categorical=("post_id", "channel_id"),
            )
            self.tags = _load(con, "SELECT * FROM post_tags")
        self.posts["published_at"] = self.posts["published_at"].dt.tz_convert(TZ)
        self.daily["date"] = pd.to_datetime(self.daily["date"])
        self.daily["engagements"] = self.daily[["reactions", "comments", "shares", "clicks"]].sum(
            axis=1
        )

    def period_daily(self, start: str, end: str) -> pd.DataFrame:
        d = self.daily
        return d[(d["date"] >= start) & (d["date"] < end)]

    def published(self, start: str, end: str) -> pd.DataFrame:
        p = self.posts
        lo, hi = pd.Timestamp(start, tz=TZ), pd.Timestamp(end, tz=TZ)
        return p[(p["published_at"] >= lo) & (p["published_at"] < hi)]

    def engagement_daily(self) -> pd.Series:
        d = self.period_daily(START, END)
        return d.groupby("date")["views"].sum()  # opens

    def kpis(self) -> float:
        d = self.period_daily(KPI["start"], KPI["end"])
        return float(d["engagements"].sum() / d["views"].sum())

    def top_posts(self) -> list[str]:
        d = self.period_daily(START, END)
        per_post = d.groupby("post_id", observed=True)["views"].sum().reset_index()
        per_post["post_id"] = per_post["post_id"].astype(str)  # ties sort by id, as text
        top = per_post.sort_values(["views", "post_id"], ascending=[False, True]).head(10)
        return list(top["post_id"])

    def channel_comparison(self) -> pd.Series:
        d = self.period_daily(START, END)
        opens = d.groupby("channel_id", observed=True)["views"].sum()
        opens.index = opens.index.astype(str)
        return opens.sort_index()

    def cohort(self) -> pd.DataFrame:
        pub = self.published(START, END)
        d = self.period_daily(START, END)
        sums = d.groupby("post_id", observed=True)[["views", "engagements"]].sum()
        sums.index = sums.index.astype(str)
        return pub.join(sums, on="id").fillna({"views": 0, "engagements": 0})

    def tag_performance(self) -> pd.Series:
        cohort = self.cohort().merge(self.tags, left_on="id", right_on="post_id")
        return cohort.groupby("tag")["views"].median().sort_index()

    def priority_impact(self) -> pd.Series:
        return self.cohort().groupby("priority")["views"].median().sort_index()

    def publishing_heatmap(self) -> int:
        cohort = self.cohort()
        local = cohort["published_at"]
        grid = cohort.groupby([local.dt.day_of_week, local.dt.hour])["views"].sum()
        return int(grid.max())


def scale(doc: str, *, small: tuple[int, int, int]) -> argparse.Namespace:
    """The options of a bench on this warehouse: `--posts`, `--days` (daily rows per post),
    `--runs`, and `--small`, which sets (posts, days, runs) to `small` for a run of a few
    seconds (the test suite runs every bench so)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--posts", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=10, help="daily rows per post")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--small", action="store_true", help=f"{small[0]:,} posts, a quick run")
    args = parser.parse_args()
    if args.small:
        args.posts, args.days, args.runs = small
    return args


def main() -> None:
    args = scale(__doc__, small=(2_000, 3, 1))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.duckdb"
        t0 = time.perf_counter()
        build(path, args.posts, args.days)
        print(
            f"built {args.posts:,} posts / {args.posts * args.days:,} daily rows in "
            f"{time.perf_counter() - t0:.1f} s ({path.stat().st_size / 1e6:.0f} MB)"
        )
        wh = Warehouse(path)
        period = {"start": START, "end": END, "tz": TZ}
        calls: dict[str, Callable[[], pd.DataFrame]] = {
            "engagement_over_time day": lambda: wh.engagement_over_time("day", **period),
            "engagement_over_time week, all": lambda: wh.engagement_over_time("week", tz=TZ),
            "kpis": lambda: wh.kpis(**KPI, tz=TZ),
            "kpis tag+channel": lambda: wh.kpis(**KPI, tz=TZ, tag="tag3", channel="chan_7"),
            "top_posts opens": lambda: wh.top_posts("opens", **period),
            "top_posts readers": lambda: wh.top_posts(**period),
            "top_posts engagement_rate": lambda: wh.top_posts("engagement_rate", **period),
            "channel_comparison": lambda: wh.channel_comparison(**period),
            "tag_performance": lambda: wh.tag_performance(**period),
            "priority_impact": lambda: wh.priority_impact(**period),
            "reach_curve 14 days": lambda: wh.reach_curve(14, **period),
            "kpis by channel": lambda: wh.kpis(**KPI, tz=TZ, by="channel"),
            "publishing_heatmap": lambda: wh.publishing_heatmap(**period),
            "upcoming_scheduled": lambda: wh.upcoming_scheduled(as_of="2026-01-10", tz=TZ),
            "posts one channel, one week": lambda: wh.posts(**KPI, tz=TZ, channel="chan_3"),
        }
        results: dict[str, tuple[float, pd.DataFrame]] = {}
        warm: dict[str, float] = {}
        for name, call in calls.items():
            results[name] = median_ms(call, args.runs)
        with wh.session():
            for name, call in calls.items():
                warm[name] = median_ms(call, args.runs)[0]
        t0 = time.perf_counter()
        frames = Frames(wh)
        load_s = time.perf_counter() - t0
        checks: dict[str, tuple[Callable[[], Any], Callable[[Any, pd.DataFrame], bool]]] = {
            "engagement_over_time day": (
                frames.engagement_daily,
                lambda pd_, wh_: list(pd_) == list(wh_["opens"]),
            ),
            "kpis": (
                frames.kpis,
                lambda pd_, wh_: (
                    abs(pd_ - wh_.set_index("metric").loc["engagement_rate", "value"]) < 1e-12
                ),
            ),
            "top_posts opens": (frames.top_posts, lambda pd_, wh_: pd_ == list(wh_["post_id"])),
            "channel_comparison": (
                frames.channel_comparison,
                lambda pd_, wh_: list(pd_) == list(wh_.sort_values("channel_id")["opens"]),
            ),
            "tag_performance": (
                frames.tag_performance,
                lambda pd_, wh_: (
                    list(pd_) == list(wh_.sort_values("tag")["median_opens"].astype(float))
                ),
            ),
            "priority_impact": (
                frames.priority_impact,
                lambda pd_, wh_: sorted(pd_) == sorted(wh_["median_opens"].astype(float)),
            ),
            "publishing_heatmap": (
                frames.publishing_heatmap,
                lambda pd_, wh_: pd_ == int(wh_["opens"].max()),
            ),
        }
        print(f"pandas baseline: tables loaded into memory in {load_s:.1f} s (not counted)")
        print(f"{'metric':32} {'cold ms':>8} {'session':>8} {'pandas':>8} {'ratio':>6}  same")
        for name, (ms, frame) in results.items():
            line = f"{name:32} {ms:8.1f} {warm[name]:8.1f}"
            if name in checks:
                compute, same = checks[name]
                pandas_ms, expected = median_ms(compute, max(1, args.runs // 2))
                ok = "yes" if same(expected, frame) else "MISMATCH"
                line += f" {pandas_ms:8.1f} {ms / pandas_ms:6.2f}  {ok}"
            else:
                line += f" {'':>8} {'':>6}"
            flag = "" if ms <= TARGET_MS else f"  (over the {TARGET_MS:.0f} ms target)"
            print(line + flag)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak_mb:.0f} MB (mostly the pandas baseline's tables)")


if __name__ == "__main__":
    main()
