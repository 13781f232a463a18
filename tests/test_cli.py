"""The `channelkit` command group: every listed command loads and explains itself."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest
from click import exceptions as click_exceptions
from click.testing import CliRunner

from channelkit._cli import Output, ServiceOptions, output_options, service_options
from channelkit.cli import _COMMANDS, main
from channelkit.service import LocalService


@pytest.fixture(autouse=True)
def _short_connection_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    # A refused connection is retried for a minute by default (a deploy may take that long);
    # the "service not running" cases here need the message, not the minute.
    monkeypatch.setenv("CHANNELKIT_CONNECT_RETRY_SECONDS", "1")


def test_help_lists_every_command() -> None:
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.output.split("Commands:")[1].splitlines() if line]
    assert listed == list(_COMMANDS)


@pytest.mark.parametrize("name", list(_COMMANDS))
def test_each_command_has_help(name: str) -> None:
    result = CliRunner().invoke(main, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert f"Usage: main {name}" in result.output or f"Usage: channelkit {name}" in result.output


def test_unknown_command_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["synk"])
    assert result.exit_code == 2
    assert "no command 'synk'; did you mean 'sync'?" in result.output


def test_user_errors_exit_2_for_bad_parameters_and_1_for_refusals() -> None:
    from channelkit._cli import user_errors
    from channelkit.errors import ChannelkitError, InvalidParameterError

    with pytest.raises(click_exceptions.UsageError) as bad:
        with user_errors():
            raise InvalidParameterError("since", "'yesterday' is not a date")
    assert bad.value.exit_code == 2 and "since: 'yesterday'" in bad.value.format_message()
    with pytest.raises(click_exceptions.ClickException) as refused:
        with user_errors():
            raise ChannelkitError("warehouse.duckdb is locked by another process")
    assert refused.value.exit_code == 1
    assert not isinstance(refused.value, click_exceptions.UsageError)


# --- cron-clean output and interrupts, as a cron job or a shell sees them -------------------

_LOG_LINE = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}")
# what else stderr may hold: an error (its reason, then what to do), warnings, rows to fix
_MESSAGE_LINES = ("Error:", "hint:", "the ", "warning:", "row ")


def _channelkit(
    *args: str, env: dict[str, str], cwd: Path, timeout: float = 240
) -> subprocess.CompletedProcess[str]:
    """`python -m channelkit ...` with stdout and stderr redirected to files, as under cron."""
    out, err = cwd / "stdout.txt", cwd / "stderr.txt"
    with out.open("w") as stdout, err.open("w") as stderr:
        done = subprocess.run(
            [sys.executable, "-m", "channelkit", *args],
            cwd=cwd,
            env={**os.environ, **env},
            stdout=stdout,
            stderr=stderr,
            timeout=timeout,
            check=False,
        )
    return subprocess.CompletedProcess(done.args, done.returncode, out.read_text(), err.read_text())


def _assert_cron_clean(result: subprocess.CompletedProcess[str]) -> None:
    for stream in (result.stdout, result.stderr):
        assert "\r" not in stream
        assert not re.search(r"\d+%\|", stream)  # a tqdm bar
        assert "Traceback" not in stream
    for line in result.stderr.splitlines():  # a non-terminal stderr holds log lines only
        assert _LOG_LINE.match(line) or line.startswith(_MESSAGE_LINES), line


@pytest.fixture
def publishing(service_factory: Callable[..., LocalService], tmp_path: Path) -> dict[str, str]:
    # The demo workspace has weeks of history up to now, so the default report (the last
    # complete days) finds synced data, as it would in a real cron job.
    service = service_factory(seed="demo", rate_window=1.0)
    (tmp_path / "posts.csv").write_text(
        "channel,title,body,scheduled_at,timezone\n"
        + "".join(
            f"all-hands,Post {n},Body,2030-12-0{n} 09:00,Europe/Berlin\n" for n in range(1, 4)
        ),
        encoding="utf-8",
    )
    admin_key = service.demo_keys["admin"]
    return {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_API_KEY": admin_key}


def test_redirected_output_is_cron_clean_and_quiet_prints_nothing(
    tmp_path: Path, publishing: dict[str, str]
) -> None:
    env = {**publishing, "CHANNELKIT_TZ": "Europe/Berlin"}
    steps = [
        ["sync", "--db", "w.duckdb"],
        ["report", "--db", "w.duckdb", "--out", "r.html"],
        ["schedule", "posts.csv", "--submit", "--results", "results.csv"],
        ["template", "t.csv"],
    ]
    for args in steps:
        result = _channelkit(*args, env=env, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        _assert_cron_clean(result)
    (tmp_path / "t.csv").unlink()
    for args in steps:
        quiet = _channelkit(*args, "--quiet", env=env, cwd=tmp_path)
        assert quiet.returncode == 0, quiet.stderr
        assert (quiet.stdout, quiet.stderr) == ("", ""), args
    for args in steps[:3]:
        summary = _channelkit(*args, "--json", env=env, cwd=tmp_path)
        assert summary.returncode == 0, summary.stderr
        assert isinstance(json.loads(summary.stdout), dict)


def test_a_failure_puts_its_reason_on_stderr_even_when_quiet(tmp_path: Path) -> None:
    env = {"CHANNELKIT_BASE_URL": "http://127.0.0.1:9/v1", "CHANNELKIT_API_KEY": "k"}
    result = _channelkit("sync", "--quiet", "--db", "w.duckdb", env=env, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert "the service could not be reached" in result.stderr
    assert "is the service running?" in result.stderr
    _assert_cron_clean(result)


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_sync_says_one_line_and_the_rerun_resumes(
    signum: int, code: int, tmp_path: Path, service_factory: Callable[..., LocalService]
) -> None:
    svc = service_factory(seed="demo", rate_window=1.0)
    env = {
        "CHANNELKIT_BASE_URL": svc.base_url,
        "CHANNELKIT_API_KEY": svc.demo_keys["starter"],  # 60 requests a window: a slow sync
        "CHANNELKIT_LOG": "debug",  # one line per response, to interrupt mid-walk
    }
    command = [sys.executable, "-m", "channelkit", "sync", "--db", "w.duckdb"]
    # pages and batches of 20 rows: after 20 responses the posts walk is mid-way, committed
    command += ["--only", "channels,posts", "--page-limit", "20", "--batch-rows", "20"]
    proc = subprocess.Popen(
        command,
        cwd=tmp_path,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None and proc.stdout is not None
    responses = 0
    for line in proc.stderr:
        responses += " -> 200 in " in line
        if responses >= 20:
            proc.send_signal(signum)
            break
    rest = proc.stderr.read()
    assert proc.wait(timeout=60) == code
    said = [line for line in rest.splitlines() if not _LOG_LINE.match(line)]
    assert said == ["channelkit: interrupted; what was committed is kept; run again to resume"]
    assert proc.stdout.read() == ""
    for noise in ("Traceback", "Aborted!", "nanobind", "leaked", "Query interrupted"):
        assert noise not in rest

    if signum != signal.SIGINT:
        return  # the rerun is the same whichever signal stopped the run
    env.pop("CHANNELKIT_LOG")
    rerun = _channelkit("sync", "--db", "w.duckdb", *command[-6:], env=env, cwd=tmp_path)
    assert rerun.returncode == 0, rerun.stderr
    assert "resumed interrupted walks: posts" in rerun.stdout, rerun.stdout


def _all_commands() -> list[tuple[str, click.Command]]:
    ctx = click.Context(main)
    found: list[tuple[str, click.Command]] = []
    for name in _COMMANDS:
        command = main.get_command(ctx, name)
        assert command is not None
        found.append((name, command))
        if isinstance(command, click.Group):
            found += [(f"{name} {sub}", c) for sub, c in command.commands.items()]
    return found


@pytest.mark.parametrize(("name", "command"), _all_commands(), ids=lambda v: str(v))
def test_every_option_is_described_and_env_vars_shown_alike(
    name: str, command: click.Command
) -> None:
    assert command.help and command.short_help is None, name
    for param in command.params:
        if not isinstance(param, click.Option):
            continue
        assert param.help, f"channelkit {name} {param.opts[0]} has no help text"
        if param.envvar:
            assert param.show_envvar, f"channelkit {name} {param.opts[0]} hides its env var"
    if any(isinstance(p, click.Option) and p.name == "tz" for p in command.params):
        tz = next(p for p in command.params if p.name == "tz")
        assert tz.envvar == "CHANNELKIT_TZ", f"channelkit {name} --tz ignores CHANNELKIT_TZ"
    # `keys create` prints nothing but the key it makes: quiet would throw the key away.
    if not isinstance(command, click.Group) and name != "keys create":
        options = {p.name for p in command.params}
        assert "quiet" in options, f"channelkit {name} has no --quiet"


def test_output_keeps_line_breaks_but_escapes_what_could_take_over_the_terminal() -> None:
    """A multi-line result (serve's keys table) stays a table; an escape in a cell is shown."""

    @click.command()
    def show() -> None:
        out = Output.from_options()
        out.result("name  key\nadmin ck_x\n\x1b[2Jtitle\u202e")
        out.error("row 2\nrow 3 \x1b[31m")

    result = CliRunner().invoke(show)
    assert result.output.splitlines() == [
        "name  key",
        "admin ck_x",
        "\\x1b[2Jtitle\\u202e",
        "row 2",
        "row 3 \\x1b[31m",
    ]


# --- shared service options: one value, one place -----------------------------------------


def _leaf_commands(group: click.Group, ctx: click.Context) -> list[click.Command]:
    leaves: list[click.Command] = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            leaves.extend(_leaf_commands(command, ctx))
        else:
            leaves.append(command)
    return leaves


def _flags(decorator: Callable[[Any], Any]) -> set[str]:
    """The parameter names a shared options decorator gives a command."""
    return {str(p.name) for p in click.command()(decorator(lambda **_: None)).params}


# The shared flags as `_cli.py` declares them: a new shared option is checked without
# being listed here
SERVICE_FLAGS = _flags(service_options())
OUTPUT_FLAGS = _flags(output_options(json_summary=True, progress=True))


def test_the_shared_flags_are_read_from_their_declarations() -> None:
    assert {f.name for f in dataclasses.fields(ServiceOptions)} == SERVICE_FLAGS
    assert {"base_url", "api_key"} < SERVICE_FLAGS and "quiet" in OUTPUT_FLAGS


# A value unlike the default for each type a shared flag may have (a new type: add it here)
_GIVEN: dict[str, object] = {
    "str | None": "http://127.0.0.1:9/v1",
    "float | None": 7.0,
    "int | None": 3,
}


def test_every_shared_flag_reaches_the_client() -> None:
    """Each field of `ServiceOptions` changes the `Client(...)` keywords when given: a shared
    flag that stops at the options (its field and option added, the client never told) is
    red here, whichever flag it is (found by following the recipe for `--max-retries`)."""
    base = {"base_url": "http://127.0.0.1:8000/v1", "api_key": "ck_test_reaches"}
    plain = ServiceOptions(**base).config().client_settings()  # type: ignore[arg-type]
    for field in dataclasses.fields(ServiceOptions):
        value = _GIVEN.get(str(field.type))
        assert value is not None, f"give _GIVEN a value for {field.name}: {field.type}"
        if field.name == "api_key":
            value = "ck_test_another"
        given = ServiceOptions(**(base | {field.name: value})).config().client_settings()  # type: ignore[arg-type]
        assert given != plain, f"ServiceOptions.{field.name} never reaches Client(...)"


def test_every_command_takes_the_service_options_as_one_value() -> None:
    import inspect

    with click.Context(main) as ctx:
        commands = _leaf_commands(main, ctx)
    talking = [c for c in commands if any(p.name == "base_url" for p in c.params)]
    assert {c.name for c in talking} >= {"sync", "report", "schedule", "export"}
    for command in talking:
        assert command.callback is not None
        taken = inspect.signature(inspect.unwrap(command.callback)).parameters
        assert "service" in taken and not SERVICE_FLAGS & set(taken), command.name


def test_every_command_is_a_thin_shell() -> None:
    """Its own flags arrive as one frozen `options`, the service flags as `service`, the
    output flags as `output`; nothing else, so that every command reads alike."""
    import dataclasses
    import inspect

    with click.Context(main) as ctx:
        commands = _leaf_commands(main, ctx)
    for command in commands:
        assert command.callback is not None
        taken = inspect.signature(inspect.unwrap(command.callback)).parameters
        assert "options" in taken and set(taken) <= {"options", "service", "output"}, command.name
        module = sys.modules[command.callback.__module__]
        options = getattr(module, str(taken["options"].annotation))
        assert options.__dataclass_params__.frozen, command.name
        flags = {p.name for p in command.params} - OUTPUT_FLAGS
        own = flags - SERVICE_FLAGS if "service" in taken else flags
        assert own == {f.name for f in dataclasses.fields(options)}, command.name


def test_every_command_runs_its_work_in_run_command() -> None:
    """One naming rule: `channelkit NAME` hands its values to `run_NAME_command`
    (docs/architecture.md), a name no library function has."""
    import inspect

    with click.Context(main) as ctx:
        commands = _leaf_commands(main, ctx)
    for command in commands:
        assert command.callback is not None
        source = inspect.getsource(inspect.unwrap(command.callback))
        runner = f"run_{str(command.name).replace('-', '_')}_command("
        assert runner in source, f"channelkit {command.name} calls no {runner}...)"


def test_user_errors_says_what_could_not_be_written_and_whose_parameter_was_bad(
    tmp_path: Path,
) -> None:
    from channelkit._cli import user_errors
    from channelkit.errors import InvalidParameterError, SpreadsheetError

    target = tmp_path / "results.xlsx"
    for failure, reason in (
        (PermissionError(13, "Permission denied"), "Permission denied"),
        (InvalidParameterError("path", "the folder x does not exist"), "the folder x does not"),
    ):
        with pytest.raises(click_exceptions.ClickException) as refused:
            with user_errors(writing=target):
                raise failure
        assert refused.value.exit_code == 1
        assert refused.value.format_message().startswith(f"cannot write {target}: {reason}")
    with pytest.raises(click_exceptions.ClickException) as bad_file:
        with user_errors():
            raise SpreadsheetError("posts.xlsx: the file is empty")
    assert bad_file.value.exit_code == 2 and not isinstance(bad_file.value, click.UsageError)
    with pytest.raises(click_exceptions.UsageError) as config:
        with user_errors(parameters="text"):
            raise InvalidParameterError("deliver.toml: smpt", "unknown section")
    assert config.value.format_message() == "deliver.toml: smpt: unknown section"
    with pytest.raises(click_exceptions.ClickException) as own_step:
        with user_errors(prefix="sync failed: ", parameters="refusal"):
            raise InvalidParameterError("db", "locked")
    assert own_step.value.exit_code == 1
    assert own_step.value.format_message() == "sync failed: --db: locked"


def test_service_options_arrive_checked_and_never_show_the_key() -> None:
    from channelkit._cli import ServiceOptions, service_options

    seen: list[ServiceOptions] = []

    @click.command()
    @service_options()
    @click.option("--other")
    def probe(service: ServiceOptions, other: str | None) -> None:
        seen.append(service)
        click.echo(repr(service.config()))

    result = CliRunner().invoke(
        probe,
        ["--base-url", "http://127.0.0.1:8000/v1/", "--other", "x"],
        env={"CHANNELKIT_API_KEY": "ck_secret_value"},
    )
    assert result.exit_code == 0, result.output
    assert seen == [ServiceOptions("http://127.0.0.1:8000/v1/", "ck_secret_value")]
    assert seen[0].config().client_settings() == {
        "base_url": "http://127.0.0.1:8000/v1",
        "api_key": "ck_secret_value",
    }
    assert "ck_secret_value" not in result.output + repr(seen[0])
    missing = CliRunner().invoke(probe, [], env={"CHANNELKIT_API_KEY": "k"})
    assert missing.exit_code == 2 and "--base-url: no service URL given" in missing.output
