"""The `channelkit` command line: one subcommand per part of the flow.

Each part keeps its commands beside its code (`service/cli.py`, `sync/cli.py`, ...); this
module only names them. A command's module is imported when that command runs, so that
`channelkit sync` does not pay for plotly and `channelkit --version` pays for nothing.
User mistakes surface as `click.ClickException`/`UsageError` (a one-line message, exit code
1 or 2), never as a traceback.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Iterator

import click
from click.decorators import FC

from channelkit import __version__
from channelkit._constants import ENV_API_KEY, ENV_BASE_URL
from channelkit.errors import ChannelkitError

# command name -> "module:attribute", in the order `channelkit --help` lists them
_COMMANDS: dict[str, str] = {
    "demo": "channelkit.demo:demo",
    "serve": "channelkit.service.cli:serve",
    "keys": "channelkit.service.cli:keys",
    "sync": "channelkit.sync.cli:sync",
    "report": "channelkit.reports.cli:report",
    "deliver": "channelkit.reports.deliver.cli:deliver",
    "template": "channelkit.publish.cli:template",
    "schedule": "channelkit.publish.cli:schedule",
    "calendar": "channelkit.publish.calendar_cli:calendar",
}


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="channelkit")
def main() -> None:
    """channelkit: work with the Publishing and Channel Service from the shell."""


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn channelkit's own errors into one-line messages, the same way in every command.

    A bad parameter (channelkit's errors that are also `ValueError`) exits 2 like a bad
    flag; anything else channelkit refuses exits 1.
    """
    try:
        yield
    except ChannelkitError as exc:
        if isinstance(exc, ValueError):
            raise click.UsageError(str(exc)) from None
        raise click.ClickException(str(exc)) from None


def service_options(when: str | None = None) -> Callable[[FC], FC]:
    """`--base-url` and `--api-key`, defaulting to the environment, alike in every command.

    `when` prefixes the help of commands that only sometimes talk to the service
    ("With --sync").
    """
    prefix = f"{when}. " if when else ""

    def decorate(command: FC) -> FC:
        command = click.option(
            "--api-key",
            envvar=ENV_API_KEY,
            show_envvar=True,
            metavar="KEY",
            help=f"{prefix}API key (prefer the environment variable: a flag shows in `ps`).",
        )(command)
        return click.option(
            "--base-url",
            envvar=ENV_BASE_URL,
            show_envvar=True,
            metavar="URL",
            help=f"{prefix}The service's base URL, ending in /v1.",
        )(command)

    return decorate
