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

from channelkit.errors import ChannelkitError, InvalidParameterError, WarehouseError
from channelkit.reports import ReportError, build_report, generate_report
from channelkit.storage.connection import open_warehouse
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
        rf'id="kpi-{metric}">\s*<p class="label">[^<]*</p>\s*'
        r'<p class="value">([^<]*)</p>\s*'
        r'<p class="change (\w+)">([^<]*?)\s*(?:<span[^>]*>[^<]*</span>\s*)*</p>\s*'
        r'<p class="previous">[^:<]*: ([^<]*)</p>',
        html,
    )
    assert match, f"no KPI tile {metric}"
    value, direction, change, previous = match.groups()
    return {"value": value, "direction": direction, "change": change, "previous": previous}


def section(html: str, section_id: str) -> str:
    match = re.search(rf'<section class="card[^"]*" id="{section_id}">(.*?)</section>', html, re.S)
    assert match, f"no section {section_id}"
    return match.group(1)


def table_rows(fragment: str) -> list[list[str]]:
    """The rows of the section's visible table (not the chart's collapsed data table)."""
    visible = re.sub(r'<details class="chart-data">.*?</details>', "", fragment, flags=re.S)
    rows = re.findall(r"<tr>(.*?)</tr>", visible, re.S)
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
    # last sync 2026-04-06 05:01 UTC: the last complete day is 04-05, so 03-30..04-05
    # against 03-23..03-29 (W14 vs W13)
    assert "7 days to 5 April 2026 (2026-03-30 to 2026-04-05, Europe/Berlin)" in berlin_report
    assert "7 days to 29 March 2026 (2026-03-23 to 2026-03-29, Europe/Berlin)" in berlin_report
    # readers: lifetime views of the posts published in the week (Berlin days):
    # post_04 300 + post_05 20 + post_09 0; before: post_02 100 + post_07 90
    assert tile(berlin_report, "readers") == {
        "value": "320",
        "direction": "up",
        "change": "+130 (+68.4%)",
        "previous": "190",
    }
    # audience: subscribers on each post's UTC publication day: news 1000 (03-29),
    # eng 190 (03-31) and 194 (04-02); before eng 172 (03-22) and 178 (03-25)
    assert tile(berlin_report, "read_rate")["value"] == "23.1%"  # 320 / 1384
    assert tile(berlin_report, "read_rate")["previous"] == "54.3%"  # 190 / 350
    assert tile(berlin_report, "opens")["value"] == "400"
    assert tile(berlin_report, "opens")["previous"] == "460"
    assert tile(berlin_report, "engagement_rate")["value"] == "11.0%"  # 44 / 400
    # post_04, post_05, post_09 published on Berlin days 03-30, 04-01, 04-02; before: 02, 07
    assert tile(berlin_report, "posts_published")["value"] == "3"
    assert tile(berlin_report, "posts_published")["previous"] == "2"
    # net subscribers -7 in both weeks: no percentage of a negative number
    assert tile(berlin_report, "net_subscribers") == {
        "value": "\u22127",  # the minus sign of the changes, never a hyphen
        "direction": "flat",
        "change": "+0 (\u2014)",
        "previous": "\u22127",
    }


def test_summary_comes_first_with_a_number_in_each_sentence(berlin_report: str) -> None:
    summary = re.search(
        r'<section class="card summary" id="summary".*?</section>', berlin_report, re.S
    )
    assert summary is not None
    assert berlin_report.index('id="summary"') < berlin_report.index('id="kpis"')
    sentences = re.findall(r"<li>(.*?)</li>", summary.group(0), re.S)
    assert 3 <= len(sentences) <= 5
    assert all(re.search(r"\d", sentence) for sentence in sentences)
    text = " ".join(sentences)
    assert "Read rate was 23.1%, down 31.2 points from 54.3%" in text
    assert "reached 320 readers, up 68.4% from 190" in text
    assert "3 posts were published" in text and "small base" in text
    assert (
        "Best read (by read rate adjusted for audience size): \u201cQuarterly numbers\u201d at "
        "30.0% (300 readers of 1,000)"
    ) in text
    # "Zero views" (04-02) and "Sprint notes" (03-31) are still collecting readers, and
    # "Quarterly numbers" alone is its channel's median: no post is called weak.
    assert "weakest" not in text
    assert "compared at the same age" in text
    assert "Subscribers fell by 7 net" in text
    title = re.search(r"<h1>(.*?)</h1>", berlin_report)
    assert title is not None
    assert title.group(1) == "Engagement report \u00b7 7 days to 5 April 2026 \u00b7 All channels"


def test_a_calendar_month_compares_with_the_month_before(warehouse: Path, tmp_path: Path) -> None:
    html = generate_report(warehouse, tmp_path / "m.html", period="2026-03").read_text("utf-8")
    assert "<h1>Engagement report \u00b7 March 2026 \u00b7 All channels</h1>" in html
    assert "compared with February 2026 (2026-02-01 to 2026-02-28, UTC)" in html
    # the warehouse starts on 03-16: both months are incomplete, said, and deltas left out
    assert "period not complete" in html
    assert tile(html, "opens")["value"] == "1,337"
    assert tile(html, "opens")["change"].startswith("\u2014")


def test_timezone_moves_posts_across_midnight(warehouse: Path, tmp_path: Path) -> None:
    html = generate_report(warehouse, tmp_path / "utc.html").read_text(encoding="utf-8")
    assert "(2026-03-30 to 2026-04-05, UTC)" in html
    # in UTC post_04 (03-29 22:30) falls in the previous week: 05 and 09 remain
    assert tile(html, "posts_published")["value"] == "2"
    assert tile(html, "opens")["value"] == "400"  # daily rows are UTC days in every tz


def test_sections_hold_the_hand_computed_rows(berlin_report: str) -> None:
    top = table_rows(section(berlin_report, "top-posts"))
    # posts published in W14 (Berlin) by lifetime readers
    assert [row[1] for row in top] == ["Quarterly numbers", "Sprint notes", "Zero views"]
    # readers and read rate right after the title: on a phone they stay on screen
    assert [row[2] for row in top] == ["300", "20", "0"]
    assert top[0][3] == "30.0%"  # 300 readers / 1000 subscribers on 03-29
    assert top[0][6] == "2026-03-30 00:30"  # published_at shown in Berlin time
    channels = {row[1]: row for row in table_rows(section(berlin_report, "channels"))}
    assert channels["Company News"][2] == "300"
    # (20 + 0 readers) / (190 + 194), with its Wilson interval; ranked after News.
    # (the interval in its own span: a phone shows it under the rate)
    assert channels["Engineering"][3] == '5.2% <span class="interval">(3.4%\u20137.9%)</span>'
    assert [channels[name][0] for name in ("Company News", "Engineering")] == ["1", "2"]
    upcoming = table_rows(section(berlin_report, "upcoming"))
    # post_11 is due 04-10 07:00 UTC; post_13's time passed before the sync
    assert upcoming == [["2026-04-10 09:00", "Scheduled launch", "Engineering", "high", "release"]]
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
    # plotly.js once, one per figure, the print script, no injected one
    assert len(page.scripts) == 1 + figures + 1
    assert not any(s.lstrip().startswith("alert(") for s in page.scripts)


def test_channel_filter(warehouse: Path, tmp_path: Path) -> None:
    out = generate_report(warehouse, tmp_path / "r.html", channels=["engineering"])
    html = out.read_text(encoding="utf-8")
    assert tile(html, "opens")["value"] == "100"  # post_01 70 + post_05 30
    assert "<dt>Channels</dt><dd>Engineering</dd>" in html  # the name, not the slug
    assert "\u00b7 Engineering</h1>" in html  # the channel filter is in the title, by name
    with pytest.raises(InvalidParameterError, match="channel: no channel .*'marketing'"):
        generate_report(warehouse, tmp_path / "x.html", channels=["marketing"])
    assert not (tmp_path / "x.html").exists()


def test_csv_files_are_safe_and_linked_from_the_page(warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "site" / "r.html"
    generate_report(warehouse, out, tz="Europe/Berlin", csv_dir=tmp_path / "site" / "csv")
    kpis_csv = (tmp_path / "site" / "csv" / "kpis.csv").read_text(encoding="utf-8")
    rows = list(csv.reader(kpis_csv.splitlines()))
    header = next(i for i, row in enumerate(rows) if row and row[0] == "metric")
    assert header > 0  # the safe writer's header block (period, filters) comes first
    kpis = {row[0]: row for row in rows[header + 1 :]}
    assert float(kpis["opens"][rows[header].index("value")]) == 400
    # a title starting with "<script>" is data; the writer also guards "=", "+", "-", "@"
    assert len(list((tmp_path / "site" / "csv").glob("*.csv"))) == 10
    html = out.read_text(encoding="utf-8")
    assert '<a href="csv/kpis.csv">kpis</a>' in html  # relative: the folder can move


def test_stale_data_writes_nothing(warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.html"
    out.write_text("last week's report", encoding="utf-8")
    with pytest.raises(ReportError, match=r"stale.*2h00m ago.*--max-age 1h00m"):
        generate_report(warehouse, out, max_age="1h", now=LAST_SYNC_FINISHED + timedelta(hours=2))
    assert out.read_text(encoding="utf-8") == "last week's report"
    generate_report(warehouse, out, max_age="26h", now=LAST_SYNC_FINISHED)
    assert "<!doctype html>" in out.read_text(encoding="utf-8")[:200]


def _delete(path: Path, *tables: str) -> None:
    con = open_warehouse(path, read_only=False)
    try:
        for table in tables:
            con.execute(f"DELETE FROM {table}")
    finally:
        con.close()


def test_no_completed_sync(small_warehouse: Path, tmp_path: Path) -> None:
    _delete(small_warehouse, "sync_runs")
    for max_age in ("26h", None):
        with pytest.raises(ChannelkitError, match="no completed sync.*run `channelkit sync"):
            generate_report(small_warehouse, tmp_path / "r.html", max_age=max_age)
    assert not (tmp_path / "r.html").exists()


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


def test_a_day_without_posts_renders_empty_sections(warehouse: Path, tmp_path: Path) -> None:
    out = generate_report(warehouse, tmp_path / "r.html", since="2026-04-03", until="2026-04-03")
    html = out.read_text(encoding="utf-8")
    assert tile(html, "readers")["value"] == "0"
    assert tile(html, "opens")["value"] == "65"  # post_01 10 + post_04 50 + post_05 5
    for section_id in ("top-posts", "top-posts-rate", "tags", "priority", "heatmap"):
        assert "No posts published in this period." in section(html, section_id)
    assert 'id="ck-top-posts"' not in html


def test_a_period_outside_the_data_names_the_days_there_are(
    warehouse: Path, tmp_path: Path
) -> None:
    with pytest.raises(InvalidParameterError, match="covers 2026-03-16 to 2026-04-05"):
        generate_report(warehouse, tmp_path / "r.html", period="2026-01")
    assert not (tmp_path / "r.html").exists()


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
    assert "(2026-03-27 to 2026-04-02, UTC)" in html
    assert "The newest analytics are for 2026-04-02, but the last sync ran on 2026-04-06" in html


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"since": datetime(2026, 4, 1, 12, 0)}, "whole days"),
        ({"until": 20260401}, "expected a date"),
        ({"channels": ["engineering", ""]}, "not a channel id"),
        ({"max_age": timedelta(0)}, "more than zero"),
        ({"tz": "Berlin"}, "IANA"),
        ({"period": "a week"}, "period: 'a week'"),
        ({"compare": "last year"}, "compare: 'last year'"),
        ({"format": "docx"}, "format: 'docx'"),
    ],
)
def test_bad_python_arguments(
    warehouse: Path, tmp_path: Path, options: dict[str, Any], message: str
) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        generate_report(warehouse, tmp_path / "r.html", **options)
    assert not (tmp_path / "r.html").exists()


def test_one_channel_as_a_plain_string(warehouse: Path, tmp_path: Path) -> None:
    out = generate_report(warehouse, tmp_path / "r.html", channels="engineering")
    assert tile(out.read_text(encoding="utf-8"), "opens")["value"] == "100"


def test_one_channel_leaves_out_what_compares_nothing(warehouse: Path) -> None:
    page = build_report(
        warehouse, channels=["engineering"], since="2026-03-16", until="2026-04-05"
    ).page
    sections = page.section_by_id
    # one channel: a one-bar chart compares nothing, the table stays
    assert sections["channels"].charts == () and sections["channels"].table is not None
    # one audience ranks posts by read rate as by readers: a sentence, not a second chart
    assert sections["top-posts-rate"].charts == ()
    assert sections["top-posts-rate"].empty is not None
    assert sections["top-posts-rate"].empty.startswith(
        "The same order as the most read posts above: their channel has one audience."
    )
    labels = [chart.label for chart in page.charts]
    assert labels[1] == (
        "Bar chart of top posts by readers \u00b7 Engineering \u00b7 2026-03-16 to "
        "2026-04-05 (UTC): the first, \u201cRelease 1.0\u201d, had 150 readers."
    )
    for label in labels:  # one sentence with its number, promising no table
        assert label.count(". ") == 0 and label.endswith(".") and "table" not in label
        assert re.search(r"\d", label.split(":", 1)[1]), label
    everyone = build_report(warehouse, since="2026-03-16", until="2026-04-05").page
    assert len(everyone.section_by_id["channels"].charts) == 1
    assert len(everyone.section_by_id["top-posts-rate"].charts) == 1


def test_columns_blank_in_every_row_are_left_out() -> None:
    from channelkit.reports.page import Table, TableColumn

    table = Table(
        (TableColumn("Tag"), TableColumn("Readers", numeric=True), TableColumn("Sample")),
        (("release", "12", ""), ("launch", "3", " ")),
    )
    assert table.without_empty_columns() == Table(
        (TableColumn("Tag"), TableColumn("Readers", numeric=True)),
        (("release", "12"), ("launch", "3")),
    )
    small = Table(table.columns, (("release", "12", ""), ("launch", "3", "small")))
    assert small.without_empty_columns() == small
    no_rows = Table(table.columns, ())
    assert no_rows.without_empty_columns() == no_rows
