"""`channelkit deliver CONFIG.toml`: cron-friendly; exit 1 with one line per failure."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import click

from channelkit._cli import (
    Output,
    options_value,
    output_options,
    settings_file_argument,
    user_errors,
    warehouse_option,
)
from channelkit._constants import DELIVER_UNKNOWN_CHOICES
from channelkit._job_runs import traced
from channelkit.reports.cli import DURATION


@dataclass(frozen=True)
class DeliverOptions:
    """`channelkit deliver`'s own flags, as given.

    >>> DeliverOptions(Path("deliver.toml"), Path("warehouse.duckdb"), dry_run=True).dry_run
    True
    """

    config: Path
    db: Path
    dry_run: bool = False
    force: str | None = None
    unknown: str | None = None
    max_age: timedelta | None = None


@click.command("deliver")
@options_value(DeliverOptions, "options")
@settings_file_argument("config")
@warehouse_option(
    "Warehouse file written by `channelkit sync`, only read; what was sent is recorded beside "
    "it (FILE.delivered.sqlite3)."
)
@click.option("--dry-run", is_flag=True, help="Print what would be sent; send nothing.")
@click.option("--force", metavar="NAME", help="Send this report again to all its targets.")
@click.option(
    "--unknown",
    type=click.Choice(DELIVER_UNKNOWN_CHOICES),
    help="Targets a killed run was sending (said 'unknown'): send them again (resend), or "
    "record them as received (sent). Check the recipients first.",
)
@click.option(
    "--max-age",
    type=DURATION,
    help="Send nothing, and say why, when the last completed sync is older than this (e.g. 26h).",
)
@output_options(quiet_help="Print only failures (on stderr).")
def deliver(options: DeliverOptions, output: Output) -> None:
    """Send each report of CONFIG.toml whose last complete period is due, once per target.

    \b
    channelkit deliver deliver.toml --db warehouse.duckdb
    channelkit deliver deliver.toml --db warehouse.duckdb --dry-run
    channelkit deliver deliver.toml --db warehouse.duckdb --force weekly-all-hands

    Run it as often as you like, beside a sync and any notebook reading the warehouse:
    each target is recorded as being sent before it is sent, and as sent after. Exits 1
    with one line per report and target that failed (retried on the next run) or whose
    last send a killed run left unknown (sent again only with --unknown resend).
    """
    with traced("deliver", options.db), user_errors():
        run_deliver_command(options, output)


def run_deliver_command(options: DeliverOptions, output: Output) -> None:
    """`channelkit deliver`: the config read, every due report sent, a line per target."""
    from channelkit.reports.deliver.config import load_config
    from channelkit.reports.deliver.run import deliver as deliver_reports

    def say(line: str) -> None:
        if not output.quiet:
            click.echo(line, err=True)

    # "deliver.toml: reports[0].email: ..." names the file and key, not a flag.
    with user_errors(parameters="text"):
        settings = load_config(options.config)
    outcomes = deliver_reports(
        settings,
        options.db,
        dry_run=options.dry_run,
        force=options.force,
        unknown=options.unknown,
        max_age=options.max_age,
        say=say,
    )
    failed = [o for o in outcomes if o.status in ("failed", "not sent", "unknown")]
    for outcome in outcomes:
        if outcome in failed:
            click.echo(outcome.line, err=True)
        elif not output.quiet:
            click.echo(outcome.line)
    if failed:
        raise SystemExit(1)
