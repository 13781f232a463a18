"""One time zone resolver: the argument, else CHANNELKIT_TZ, else UTC, in every part."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import click
import pytest
from click.testing import CliRunner

import channelkit as ck
from channelkit._cli import TimeZoneName
from channelkit._constants import DEFAULT_TZ, ENV_TZ
from channelkit._tz import resolve_zone, unknown_zone
from channelkit.cli import main
from channelkit.client import Client
from channelkit.errors import ChannelkitError, InvalidParameterError, TimeError, UnknownZoneError
from channelkit.publish.post.times import time_zone
from channelkit.publish.sheets.plan import load_spreadsheet
from channelkit.reports.deliver.config import load_config
from channelkit.reports.generate import report_period
from channelkit.warehouse import Warehouse
from channelkit.watch.config import load_watch
from channelkit.widgets._zones import initial_zone


def test_an_argument_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_TZ, "Asia/Tokyo")
    assert resolve_zone(" Europe/Berlin ").key == "Europe/Berlin"
    assert resolve_zone(" Europe/Berlin ", default=None) == ZoneInfo("Europe/Berlin")


def test_the_environment_wins_over_utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_TZ, "Asia/Tokyo")
    assert resolve_zone(None).key == "Asia/Tokyo"
    assert resolve_zone("  ").key == "Asia/Tokyo"  # blank counts as not given
    assert resolve_zone(None, default=None) == ZoneInfo("Asia/Tokyo")  # publishing too


@pytest.mark.parametrize("value", [None, "", "   "])
def test_utc_when_nothing_names_a_zone(monkeypatch: pytest.MonkeyPatch, value: str | None) -> None:
    if value is None:
        monkeypatch.delenv(ENV_TZ, raising=False)
    else:
        monkeypatch.setenv(ENV_TZ, value)
    assert resolve_zone(None).key == DEFAULT_TZ == "UTC"
    assert resolve_zone(value, default=ZoneInfo("Asia/Tokyo")).key == "Asia/Tokyo"


def test_a_bad_environment_zone_is_refused_by_the_part_that_uses_it(
    monkeypatch: pytest.MonkeyPatch, small_warehouse: Path
) -> None:
    monkeypatch.setenv(ENV_TZ, "Mars/Olympus")
    with pytest.raises(InvalidParameterError, match="'Mars/Olympus' is not a time zone"):
        Warehouse(small_warehouse).posts()
    assert resolve_zone("UTC").key == "UTC"  # an argument does not even look at it


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
    assert load_spreadsheet(sheet, filename="posts.csv").tz == ZoneInfo("Asia/Tokyo")


@pytest.mark.calendar
def test_publishing_has_no_utc_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    # a naive time read as UTC by accident would publish at the wrong hour
    monkeypatch.delenv(ENV_TZ, raising=False)
    assert resolve_zone(None, default=None) is None
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
    with pytest.raises(InvalidParameterError) as sql:
        Warehouse(small_warehouse).sql("SELECT 1", tz=BAD_ZONE)
    said["Warehouse.sql(tz=)"] = str(sql.value)
    with pytest.raises(InvalidParameterError) as period:
        report_period(Warehouse(small_warehouse), period="week", tz=BAD_ZONE)
    said["report_period(tz=)"] = str(period.value)
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


# --- one error for a bad zone, at every entry -------------------------------------------------

TYPO = "Europ/Berlin"
NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)  # pinned: validate_post is told the time
# Nothing listens here: an entry that asked the service before checking its zone would
# fail with a connection error instead of the zone's.
_DEAD_SERVICE = "http://127.0.0.1:9/v1"


def _commands_with_tz(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command under `group` that has a --tz option, read from the command tree."""
    ctx = click.Context(group)
    found: list[tuple[str, ...]] = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            found += _commands_with_tz(command, (*path, name))
        elif any("--tz" in getattr(param, "opts", ()) for param in command.params):
            found.append((*path, name))
    return found


COMMANDS_WITH_TZ = _commands_with_tz(main)


def test_the_command_tree_is_walked() -> None:
    # a floor, not the list: the walk must at least find the commands known to take --tz
    assert {("report",), ("schedule",), ("calendar", "export")} <= set(COMMANDS_WITH_TZ)


def test_every_tz_option_is_the_one_declaration() -> None:
    # one click type checks every --tz (and CHANNELKIT_TZ behind it) before the command runs
    for path in COMMANDS_WITH_TZ:
        command: click.Command = main
        for name in path:
            assert isinstance(command, click.Group)
            found = command.get_command(click.Context(command), name)
            assert found is not None
            command = found
        (option,) = [param for param in command.params if "--tz" in getattr(param, "opts", ())]
        assert isinstance(option.type, TimeZoneName), path
        assert option.envvar == ENV_TZ, path


@pytest.mark.parametrize("command", COMMANDS_WITH_TZ, ids=" ".join)
def test_every_command_with_tz_refuses_an_unknown_zone_in_one_line(
    command: tuple[str, ...],
) -> None:
    # --tz first: click checks the options given, in their order, before missing ones
    result = CliRunner().invoke(main, [*command, "--tz", TYPO])
    assert isinstance(result.exception, SystemExit) and result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if unknown_zone(TYPO) in line]
    assert len(lines) == 1, result.output
    assert lines[0].startswith("Error: Invalid value for '--tz'"), result.output
    assert lines[0].endswith(f": {unknown_zone(TYPO)}"), result.output


def test_a_bad_channelkit_tz_is_named_on_the_command_line(
    monkeypatch: pytest.MonkeyPatch, small_warehouse: Path, tmp_path: Path
) -> None:
    monkeypatch.setenv(ENV_TZ, TYPO)
    args = ["report", "--db", str(small_warehouse), "--out", str(tmp_path / "r.html")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert f"{unknown_zone(TYPO)} (the value of CHANNELKIT_TZ)" in result.output
    assert not (tmp_path / "r.html").exists()


def _library_and_files(tmp_path: Path, small_warehouse: Path) -> dict[str, Callable[[], object]]:
    dead = Client(base_url=_DEAD_SERVICE, api_key="sk_test_unused", max_retries=0)
    sheet = b"channel,title,body,scheduled_at\nall-hands,Hi,Body,2030-01-02 09:00\n"
    delivery = tmp_path / "deliver.toml"
    delivery.write_text(f'[[reports]]\nname = "w"\nperiod = "week"\ntz = "{TYPO}"\n')
    watch = tmp_path / "watch.toml"
    watch.write_text(f'[[jobs]]\nname = "sync"\nrun = "true"\nevery = "1h"\ntz = "{TYPO}"\n')
    return {
        "Warehouse.kpis(tz=)": lambda: Warehouse(small_warehouse).kpis(tz=TYPO),
        "Warehouse.posts(tz=)": lambda: Warehouse(small_warehouse).posts(tz=TYPO),
        "ck.schedule": lambda: ck.schedule("all-hands", "T", "B", tz=TYPO, client=dead),
        "load_spreadsheet": lambda: load_spreadsheet(sheet, filename="posts.csv", tz=TYPO),
        "ck.calendar_export": lambda: ck.calendar_export(
            tmp_path / "c.csv", start="2030-01-01", end="2030-01-05", tz=TYPO, client=dead
        ),
        "ck.hold": lambda: ck.hold(dead, channel="all-hands", tz=TYPO),
        "ck.release": lambda: ck.release(dead, channel="all-hands", tz=TYPO),
        "ck.publish.validate_post": lambda: ck.publish.validate_post(
            {"channel": "all-hands", "title": "T", "body": "B"}, channels=None, tz=TYPO, now=NOW
        ),
        "delivery file": lambda: load_config(delivery),
        "watch file": lambda: load_watch(watch),
    }


def test_every_library_entry_and_file_raises_the_one_error(
    tmp_path: Path, small_warehouse: Path
) -> None:
    for where, call in _library_and_files(tmp_path, small_warehouse).items():
        with pytest.raises(UnknownZoneError) as raised:
            call()
        assert raised.value.message == unknown_zone(TYPO), where
        assert str(raised.value) == f"{raised.value.param}: {unknown_zone(TYPO)}", where
    assert not (tmp_path / "c.csv").exists()  # nothing half-written


def test_the_files_name_the_key_of_the_bad_zone(tmp_path: Path, small_warehouse: Path) -> None:
    entries = _library_and_files(tmp_path, small_warehouse)
    for where, key in (("delivery file", "reports[0].tz"), ("watch file", "jobs[0].tz")):
        with pytest.raises(UnknownZoneError) as raised:
            entries[where]()
        assert raised.value.param.endswith(key), raised.value.param


def test_a_bad_channelkit_tz_raises_the_one_error_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, small_warehouse: Path
) -> None:
    monkeypatch.setenv(ENV_TZ, TYPO)
    sheet = b"channel,title,body,scheduled_at\nall-hands,Hi,Body,2030-01-02 09:00\n"
    for call in (
        lambda: Warehouse(small_warehouse).posts(),
        lambda: load_spreadsheet(sheet, filename="posts.csv"),
    ):
        with pytest.raises(UnknownZoneError) as raised:
            call()
        assert raised.value.message == unknown_zone(TYPO)


def test_a_sheets_timezone_column_gives_the_one_message_as_its_row_error() -> None:
    sheet = b"channel,title,body,scheduled_at,timezone\nall-hands,Hi,Body,2030-01-02 09:00,"
    plan = load_spreadsheet(sheet + TYPO.encode(), filename="posts.csv", tz="UTC")
    assert [(e.field, e.message) for e in plan.rows[0].errors if e.field == "timezone"] == [
        ("timezone", unknown_zone(TYPO))
    ]


def test_the_one_error_is_both_a_bad_argument_and_a_bad_time() -> None:
    # callers catching either (a CLI's bad parameter, publishing's row error) still do
    assert issubclass(UnknownZoneError, InvalidParameterError)
    assert issubclass(UnknownZoneError, TimeError)
    with pytest.raises(UnknownZoneError) as raised:
        time_zone(TYPO)
    assert str(raised.value) == unknown_zone(TYPO)  # inside a row: the column names it


def test_the_resolver_folds_case_and_refuses_what_is_not_a_zone() -> None:
    assert resolve_zone("europe/berlin").key == "Europe/Berlin"
    berlin = ZoneInfo("Europe/Berlin")
    for default in (None, ZoneInfo("UTC")):  # resolved at an outer edge: used as it is
        assert resolve_zone(berlin, default=default) is berlin
    for bad in ("Mars/Olympus", "../etc/passwd", 5, b"UTC"):
        for default in (None, ZoneInfo("UTC")):
            with pytest.raises(UnknownZoneError) as raised:
                resolve_zone(bad, default=default)
            assert (raised.value.param, raised.value.message) == ("tz", unknown_zone(bad))


def test_the_resolver_names_the_environment_when_it_gave_the_bad_zone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV_TZ, TYPO)
    for default in (None, ZoneInfo("UTC")):
        with pytest.raises(UnknownZoneError) as raised:
            resolve_zone(" ", default=default)
        assert str(raised.value) == f"{ENV_TZ}: {unknown_zone(TYPO)}"
    assert resolve_zone("Asia/Tokyo", default=None).key == "Asia/Tokyo"  # given: not asked
