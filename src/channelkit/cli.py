"""The `channelkit` command line: one subcommand per part of the flow.

Each part keeps its commands beside its code (`service/cli.py`, `sync/cli.py`, ...); this
module only names them (the helpers they share are in the leaf module `_cli.py`). A
command's module is imported when that command runs, so that `channelkit sync` does not
pay for plotly and `channelkit --version` pays for nothing.
User mistakes surface as `click.ClickException`/`UsageError` (a one-line message, exit code
1 or 2), never as a traceback.
"""

from __future__ import annotations

import importlib

import click

from channelkit import __version__

# command name -> "module:attribute", in the order `channelkit --help` lists them
_COMMANDS: dict[str, str] = {
    "demo": "channelkit.demo:demo",
    "serve": "channelkit.service.cli:serve",
    "keys": "channelkit.service.cli:keys",
    "sync": "channelkit.sync.cli:sync",
    "report": "channelkit.reports.cli:report",
    "template": "channelkit.publish.cli:template",
    "schedule": "channelkit.publish.cli:schedule",
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
