"""Every numeric and date flag of every command, and every environment variable behind one,
refuses inf, nan, 1e20, a negative number and the years 1 and 9999 in one line naming the
flag, exit 2, no traceback (issue 45.8: `--read-timeout inf` was an OverflowError on `sync`,
`hold --status` and `calendar export`, `report --period 9999-12-31` another).

The flags are found from the commands' declarations (`channelkit._cli`'s shared types and
click's numeric types), not listed here: a new numeric or date flag is swept the day it is
declared, and a date flag declared as plain text fails `test_every_date_flag_is_checked`.
Each command's base arguments are valid (`test_the_base_arguments_are_valid`), so that the
exit 2 is the swept value's.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from channelkit._cli import Day, Number, Parsed
from channelkit.cli import main
from channelkit.publish.approval.signing import Signer
from channelkit.service import LocalService

BAD = ("inf", "nan", "1e20", "-1", "-0.5", "0001-01-01", "9999-12-31", "9999-12-31 23:00")


def _commands() -> Iterator[tuple[str, click.Command]]:
    context = click.Context(main)

    def walk(command: click.Command, path: tuple[str, ...]) -> Iterator[tuple[str, click.Command]]:
        if isinstance(command, click.Group):
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                assert sub is not None
                yield from walk(sub, (*path, name))
        else:
            yield " ".join(path), command

    return walk(main, ())


def _swept(option: click.Parameter) -> bool:
    """A numeric or date flag: one of the shared types, or a numeric type of click's."""
    kinds = (Number, Day, Parsed, click.types.IntParamType, click.types.FloatParamType)
    return (
        isinstance(option, click.Option) and not option.is_flag and isinstance(option.type, kinds)
    )


FLAGS = [
    (command, option.opts[0])
    for command, declared in _commands()
    for option in declared.params
    if _swept(option)
]
ENVIRONMENT = sorted(
    {
        (command, option.opts[0], str(option.envvar))
        for command, declared in _commands()
        for option in declared.params
        if _swept(option) and option.envvar
    }
)


def test_the_sweep_finds_the_flags_of_the_issue() -> None:
    named = [
        ("sync", "--read-timeout"), ("hold", "--read-timeout"),
        ("calendar export", "--read-timeout"), ("sync", "--lookback-days"),
        ("report", "--since"), ("report", "--until"), ("report", "--period"),
        ("calendar export", "--from"), ("hold", "--from"), ("serve", "--port"),
    ]  # fmt: skip
    for flag in named:
        assert flag in FLAGS, flag
    assert ("sync", "--read-timeout", "CHANNELKIT_READ_TIMEOUT") in ENVIRONMENT


def test_every_date_flag_is_checked() -> None:
    """A flag that takes a date as plain text would let the year 9999 through to a command."""
    for command, declared in _commands():
        for option in declared.params:
            if isinstance(option, click.Option) and not option.is_flag:
                dated = option.metavar == "DATE" or "YYYY-MM-DD" in (option.help or "")
                assert not dated or _swept(option), f"{command} {option.opts[0]}"


@pytest.fixture
def base(service: LocalService, admin_key: str, tmp_path: Path) -> dict[str, list[str]]:
    """Valid arguments of each command that has a swept flag (serve's are none)."""
    db = tmp_path / "w.duckdb"
    CliRunner().invoke(main, ["sync", "--db", str(db), "-q"], env=_env(service, admin_key))
    sheet = tmp_path / "posts.csv"
    CliRunner().invoke(main, ["template", str(sheet)])
    policy = tmp_path / "approvals.toml"
    line = Signer.generate("ann").public_line()
    policy.write_text(f'[approvers]\n{line}\n[channels.all-hands]\napprovers = ["ann"]\n')
    config = tmp_path / "deliver.toml"
    config.write_text(
        '[[reports]]\nname = "x"\nperiod = "week"\n'
        'webhooks = [{ url = "https://h.example.com/x" }]\n',
        encoding="utf-8",
    )
    return {
        "sync": ["sync", "--db", str(db), "-q"],
        "status": ["status", "--db", str(db)],
        "report": ["report", "--db", str(db), "--since", "2026-01-01", "--until", "2026-01-07",
                   "--out", str(tmp_path / "r.html")],
        "deliver": ["deliver", str(config), "--db", str(db), "--dry-run"],
        "schedule": ["schedule", str(sheet), "--tz", "UTC"],
        "calendar export": ["calendar", "export", str(tmp_path / "c.csv"), "--from",
                            "2026-12-01", "--to", "2026-12-08", "--tz", "UTC", "--force"],
        "hold": ["hold", "--status", "--tz", "UTC"],
        "release": ["release", "--tz", "UTC"],
        "approve": ["approve", "--policy", str(policy), "--tz", "UTC"],
    }  # fmt: skip


def _env(service: LocalService, key: str) -> dict[str, str]:
    return {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_API_KEY": key}


@pytest.mark.calendar
def test_the_base_arguments_are_valid(
    base: dict[str, list[str]], service: LocalService, admin_key: str
) -> None:
    """Not refused as a usage error: the sweep's exit 2 is the swept value's. (report and
    status may still refuse the empty warehouse's data, exit 1.)"""
    assert {command for command, _ in FLAGS} - {"serve"} <= set(base)
    for command, args in base.items():
        result = CliRunner().invoke(main, args, env=_env(service, admin_key))
        assert result.exit_code != 2, (command, result.output)
        assert "Traceback" not in result.output


def _assert_one_line(output: str, exit_code: int, flag: str, said: str) -> None:
    assert exit_code == 2, (said, output)
    assert "Traceback" not in output, (said, output)
    errors = [line for line in output.splitlines() if line.startswith("Error")]
    named = re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", errors[0]) if errors else None
    assert len(errors) == 1 and named, (said, output)


@pytest.mark.parametrize(("command", "flag"), [f for f in FLAGS if f[0] != "serve"])
def test_a_bad_number_or_a_far_date_is_one_line_naming_the_flag(
    base: dict[str, list[str]], service: LocalService, admin_key: str, command: str, flag: str
) -> None:
    for value in BAD:
        result = CliRunner().invoke(
            main, [*base[command], flag, value], env=_env(service, admin_key)
        )
        _assert_one_line(result.output, result.exit_code, flag, f"{command} {flag} {value}")


@pytest.mark.parametrize(("command", "flag", "variable"), ENVIRONMENT)
def test_a_bad_value_of_an_environment_variable_names_it_and_its_flag(
    base: dict[str, list[str]],
    service: LocalService,
    admin_key: str,
    command: str,
    flag: str,
    variable: str,
) -> None:
    for value in BAD:
        env = {**_env(service, admin_key), variable: value}
        result = CliRunner().invoke(main, base[command], env=env)
        _assert_one_line(result.output, result.exit_code, flag, f"{variable}={value} {command}")
        assert f"(the value of {variable})" in result.output


@pytest.mark.parametrize("flag", [flag for command, flag in FLAGS if command == "serve"])
def test_serve_refuses_a_bad_number_before_it_serves(flag: str) -> None:
    """In a process of its own, bounded in time: a value let through would serve forever."""
    for value in BAD:
        run = subprocess.run(
            [sys.executable, "-m", "channelkit", "serve", "--db", ":memory:", "--port", "0",
             flag, value],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        _assert_one_line(run.stderr, run.returncode, flag, f"serve {flag} {value}")
