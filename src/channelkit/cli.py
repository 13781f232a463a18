"""The `channelkit` command line: one subcommand per part of the flow.

Each part keeps its commands beside its code (`service/cli.py`, `sync/cli.py`, ...); this
module only assembles them. User mistakes surface as `click.ClickException`/`UsageError`
(a one-line message, exit code 1 or 2), never as a traceback.
"""

from __future__ import annotations

import click

from channelkit import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="channelkit")
def main() -> None:
    """channelkit: work with the Publishing and Channel Service from the shell."""


# Each part registers its commands below, one line per command.
from channelkit.reports.cli import report  # noqa: E402

main.add_command(report)

from channelkit.service.cli import keys, serve  # noqa: E402

main.add_command(serve)
main.add_command(keys)

from channelkit.publish.cli import schedule, template  # noqa: E402

main.add_command(template)
main.add_command(schedule)

from channelkit.sync.cli import sync  # noqa: E402

main.add_command(sync)

from channelkit.demo import demo  # noqa: E402

main.add_command(demo)
