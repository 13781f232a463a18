"""The `channelkit` command group: every listed command loads and explains itself."""

from __future__ import annotations

import pytest
from click import exceptions as click_exceptions
from click.testing import CliRunner

from channelkit.cli import _COMMANDS, main


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
