"""`channelkit sync`: pull posts, channels and analytics into DuckDB (and Parquet)."""

from __future__ import annotations

from pathlib import Path

import click

from channelkit._constants import (
    SYNC_BATCH_ROWS,
    SYNC_CONVERGENCE_RUNS,
    SYNC_LOOKBACK_DAYS,
    SYNC_PAGE_LIMIT,
    WAREHOUSE_PATH,
)
from channelkit._spec import PAGE_LIMIT_MAX
from channelkit.cli import service_options, user_errors


@click.command("sync")
@service_options()
@click.option(
    "--db",
    "db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=WAREHOUSE_PATH,
    show_default=True,
    help="The DuckDB warehouse file (created when missing).",
)
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
@click.option("--since", metavar="DATE", help="Only posts and analytics from this date on.")
@click.option(
    "--only",
    metavar="LIST",
    help="Comma-separated subset of posts,channels,analytics (default: all).",
)
@click.option(
    "--lookback-days",
    type=click.IntRange(min=0),
    default=SYNC_LOOKBACK_DAYS,
    show_default=True,
    help="Re-read posts published and analytics days within this many days.",
)
@click.option(
    "--convergence-runs",
    type=click.IntRange(min=1),
    default=SYNC_CONVERGENCE_RUNS,
    show_default=True,
    help="Incremental runs within which all older history is re-read once.",
)
@click.option(
    "--page-limit",
    type=click.IntRange(1, PAGE_LIMIT_MAX),
    default=SYNC_PAGE_LIMIT,
    show_default=True,
    help="Items per page asked of the service.",
)
@click.option(
    "--batch-rows",
    type=click.IntRange(min=1),
    default=SYNC_BATCH_ROWS,
    show_default=True,
    help="Rows per committed batch (a checkpoint after each).",
)
@click.option(
    "--progress/--no-progress",
    default=True,
    help="Progress bars (only shown on a terminal).",
)
def sync(
    base_url: str | None,
    api_key: str | None,
    db: Path,
    parquet: Path | None,
    lake: str | None,
    full: bool,
    since: str | None,
    only: str | None,
    lookback_days: int,
    convergence_runs: int,
    page_limit: int,
    batch_rows: int,
    progress: bool,
) -> None:
    """Sync the service into a local DuckDB warehouse; incremental after the first run.

    Prints a summary (new/updated/unchanged/deleted per table, requests, rate-limit
    waits) and exits non-zero when the sync did not complete; run it again to continue
    where it stopped.
    """
    from channelkit.client import Client
    from channelkit.sync.runner import run_sync

    with user_errors(), Client(base_url=base_url, api_key=api_key) as client:
        report = run_sync(
            client,
            db,
            full=full,
            since=since,
            only=only,
            lookback_days=lookback_days,
            parquet=parquet,
            lake=lake,
            convergence_runs=convergence_runs,
            progress=progress,
            page_limit=page_limit,
            batch_rows=batch_rows,
        )
    click.echo(report.summary())
    if parquet is not None and report.completed:
        click.echo(f"parquet datasets written under {parquet}")
    if not report.completed:
        raise click.ClickException(
            "the sync did not complete (error above); the batches it committed are kept "
            "and the next run continues from them"
            if report.resumable
            else "the sync did not complete (error above); fix that first, then run it again"
        )
