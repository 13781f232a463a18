"""`channelkit sync`: pull posts, channels and analytics into DuckDB (and Parquet).

What is printed follows `channelkit.cli`'s convention: the summary on stdout (or one JSON
object with `--json`), nothing with `--quiet`; a run that did not complete puts its summary
and a closing line that fits the failure on stderr and exits 1.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

import click

from channelkit._cli import (
    Day,
    Number,
    Output,
    ServiceOptions,
    connection_hint,
    options_value,
    output_options,
    reach,
    service_options,
    stop_if_interrupted,
    user_errors,
    warehouse_option,
)
from channelkit._constants import (
    CLI_COUNT_MAX,
    CLI_DAYS_MAX,
    ENV_API_KEY,
    SYNC_BATCH_ROWS,
    SYNC_CONVERGENCE_RUNS,
    SYNC_LOOKBACK_DAYS,
    SYNC_PAGE_LIMIT,
)
from channelkit._job_runs import traced
from channelkit._resources import GROUPS
from channelkit.errors import APIConnectionError
from channelkit.sync.options import SyncOptions


@dataclass(frozen=True)
class SyncFlags:
    """`channelkit sync`'s own flags, as given; `options()` checks them into the one
    `SyncOptions` (with the library's wording) and refuses a --db that cannot be.

    >>> SyncFlags(Path("warehouse.duckdb")).options().lookback_days == SYNC_LOOKBACK_DAYS
    True
    """

    db: Path
    parquet: Path | None = None
    lake: str | None = None
    full: bool = False
    since: str | None = None
    only: str | None = None
    lookback_days: int = SYNC_LOOKBACK_DAYS
    convergence_runs: int = SYNC_CONVERGENCE_RUNS
    page_limit: int = SYNC_PAGE_LIMIT
    batch_rows: int = SYNC_BATCH_ROWS
    new_view: bool = False

    def options(self) -> SyncOptions:
        if not self.db.parent.is_dir():
            raise click.BadParameter(
                f"the folder {str(self.db.parent)!r} does not exist; create it or choose "
                "another file",
                param_hint="--db",
            )
        return SyncOptions.check(
            **{f.name: getattr(self, f.name) for f in fields(self) if f.name != "db"}
        )


@click.command("sync")
@options_value(SyncFlags, "options")
@service_options()
@warehouse_option("The DuckDB warehouse file (created when missing).")
@click.option(
    "--parquet",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Also export every table as Parquet under this directory (a snapshot).",
)
@click.option(
    "--lake",
    metavar="DIR_OR_URL",
    default=None,
    help="Also keep a Delta Lake copy there (a directory or s3://bucket/prefix; "
    "credentials from the AWS_* environment variables), merged with each run's changes.",
)
@click.option("--full", is_flag=True, help="Re-read everything and detect deletions.")
@click.option(
    "--since",
    type=Day(),
    metavar="DATE",
    help="Only posts and analytics from this date on (YYYY-MM-DD, UTC).",
)
@click.option(
    "--only",
    metavar="LIST",
    help=f"Comma-separated subset of {','.join(GROUPS)} (default: all).",
)
@click.option(
    "--lookback-days",
    type=Number(int, 0, CLI_DAYS_MAX, "a whole number of days"),
    default=SYNC_LOOKBACK_DAYS,
    show_default=True,
    help="Re-read posts published and analytics days within this many days.",
)
@click.option(
    "--convergence-runs",
    type=Number(int, 1, CLI_COUNT_MAX, "a number of runs"),
    default=SYNC_CONVERGENCE_RUNS,
    show_default=True,
    help="Incremental runs within which all older history is re-read once.",
)
@click.option(
    "--page-limit",
    # the service's own limit is SyncOptions.check's, which says whose limit it is
    type=Number(int, 1, CLI_COUNT_MAX, "a number of items"),
    default=SYNC_PAGE_LIMIT,
    show_default=True,
    help="Items per page asked of the service.",
)
@click.option(
    "--batch-rows",
    type=Number(int, 1, CLI_COUNT_MAX, "a number of rows"),
    default=SYNC_BATCH_ROWS,
    show_default=True,
    help="Rows per committed batch (a checkpoint after each).",
)
@click.option(
    "--new-view",
    is_flag=True,
    help="Accept a key that sees fewer channels than the one that filled the warehouse "
    "(what it cannot see is then marked deleted).",
)
@output_options(json_summary=True, progress=True)
def sync(options: SyncFlags, service: ServiceOptions, output: Output) -> None:
    """Sync the service into a local DuckDB warehouse; incremental after the first run.

    Prints a summary (new/updated/unchanged/deleted per table, requests, waits) and exits
    1 when the sync did not complete; what it committed is kept and the next run continues
    from it.
    """
    with traced("sync", options.db, creates=True), user_errors():
        run_sync_command(options, service, output)


def run_sync_command(flags: SyncFlags, service: ServiceOptions, output: Output) -> None:
    """`channelkit sync`: the flags checked, the sync run, its summary and closing line."""
    from channelkit.client import Client
    from channelkit.sync import runner

    options = flags.options()
    config = service.config()
    db = flags.db
    existed = db.exists()
    with Client(**config.client_settings()) as client:
        try:
            reach(client, config, output.warn)
        except APIConnectionError as exc:
            # Before the first row: the same closing line as any run that committed nothing.
            closing = _closing_line(exc.message, 0, not existed, db, resumable=False)
            raise click.ClickException(f"{exc.message}\n{closing}") from None
        report = runner.run_sync(client, db, options, progress=output.progress)
    stop_if_interrupted()
    committed = sum(sum(counts.as_dict().values()) for counts in report.counts.values())
    removed = False
    if not report.completed and not existed and committed == 0:
        # A first sync that failed before writing a row leaves nothing a reader could mistake
        # for a warehouse.
        removed = _remove_warehouse(db)
    output.json({**report.as_dict(), "rows_committed": committed, "warehouse_removed": removed})
    output.result(report.summary(error=False))  # an error is said once, on stderr below
    if report.completed:
        if options.parquet is not None:
            output.result(f"parquet datasets written under {options.parquet}")
        return
    # One line on stderr: under cron the reason arrives even with --quiet.
    reason = report.error or "the sync did not complete"
    raise click.ClickException(
        f"{reason}\n{_closing_line(reason, committed, removed, db, resumable=report.resumable)}"
    )


def _closing_line(error: str, committed: int, removed: bool, db: Path, *, resumable: bool) -> str:
    """What to do now, decided by the kind of failure and by what was committed."""
    lowered = error.lower()
    if "401 unauthorized" in lowered:
        action = f"the API key was refused: fix {ENV_API_KEY} (or --api-key) and run again"
    elif "403 forbidden" in lowered:
        action = (
            "the API key lacks a scope: use a key with posts:read, channels:read, analytics:read"
        )
    elif "connection failed" in lowered or "timed out" in lowered or "connect" in lowered:
        hint = connection_hint(error)
        action = "the service could not be reached" + (f" ({hint})" if hint else "")
    elif "interrupted" in lowered:
        action = "the sync was interrupted"
    else:
        action = "the sync did not complete"
    if committed and resumable:
        kept = f"the {committed} rows committed are kept in {db}; a rerun continues from them"
    elif committed:
        kept = f"the {committed} rows committed are kept in {db}; fix the cause, then run again"
    elif removed:
        kept = f"nothing was committed and {db} was not created"
    else:
        kept = f"nothing new was committed; {db} is as it was"
    return f"{action}; {kept}"


def _remove_warehouse(db: Path) -> bool:
    for path in (db, db.with_name(db.name + ".wal")):
        try:
            path.unlink(missing_ok=True)
        except OSError:
            return False
    return True
