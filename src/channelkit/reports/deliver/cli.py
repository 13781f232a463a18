"""`channelkit deliver CONFIG.toml`: cron-friendly; exit 1 with one line per failure."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import click

from channelkit._cli import user_errors
from channelkit._constants import WAREHOUSE_PATH
from channelkit.errors import InvalidParameterError
from channelkit.reports.cli import DURATION


@click.command("deliver")
@click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=WAREHOUSE_PATH,
    show_default=True,
    help="Warehouse file written by `channelkit sync`; it also keeps the delivery ledger.",
)
@click.option("--dry-run", is_flag=True, help="Print what would be sent; send nothing.")
@click.option("--force", metavar="NAME", help="Send this report again to all its targets.")
@click.option(
    "--max-age",
    type=DURATION,
    help="Send nothing, and say why, when the last completed sync is older than this (e.g. 26h).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only failures (on stderr).")
def deliver(
    config: Path,
    db: Path,
    dry_run: bool,
    force: str | None,
    max_age: timedelta | None,
    quiet: bool,
) -> None:
    """Send each report of CONFIG.toml whose last complete period is due, once per target.

    \b
    channelkit deliver deliver.toml --db warehouse.duckdb
    channelkit deliver deliver.toml --db warehouse.duckdb --dry-run
    channelkit deliver deliver.toml --db warehouse.duckdb --force weekly-all-hands

    Run it as often as you like: the warehouse records what was sent. Exits 1 with one
    line per report and target that failed; those are retried on the next run.
    """
    from channelkit.reports.deliver.config import load_config
    from channelkit.reports.deliver.run import deliver as run_deliver

    def say(line: str) -> None:
        if not quiet:
            click.echo(line, err=True)

    try:
        settings = load_config(config)
    except InvalidParameterError as exc:  # "deliver.toml: reports[0].email: ...", not a flag
        raise click.UsageError(str(exc)) from None
    with user_errors():
        outcomes = run_deliver(settings, db, dry_run=dry_run, force=force, max_age=max_age, say=say)
    failed = [o for o in outcomes if o.status in ("failed", "not sent")]
    for outcome in outcomes:
        if outcome in failed:
            click.echo(outcome.line, err=True)
        elif not quiet:
            click.echo(outcome.line)
    if failed:
        raise SystemExit(1)
