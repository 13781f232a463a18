"""One time zone resolver: the argument, else CHANNELKIT_TZ, else UTC, in every part."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from channelkit._constants import DEFAULT_TZ, ENV_TZ
from channelkit._tz import given_tz, resolve_tz, unknown_zone
from channelkit.analysis.period import Period
from channelkit.cli import main
from channelkit.errors import ChannelkitError, InvalidParameterError
from channelkit.publish.sheets.plan import load_spreadsheet
from channelkit.reports.deliver.config import load_config
from channelkit.warehouse import Warehouse
from channelkit.widgets._zones import initial_zone


def test_an_argument_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_TZ, "Asia/Tokyo")
    assert resolve_tz(" Europe/Berlin ") == "Europe/Berlin"


def test_the_environment_wins_over_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_TZ, "Asia/Tokyo")
    assert resolve_tz(None) == "Asia/Tokyo"
    assert resolve_tz("  ") == "Asia/Tokyo"  # blank counts as not given


@pytest.mark.parametrize("value", [None, "", "   "])
def test_utc_when_nothing_names_a_zone(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv(ENV_TZ, raising=False)
    else:
        monkeypatch.setenv(ENV_TZ, value)
    assert resolve_tz(None) == DEFAULT_TZ == "UTC"


def test_a_bad_environment_zone_is_refused_by_the_part_that_uses_it(
    monkeypatch: pytest.MonkeyPatch, small_warehouse: Path
) -> None:
    monkeypatch.setenv(ENV_TZ, "Mars/Olympus")
    with pytest.raises(InvalidParameterError, match="'Mars/Olympus' is not a time zone"):
        Warehouse(small_warehouse).posts()
    assert resolve_tz("UTC") == "UTC"  # an argument does not even look at it


@pytest.mark.calendar
def test_every_part_uses_the_resolver(
    monkeypatch: pytest.MonkeyPatch, small_warehouse: Path
) -> None:
    monkeypatch.setenv(ENV_TZ, "Asia/Tokyo")
    wh = Warehouse(small_warehouse)
    assert wh.posts().attrs["tz"] == "Asia/Tokyo"
    assert str(wh.channels()["created_at"].dt.tz) == "Asia/Tokyo"
    assert wh.posts(tz="Europe/Berlin").attrs["tz"] == "Europe/Berlin"
    assert initial_zone(None) == "Asia/Tokyo"
    sheet = b"channel,title,body,scheduled_at\nall-hands,Hi,Body,2030-01-02 09:00\n"
    assert load_spreadsheet(sheet, filename="posts.csv").tz == "Asia/Tokyo"


@pytest.mark.calendar
def test_publishing_has_no_utc_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    # a naive time read as UTC by accident would publish at the wrong hour
    monkeypatch.delenv(ENV_TZ, raising=False)
    assert given_tz(None) is None and given_tz(" Asia/Tokyo ") == "Asia/Tokyo"
    sheet = b"channel,title,body,scheduled_at\nall-hands,Hi,Body,2030-01-02 09:00\n"
    plan = load_spreadsheet(sheet, filename="posts.csv")
    assert plan.tz is None
    assert "has no time zone" in str(plan.rows[0].errors)


@pytest.mark.calendar
def test_report_tz_follows_the_environment(
    monkeypatch: pytest.MonkeyPatch, small_warehouse: Path, tmp_path: Path
) -> None:
    out = tmp_path / "weekly.html"
    monkeypatch.setenv(ENV_TZ, "Europe/Berlin")
    args = ["report", "--db", str(small_warehouse), "--out", str(out)]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    page = out.read_text(encoding="utf-8")
    # the period is named in calendar words, then its days in the zone that drew them
    assert re.search(
        r"7 days to \d{1,2} \w+ \d{4} \(\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d, Europe/Berlin\)", page
    )
    assert "<dt>Timezone</dt><dd>Europe/Berlin</dd>" in page
    monkeypatch.setenv(ENV_TZ, "Mars/Olympus")
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 2 and "'Mars/Olympus'" in result.stderr


BAD_ZONE = "Europe/Berln"


def _said_by_every_entry_point(small_warehouse: Path, tmp_path: Path) -> dict[str, str]:
    """What each way in says about the same unknown zone."""
    said: dict[str, str] = {}
    with pytest.raises(InvalidParameterError) as metric:
        Warehouse(small_warehouse).kpis(tz=BAD_ZONE)
    said["Warehouse.kpis(tz=)"] = str(metric.value)
    with pytest.raises(InvalidParameterError) as period:
        Period.resolve(None, None, BAD_ZONE)
    said["Period.resolve"] = str(period.value)
    for command in (
        ["report", "--db", str(small_warehouse), "--tz", BAD_ZONE, "--out", "x.html"],
        ["calendar", "export", "--tz", BAD_ZONE, "--to", str(tmp_path / "c.csv")],
        ["schedule", str(tmp_path / "any.csv"), "--tz", BAD_ZONE],
    ):
        result = CliRunner().invoke(main, command, catch_exceptions=False)
        assert result.exit_code == 2, result.output
        said[f"channelkit {command[0]}"] = result.stderr
    config = tmp_path / "deliver.toml"
    config.write_text(f'[[reports]]\nname = "w"\nperiod = "week"\ntz = "{BAD_ZONE}"\n')
    with pytest.raises(ChannelkitError) as delivery:
        load_config(config)
    said["deliver config"] = str(delivery.value)
    sheet = b"channel,title,body,scheduled_at,timezone\nall-hands,Hi,Body,2030-01-02 09:00,"
    plan = load_spreadsheet(sheet + BAD_ZONE.encode(), filename="posts.csv")
    said["spreadsheet timezone column"] = str(plan.rows[0].errors)
    return said


@pytest.mark.calendar
def test_every_entry_point_refuses_an_unknown_zone_in_the_same_words(
    small_warehouse: Path, tmp_path: Path
) -> None:
    message = unknown_zone(BAD_ZONE)
    assert message.endswith("(did you mean 'Europe/Berlin'?)")
    for where, text in _said_by_every_entry_point(small_warehouse, tmp_path).items():
        assert message in " ".join(text.split()), f"{where} said: {text}"
