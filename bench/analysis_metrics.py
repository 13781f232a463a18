"""The metrics of issue 12 on 1M posts, side by side with a baseline query in the same run.

    .venv/bin/python bench/analysis_metrics.py [--posts 1000000] [--days 10] [--runs 5]

Builds the synthetic warehouse of `analysis_queries.py` (1M posts, 10M daily rows, channel
analytics for every day), then times, cold (a read-only connection per call, the default)
and inside `wh.session()`: the baseline, a bare `wh.sql` sum of the period's daily rows
(the floor of any metric that reads them), and `reach_curve(14)`, `kpis(by="channel")`
and `tag_performance()` with readers, read rate and lift. Medians of `--runs`; target
<= 300 ms each; the last column is each time over the baseline's.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from analysis_queries import END, KPI, START, TZ, build, median_ms

from channelkit.warehouse import Warehouse

TARGET_MS = 300.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=10, help="daily rows per post")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.duckdb"
        t0 = time.perf_counter()
        build(path, args.posts, args.days)
        print(f"built {args.posts:,} posts in {time.perf_counter() - t0:.1f} s")
        wh = Warehouse(path)
        period = {"start": START, "end": END, "tz": TZ}
        calls: dict[str, Callable[[], object]] = {
            "baseline: sum of the period's daily rows": lambda: wh.sql(
                "SELECT sum(views) FROM post_daily WHERE date >= ? AND date < ?", [START, END]
            ),
            "reach_curve(14)": lambda: wh.reach_curve(14, **period),
            'kpis(by="channel")': lambda: wh.kpis(**KPI, tz=TZ, by="channel"),
            "tag_performance (readers, lift)": lambda: wh.tag_performance(**period),
        }
        cold = {name: median_ms(call, args.runs)[0] for name, call in calls.items()}
        with wh.session():
            warm = {name: median_ms(call, args.runs)[0] for name, call in calls.items()}
    base_cold, base_warm = (t["baseline: sum of the period's daily rows"] for t in (cold, warm))
    print(f"{'query':42} {'cold ms':>8} {'session':>8} {'cold/base':>9} {'sess/base':>9}")
    for name in calls:
        flag = "" if cold[name] <= TARGET_MS else f"  (over {TARGET_MS:.0f} ms cold)"
        print(
            f"{name:42} {cold[name]:8.1f} {warm[name]:8.1f} "
            f"{cold[name] / base_cold:9.2f} {warm[name] / base_warm:9.2f}{flag}"
        )


if __name__ == "__main__":
    main()
