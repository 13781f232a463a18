"""Report generation time and file size, on the demo workspace and on a large warehouse.

    .venv/bin/python bench/report_generation.py [--posts 1000000] [--days 10] [--runs 3]
    .venv/bin/python bench/report_generation.py --small   # the demo workspace only, one run

The demo month's weight before/after issue 22: HTML bytes (this page with plotly's full
plotly.js, as before, against the partial bundle it embeds now, measured in this run),
the email's bytes (text, HTML, chart images and the report attached; before: plotly's
full build attached and the ten CSV files too) and the PDF's pages (before: 16 A4 pages,
measured on the main branch at b8fee2f, whose layout this script cannot rebuild).

Two warehouses: the demo workspace (the local service's `--seed demo`, synced over HTTP)
and a synthetic one of `--posts` posts with `--days` daily rows each, built by
`bench/analysis_queries.py`'s builder. For each it prints the median time of
`generate_report` (after one warm-up run) against a baseline in the same process: the
same Warehouse queries alone, without figures, HTML or writing; the ratio is what
figures and rendering add. It also prints the file size against the naive alternative
of one standalone plotly HTML file per figure (plotly.js embedded in each). On the demo
workspace it also times `--format pdf` and `--format png` (the system's Chromium) against
the HTML report of the same run.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from analysis_queries import build

import channelkit as ck
from channelkit.reports import build_report, generate_report, report_period
from channelkit.reports.browser import find_browser
from channelkit.warehouse import Warehouse

TZ = "Europe/Berlin"
PDF_PAGES_BEFORE = 16  # the demo month on A4, main at b8fee2f (before issue 22)


def median_s(fn: Callable[[], Any], runs: int) -> float:
    fn()  # warm-up: imports, file cache
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def queries_only(path: Path, options: dict[str, Any]) -> None:
    """The data work of a report: every Warehouse call it makes, on one connection."""
    wh = Warehouse(path)
    with wh.session():
        fresh = wh.freshness()
        filters = report_period(wh, tz=TZ, **options).query()
        wh.kpis(**filters)
        wh.engagement_over_time("day", **filters)
        wh.top_posts(by="readers", **filters)
        wh.top_posts(by="read_rate", **filters)
        wh.low_reach(**filters)
        wh.channel_comparison(**filters)
        wh.tag_performance(**filters)
        wh.priority_impact(**filters)
        wh.publishing_heatmap(**filters)
        wh.upcoming_scheduled(as_of=fresh.last_sync_at, tz=TZ)


def naive_size(path: Path, options: dict[str, Any], directory: Path) -> int:
    """Bytes of one standalone HTML file per figure of the report (plotly.js in each)."""
    wh = Warehouse(path)
    filters = report_period(wh, tz=TZ, **options).query()
    figures = {
        "trend": ck.plots.engagement_over_time(wh.engagement_over_time("day", **filters)),
        "top-posts": ck.plots.top_posts(wh.top_posts(by="readers", **filters)),
        "top-posts-rate": ck.plots.top_posts(wh.top_posts(by="read_rate", **filters)),
        "channels": ck.plots.channel_comparison(wh.channel_comparison(**filters)),
        "tags": ck.plots.tag_performance(wh.tag_performance(**filters)),
        "priority": ck.plots.priority_impact(wh.priority_impact(**filters)),
        "heatmap": ck.plots.publishing_heatmap(wh.publishing_heatmap(**filters)),
    }
    total = 0
    for name, figure in figures.items():
        target = directory / f"{name}.html"
        figure.write_html(target, include_plotlyjs=True, full_html=True)
        total += target.stat().st_size
    return total


def measure(label: str, path: Path, options: dict[str, Any], runs: int, work: Path) -> None:
    out = work / f"{label}.html"
    report_s = median_s(lambda: generate_report(path, out, tz=TZ, **options), runs)
    baseline_s = median_s(lambda: queries_only(path, options), runs)
    size = out.stat().st_size
    naive = naive_size(path, options, work)
    print(f"{label}:")
    print(f"  report generation  {report_s * 1000:8.0f} ms (median of {runs})")
    print(f"  queries alone      {baseline_s * 1000:8.0f} ms  -> ratio {report_s / baseline_s:.2f}")
    print(f"  file size          {size / 1e6:8.2f} MB")
    print(f"  one file/figure    {naive / 1e6:8.2f} MB  -> ratio {size / naive:.2f}")


def measure_formats(path: Path, options: dict[str, Any], runs: int, work: Path) -> None:
    """PDF and PNG (Chromium starts, draws every chart, prints) against the HTML report."""
    if find_browser() is None:
        print("  pdf/png: skipped, no Chromium (apt-get install chromium)")
        return
    times = {
        fmt: median_s(
            lambda fmt=fmt: generate_report(
                path, work / f"formats.{fmt}", tz=TZ, format=fmt, **options
            ),
            runs,
        )
        for fmt in ("html", "pdf", "png")
    }
    for fmt in ("pdf", "png"):
        size = (work / f"formats.{fmt}").stat().st_size
        print(
            f"  --format {fmt}       {times[fmt] * 1000:8.0f} ms  -> ratio "
            f"{times[fmt] / times['html']:.2f} of html ({times['html'] * 1000:.0f} ms), "
            f"{size / 1e6:.2f} MB"
        )


def weight(path: Path, work: Path) -> None:
    """The demo month's HTML bytes, email bytes and PDF pages, before and after."""
    from email.message import EmailMessage

    from plotly.offline import get_plotlyjs

    from channelkit._constants import REPORT_EMAIL_CHART_SIZE
    from channelkit.reports.deliver.email_charts import (
        alt_text,
        chart_title,
        email_charts,
        for_email,
    )
    from channelkit.reports.deliver.messages import email_message
    from channelkit.reports.deliver.run import _csv_attachments
    from channelkit.reports.render import plotlyjs

    report = build_report(path, period="month", tz=TZ, on_step=lambda _: None)
    html_after = report.html.encode("utf-8")
    html_before = report.html.replace(str(plotlyjs()), get_plotlyjs()).encode("utf-8")
    print("demo month, before -> after:")
    print(f"  HTML bytes         {len(html_before):>10,} -> {len(html_after):>10,}")

    def email(html: bytes, csv: bool) -> EmailMessage:
        from channelkit.reports.deliver.messages import Attachment, InlineChart

        csv_files = _csv_attachments(report.frames, "bench", report.page.period) if csv else []
        width = REPORT_EMAIL_CHART_SIZE[0]
        inline = [
            InlineChart(chart_title(chart.figure), alt_text(chart.figure), png, width)
            for chart, png in zip(charts, images, strict=False)
        ]
        return email_message(
            report.page,
            sender="bench@example.org",
            recipients=["reader@example.org"],
            subject="bench",
            charts=inline,
            attachments=[Attachment("report.html", html, "text", "html"), *csv_files],
            note="",
        )

    charts = email_charts(report.page.charts)
    images: list[bytes] = []
    if find_browser() is not None:
        from channelkit.reports.images import chart_images

        # drawn as the delivery draws them: for the email's width, with larger type
        images = chart_images([for_email(chart.figure) for chart in charts])
    before, after = (
        len(email(h, c).as_bytes()) for h, c in ((html_before, True), (html_after, False))
    )
    print(f"  email bytes        {before:>10,} -> {after:>10,}  ({len(images)} chart images)")
    if find_browser() is None:
        print("  PDF pages: skipped, no Chromium (apt-get install chromium)")
        return
    from pypdf import PdfReader

    for paper in ("a4", "letter"):
        pdf = generate_report(
            path, work / f"month-{paper}.pdf", period="month", tz=TZ, format="pdf", paper=paper
        )
        pages = len(PdfReader(pdf).pages)
        before_pages = PDF_PAGES_BEFORE if paper == "a4" else "?"
        print(f"  PDF pages ({paper:6}) {before_pages:>10} -> {pages:>10}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=1_000_000)
    parser.add_argument("--days", type=int, default=10)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--small", action="store_true", help="the demo workspace only, one run: a quick check"
    )
    args = parser.parse_args()
    if args.small:
        args.runs = 1
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        demo_db = work / "demo.duckdb"
        started = time.perf_counter()
        with ck.LocalService(seed="demo", rate_window=1.0) as svc:
            with ck.Client(base_url=svc.base_url, api_key=svc.demo_keys["analyst"]) as client:
                wh = ck.sync(client, demo_db, progress=False)
        counts = wh.freshness().row_counts
        print(
            f"demo workspace: {counts['posts']:,} posts, {counts['post_daily']:,} daily rows "
            f"(seed + sync {time.perf_counter() - started:.1f} s)"
        )
        measure("demo, 7 days", demo_db, {"period": "7d"}, args.runs, work)
        measure("demo, month", demo_db, {"period": "month"}, args.runs, work)
        weight(demo_db, work)
        if args.small:
            return
        measure_formats(demo_db, {"period": "7d"}, args.runs, work)

        big_db = work / "big.duckdb"
        started = time.perf_counter()
        build(big_db, args.posts, args.days)
        print(
            f"synthetic: {args.posts:,} posts, {args.posts * args.days:,} daily rows "
            f"(built in {time.perf_counter() - started:.1f} s)"
        )
        weeks = {"since": "2025-12-01", "until": "2025-12-28"}
        measure("synthetic, 4 weeks", big_db, weeks, args.runs, work)


if __name__ == "__main__":
    main()
