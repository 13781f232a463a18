"""`channelkit report` as cron runs it: exit codes, stderr lines, nothing half-written."""

from __future__ import annotations

import re
from datetime import UTC, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from channelkit.cli import main
from channelkit.reports import report_period
from channelkit.service import LocalService
from channelkit.warehouse import Warehouse


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["report", *map(str, args)], catch_exceptions=False)


def test_writes_the_report_and_logs_each_step(small_warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "reports" / "weekly.html"
    result = run("--db", small_warehouse, "--tz", "Europe/Berlin", "--out", out)
    assert result.exit_code == 0, result.stderr
    assert result.stdout == ""
    steps = result.stderr.splitlines()
    assert all(" channelkit report: " in line for line in steps)
    assert any(line.endswith("querying kpis") for line in steps)
    assert steps[-1].endswith(f"wrote {out} ({out.stat().st_size:,} bytes)")
    assert "(2026-03-30 to 2026-04-05, Europe/Berlin)" in out.read_text(encoding="utf-8")


def test_stale_data_exits_1_and_keeps_no_file(small_warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "reports" / "weekly.html"
    # the fixture's last sync was in April 2026: long before the wall clock of any test run
    result = run("--db", small_warehouse, "--max-age", "26h", "--out", out)
    assert result.exit_code == 1
    assert "Error: data is stale" in result.stderr and "--max-age 26h00m" in result.stderr
    assert not out.parent.exists()


def test_missing_warehouse_exits_1(tmp_path: Path) -> None:
    result = run("--db", tmp_path / "none.duckdb", "--out", tmp_path / "r.html")
    assert result.exit_code == 1
    assert "none.duckdb: no such warehouse; run `channelkit sync" in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--period", "7x"], "Invalid value for '--period': '7x' is not a period"),
        (["--period", "3m"], "months are calendar months"),
        (["--compare", "decade"], "Invalid value for '--compare'"),
        (["--format", "docx"], "Invalid value for '--format'"),
        (["--tz", "Mars/Olympus"], "Invalid value for '--tz'"),
        (["--since", "2026-02-30"], "Invalid value for '--since'"),
        (["--max-age", "soon"], "Invalid value for '--max-age'"),
        (["--since", "2026-04-02", "--until", "2026-04-01"], "--until 2026-04-01 is before"),
        (
            ["--since", "2026-03-01", "--until", "2026-03-02", "--period", "1d"],
            "at most two of --since, --until and --period",
        ),
        (
            ["--channel", "marketing"],
            "--channel: no channel 'marketing' (id, slug or name); choices",
        ),
        (["--template", "missing.j2"], "Invalid value for '--template': File 'missing.j2'"),
        (["--sync"], "--base-url: no service URL given for --sync"),
    ],
)
def test_bad_flags_exit_2_naming_the_flag(
    small_warehouse: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    monkeypatch.delenv("CHANNELKIT_BASE_URL", raising=False)
    monkeypatch.chdir(tmp_path)
    result = run("--db", small_warehouse, "--out", tmp_path / "r.html", *args)
    assert result.exit_code == 2, result.stderr
    assert message in result.stderr
    assert not (tmp_path / "r.html").exists()


def test_out_is_required(tmp_path: Path) -> None:
    result = run("--db", tmp_path / "w.duckdb")
    assert result.exit_code == 2
    assert "Missing option '--out'" in result.stderr


def test_custom_template_and_broken_template(small_warehouse: Path, tmp_path: Path) -> None:
    good = tmp_path / "mail.html.j2"
    good.write_text(
        "<h1>{{ page.title }}</h1>{% for t in page.kpis %}<p>{{ t.label }}={{ t.value }}</p>"
        "{% endfor %}",
        encoding="utf-8",
    )
    out = tmp_path / "mail.html"
    result = run("--db", small_warehouse, "--template", good, "--out", out)
    assert result.exit_code == 0, result.stderr
    assert "<p>Opens=400</p>" in out.read_text(encoding="utf-8")
    broken = tmp_path / "broken.j2"
    broken.write_text("{% if %}", encoding="utf-8")
    result = run("--db", small_warehouse, "--template", broken, "--out", tmp_path / "b.html")
    assert result.exit_code == 1
    assert "broken.j2, line 1" in result.stderr
    assert not (tmp_path / "b.html").exists()


@pytest.mark.calendar
def test_sync_then_report_against_the_demo_service(
    demo_service: LocalService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = demo_service.demo_keys["admin"]
    monkeypatch.setenv("CHANNELKIT_API_KEY", key)
    db, out = tmp_path / "w.duckdb", tmp_path / "monthly.html"
    result = run(
        "--sync", "--base-url", demo_service.base_url, "--db", db, "--tz", "Europe/Berlin",
        "--max-age", "1h", "--period", "month", "--out", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert re.search(
        rf"sync completed \(\w+\) from {re.escape(demo_service.base_url)}", result.stderr
    )
    # The last calendar month before the last complete day (the day before the sync), and
    # the month before it, worked out here from the sync's date alone.
    synced = Warehouse(db).freshness().last_sync_at
    assert synced is not None
    # the last complete day is the day before the sync (UTC); the month it ends is
    # complete only when the next day is a 1st
    after_last_complete = synced.astimezone(UTC).date()
    first_of_this_month = after_last_complete.replace(day=1)
    last_month = (first_of_this_month - timedelta(days=1)).replace(day=1)
    month_before = (last_month - timedelta(days=1)).replace(day=1)
    html = out.read_text(encoding="utf-8")
    assert f"<h1>Engagement report \u00b7 {last_month:%B %Y} \u00b7 All channels</h1>" in html
    assert f"compared with {month_before:%B %Y} ({month_before.isoformat()} to" in html
    wh = Warehouse(db)
    period = report_period(wh, tz="Europe/Berlin", period="month")
    kpis = wh.kpis(**period.query()).set_index("metric")
    assert kpis.attrs["previous_period"] == f"{month_before:%B %Y}"
    readers = f'<p class="value">{kpis.loc["readers", "value"]:,.0f}</p>'
    assert readers in html
    assert key not in result.stderr + result.stdout + html


def test_failed_sync_writes_no_report(
    demo_service: LocalService, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CHANNELKIT_API_KEY", "ck_not_a_key_of_this_service")
    out = tmp_path / "weekly.html"
    result = run(
        "--sync", "--base-url", demo_service.base_url, "--db", tmp_path / "w.duckdb", "--out", out
    )
    assert result.exit_code == 1
    assert "no report written" in result.stderr
    assert "ck_not_a_key_of_this_service" not in result.stderr + result.stdout
    assert not out.exists()


def test_quiet_prints_nothing_unless_it_fails(small_warehouse: Path, tmp_path: Path) -> None:
    out = tmp_path / "weekly.html"
    result = run("--db", small_warehouse, "--quiet", "--out", out)
    assert result.exit_code == 0
    assert (result.stdout, result.stderr) == ("", "")
    assert out.exists()
    result = run("--db", small_warehouse, "-q", "--max-age", "1h", "--out", out)
    assert result.exit_code == 1
    assert result.stderr.startswith("Error: data is stale")
