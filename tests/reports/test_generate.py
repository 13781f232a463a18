"""generate_report on the hand-built warehouse: the numbers of tests/fixtures/warehouse.py."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from datetime import datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from channelkit.reports import ReportError, ReportParameterError, generate_report
from channelkit.warehouse.connection import WarehouseError, open_warehouse
from fixtures.warehouse import LAST_SYNC_FINISHED, XSS_TAG, XSS_TITLE, build_small_warehouse


class _Page(HTMLParser):
    """Script element texts and the text of every element with an id, as a browser sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.text = ""
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self._in_script = True
            self.scripts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.scripts[-1] += data
        else:
            self.text += data


def parse(html: str) -> _Page:
    page = _Page()
    page.feed(html)
    return page


def tile(html: str, metric: str) -> dict[str, str]:
    match = re.search(
        rf'id="kpi-{metric}">\s*<div class="label">[^<]*</div>\s*'
        r'<div class="value">([^<]*)</div>\s*<div class="change (\w+)">([^<]*)</div>\s*'
        r'<div class="previous">previous period: ([^<]*)</div>',
        html,
    )
    assert match, f"no KPI tile {metric}"
    value, direction, change, previous = match.groups()
    return {"value": value, "direction": direction, "change": change, "previous": previous}


def section(html: str, section_id: str) -> str:
    match = re.search(rf'<section class="card" id="{section_id}">(.*?)</section>', html, re.S)
    assert match, f"no section {section_id}"
    return match.group(1)


def table_rows(fragment: str) -> list[list[str]]:
    rows = re.findall(r"<tr>(.*?)</tr>", fragment, re.S)
    return [
        [re.sub(r"<details>.*?</details>", "", c, flags=re.S).strip() for c in cells]
        for cells in (re.findall(r"<td[^>]*>(.*?)</td>", row, re.S) for row in rows)
        if cells
    ]


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One shared copy of the small warehouse for the tests that only read it."""
    return build_small_warehouse(tmp_path_factory.mktemp("reports") / "small.duckdb")


@pytest.fixture(scope="module")
def berlin_report(warehouse: Path) -> str:
    out = generate_report(warehouse, warehouse.parent / "berlin.html", tz="Europe/Berlin")
    return out.read_text(encoding="utf-8")


def test_default_period_is_the_week_before_the_last_sync(berlin_report: str) -> None:
    # last sync 2026-04-06 07:01 Berlin -> 03-30..04-05 against 03-23..03-29 (W14 vs W13)
    assert "2026-03-30 to 2026-04-05 (7 days, Europe/Berlin)" in berlin_report
    assert "2026-03-23 to 2026-03-29 (7 days, Europe/Berlin)" in berlin_report
    assert tile(berlin_report, "views") == {
        "value": "400",
        "direction": "down",
        "change": "\u221260 (\u221213.0%)",
        "previous": "460",
    }
    assert tile(berlin_report, "engagements")["value"] == "44"
    assert tile(berlin_report, "engagements")["previous"] == "83"
    assert tile(berlin_report, "engagement_rate")["value"] == "11.0%"  # 44 / 400
    assert tile(berlin_report, "engagement_rate")["change"] == "\u22127.0 pp (\u221239.0%)"
    # post_04, post_05, post_09 published on Berlin days 03-30, 04-01, 04-02; before: 02, 07
    assert tile(berlin_report, "posts_published")["value"] == "3"
    assert tile(berlin_report, "posts_published")["previous"] == "2"
    # net subscribers -7 in both weeks: no percentage of a negative number
    assert tile(berlin_report, "net_subscribers") == {
        "value": "-7",
        "direction": "flat",
        "change": "+0 (\u2014)",
        "previous": "-7",
    }


def test_timezone_moves_posts_across_midnight(warehouse: Path, tmp_path: Path) -> None:
    html = generate_report(warehouse, tmp_path / "utc.html").read_text(encoding="utf-8")
    assert "2026-03-30 to 2026-04-05 (7 days, UTC)" in html
    # in UTC post_04 (03-29 22:30) falls in the previous week: 05 and 09 remain
    assert tile(html, "posts_published")["value"] == "2"
    assert tile(html, "views")["value"] == "400"  # daily rows are UTC days in every tz


def test_sections_hold_the_hand_computed_rows(berlin_report: str) -> None:
    top = table_rows(section(berlin_report, "top-posts"))
    # W14 views: post_04 50 x 6 days, post_01 10 x 7, post_05 5 x 6
    assert [row[1] for row in top] == ["Quarterly numbers", "Release 1.0", "Sprint notes"]
    assert [row[4] for row in top] == ["300", "70", "30"]
    assert top[0][3] == "2026-03-30 00:30"  # published_at shown in Berlin time
    channels = {row[0]: row for row in table_rows(section(berlin_report, "channels"))}
    assert channels["Company News"][3] == "300"
    assert channels["Company News"][7] == "0.30"  # 300 views / 1000 subscribers now
    assert channels["Engineering"][7] == "0.50"  # 100 / 200
    upcoming = table_rows(section(berlin_report, "upcoming"))
    # post_11 is due 04-10 07:00 UTC; post_13's time passed before the sync
    assert upcoming == [["2026-04-10 09:00", "Scheduled launch", "Engineering", "high", "release"]]
    assert "today&#39;s subscriber counts" in berlin_report
    assert "<strong>post_04</strong>" in berlin_report  # body Markdown, sanitised


def test_user_content_stays_text(warehouse: Path, tmp_path: Path) -> None:
    # three weeks, so that post_02 (XSS title and tag) is in the tables and figures
    out = generate_report(warehouse, tmp_path / "r.html", since="2026-03-16", until="2026-04-05")
    html = out.read_text(encoding="utf-8")
    assert XSS_TITLE not in html and XSS_TAG not in html
    page = parse(html)
    assert XSS_TITLE in page.text  # shown to the reader as text
    figures = html.count('class="plotly-graph-div"')
    assert figures >= 6
    assert len(page.scripts) == 1 + figures  # plotly.js once, one per figure, no injected one
    assert not any(s.lstrip().startswith("alert(") for s in page.scripts)


def test_channel_filter(warehouse: Path, tmp_path: Path) -> None:
    out = generate_report(warehouse, tmp_path / "r.html", channels=["engineering"])
    html = out.read_text(encoding="utf-8")
    assert tile(html, "views")["value"] == "100"  # post_01 70 + post_05 30
    assert "<dt>Channels</dt><dd>engineering</dd>" in html
    with pytest.raises(ReportParameterError, match="--channel: no channel .*'marketing'"):
        generate_report(warehouse, tmp_path / "x.html", channels=["marketing"])
    assert not (tmp_path / "x.html").exists()


def test_csv_files_hold_the_same_numbers(warehouse: Path, tmp_path: Path) -> None:
    generate_report(warehouse, tmp_path / "r.html", tz="Europe/Berlin", csv_dir=tmp_path / "csv")
    with (tmp_path / "csv" / "kpis.csv").open(encoding="utf-8") as handle:
        kpis = {row["metric"]: row for row in csv.DictReader(handle)}
    assert float(kpis["views"]["value"]) == 400
    assert float(kpis["views"]["previous"]) == 460
    with (tmp_path / "csv" / "top_posts_by_views.csv").open(encoding="utf-8") as handle:
        first = next(csv.DictReader(handle))
    assert (first["post_id"], first["views"], first["tags"]) == (
        "post_04",
        "300",
        "company; finance",
    )
    assert first["published_at"] == "2026-03-30T00:30:00+02:00"
    assert len(list((tmp_path / "csv").glob("*.csv"))) == 9


def test_stale_data_writes_nothing(warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    out.write_text("last week's report", encoding="utf-8")
    with pytest.raises(ReportError, match=r"stale.*2h00m ago.*--max-age 1h00m"):
        generate_report(warehouse, out, max_age="1h", now=LAST_SYNC_FINISHED + timedelta(hours=2))
    assert out.read_text(encoding="utf-8") == "last week's report"
    generate_report(warehouse, out, max_age="26h", now=LAST_SYNC_FINISHED)
    assert out.read_text(encoding="utf-8").startswith("<!doctype html>")


def _delete(path: Path, *tables: str) -> None:
    con = open_warehouse(path, read_only=False)
    try:
        for table in tables:
            con.execute(f"DELETE FROM {table}")
    finally:
        con.close()


def test_no_completed_sync(small_warehouse: Path, tmp_path: Path) -> None:
    _delete(small_warehouse, "sync_runs")
    with pytest.raises(ReportError, match="no completed sync"):
        generate_report(small_warehouse, tmp_path / "r.html", max_age="26h")
    # without --max-age the period ends after the last day with data (04-05)
    html = generate_report(small_warehouse, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "2026-03-30 to 2026-04-05 (7 days, UTC)" in html


def test_missing_data(small_warehouse: Path, tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="analytics up to 2026-04-05.*runs to 2026-04-10"):
        generate_report(small_warehouse, tmp_path / "r.html", until="2026-04-10")
    _delete(small_warehouse, "post_daily", "channel_daily")
    with pytest.raises(ReportError, match="no analytics rows"):
        generate_report(small_warehouse, tmp_path / "r.html")
    _delete(small_warehouse, "post_tags", "posts")
    with pytest.raises(ReportError, match="no posts"):
        generate_report(small_warehouse, tmp_path / "r.html")
    with pytest.raises(WarehouseError, match="no such warehouse"):
        generate_report(tmp_path / "nowhere.duckdb", tmp_path / "r.html")
    assert not (tmp_path / "r.html").exists()


def test_a_period_without_data_renders_empty_sections(warehouse: Path, tmp_path: Path) -> None:
    out = generate_report(warehouse, tmp_path / "r.html", since="2026-02-01", until="2026-02-07")
    html = out.read_text(encoding="utf-8")
    assert tile(html, "views") == {
        "value": "0",
        "direction": "flat",
        "change": "+0 (\u2014)",
        "previous": "0",
    }
    assert "No views and no posts in this period." in section(html, "trend")
    assert "No post reached the threshold." in section(html, "top-posts")
    for section_id in ("tags", "priority", "heatmap"):
        assert "No posts published in this period." in section(html, section_id)
    assert 'id="ck-trend"' not in html


def test_same_bytes_across_processes(warehouse: Path, tmp_path: Path) -> None:
    """Other interpreters with other hash seeds (set and dict order) write the same file."""
    outs = [tmp_path / f"r{seed}.html" for seed in (1, 2)]
    runs = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "channelkit",
                "report",
                "--db",
                str(warehouse),
                "--out",
                str(out),
            ],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for seed, out in enumerate(outs, start=1)
    ]
    assert [run.wait(timeout=120) for run in runs] == [0, 0]
    assert outs[0].read_bytes() == outs[1].read_bytes()


def test_long_tag_tables_are_cut_and_point_to_the_csv(
    warehouse: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("channelkit.reports.sections.REPORT_GROUP_ROWS_LIMIT", 2)
    out = generate_report(warehouse, tmp_path / "r.html", since="2026-03-16", until="2026-04-05")
    tags = section(out.read_text(encoding="utf-8"), "tags")
    # 3 weeks: eng (5 posts), company (2), then one post each for four more tags
    assert [row[0] for row in table_rows(tags)] == ["eng", "company"]
    assert "4 more rows are in the CSV export (--csv)." in tags


def test_analytics_ending_before_the_sync_day_move_the_period_and_say_so(
    small_warehouse: Path, tmp_path: Path
) -> None:
    con = open_warehouse(small_warehouse, read_only=False)
    try:
        for table in ("post_daily", "channel_daily"):
            con.execute(f"DELETE FROM {table} WHERE date > DATE '2026-04-02'")
    finally:
        con.close()
    html = generate_report(small_warehouse, tmp_path / "r.html").read_text(encoding="utf-8")
    assert "2026-03-27 to 2026-04-02 (7 days, UTC)" in html
    assert "The newest analytics are for 2026-04-02, but the last sync ran on 2026-04-06" in html


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"since": datetime(2026, 4, 1, 12, 0)}, "whole days"),
        ({"until": 20260401}, "expected a date"),
        ({"channels": ["engineering", ""]}, "not a channel id"),
        ({"max_age": timedelta(0)}, "more than zero"),
        ({"tz": "Berlin"}, "IANA"),
        ({"period": "a week"}, "period 'a week'"),
    ],
)
def test_bad_python_arguments(
    warehouse: Path, tmp_path: Path, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(ReportParameterError, match=message):
        generate_report(warehouse, tmp_path / "r.html", **options)
    assert not (tmp_path / "r.html").exists()


def test_one_channel_as_a_plain_string(warehouse: Path, tmp_path: Path) -> None:
    out = generate_report(warehouse, tmp_path / "r.html", channels="engineering")
    assert tile(out.read_text(encoding="utf-8"), "views")["value"] == "100"
