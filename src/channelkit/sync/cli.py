"""`channelkit sync`: pull posts, channels and analytics into DuckDB (and Parquet).

What is printed follows `channelkit.cli`'s convention: the summary on stdout (or one JSON
object with `--json`), nothing with `--quiet`; a run that did not complete puts its summary
and a closing line that fits the failure on stderr and exits 1.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from channelkit._cli import (
    Output,
    ServiceOptions,
    connection_hint,
    date_problem,
    options_value,
    output_options,
    service_options,
    stop_if_interrupted,
    user_errors,
)
from channelkit._constants import (
    ENV_API_KEY,
    SYNC_BATCH_ROWS,
    SYNC_CONVERGENCE_RUNS,
    SYNC_LOOKBACK_DAYS,
    SYNC_PAGE_LIMIT,
    WAREHOUSE_PATH,
)
from channelkit._resources import GROUPS
from channelkit._spec import PAGE_LIMIT_MAX
from channelkit._suggest import choices_text

# the `--only` names; the runner maps them to tables
_ONLY_CHOICES = tuple(GROUPS)  # the --only groups of the synced resources


class _Since(click.ParamType[Any, Any]):
    """`--since`: a date (00:00 UTC) or an RFC 3339 timestamp with an offset."""

    name = "date"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from channelkit.sync.windows import parse_since

        if not isinstance(value, str):
            return value
        try:
            parse_since(value)
        except ValueError:
            text = value.strip()
            if len(text) > 10 and "T" in text.upper():
                try:
                    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
                except ValueError:
                    pass
                else:
                    if parsed.tzinfo is None:
                        self.fail(
                            f"{text!r} needs an offset, e.g. {text}Z (UTC) or {text}+01:00",
                            param,
                            ctx,
                        )
            self.fail(date_problem(text) + " (or a timestamp with offset)", param, ctx)
        return value.strip()


class _Only(click.ParamType[Any, Any]):
    """`--only`: a comma-separated subset of posts, channels, analytics."""

    name = "list"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        names = [part.strip().lower() for part in value.split(",") if part.strip()]
        for name in names:
            if name not in _ONLY_CHOICES:
                self.fail(f"{name!r} is not a part to sync; {choices_text(name, _ONLY_CHOICES)}")
        if not names:
            self.fail(f"give some of {', '.join(_ONLY_CHOICES)}, separated by commas")
        return ",".join(names)


@dataclass(frozen=True)
class SyncOptions:
    """`channelkit sync`'s own flags, as given; `check()` refuses a --db that cannot be.

    >>> SyncOptions(Path("warehouse.duckdb")).lookback_days == SYNC_LOOKBACK_DAYS
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

    def check(self) -> None:
        if not self.db.parent.is_dir():
            raise click.BadParameter(
                f"the folder {str(self.db.parent)!r} does not exist; create it or choose "
                "another file",
                param_hint="--db",
            )


@click.command("sync")
@options_value(SyncOptions, "options")
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
@click.option(
    "--since",
    type=_Since(),
    metavar="DATE",
    help="Only posts and analytics from this date on (YYYY-MM-DD, UTC).",
)
@click.option(
    "--only",
    type=_Only(),
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
@output_options(json_summary=True, progress=True)
def sync(options: SyncOptions, service: ServiceOptions, output: Output) -> None:
    """Sync the service into a local DuckDB warehouse; incremental after the first run.

    Prints a summary (new/updated/unchanged/deleted per table, requests, waits) and exits
    1 when the sync did not complete; what it committed is kept and the next run continues
    from it.
    """
    with user_errors():
        run_sync(options, service, output)


def run_sync(options: SyncOptions, service: ServiceOptions, output: Output) -> None:
    """`channelkit sync`: the flags checked, the sync run, its summary and closing line."""
    from channelkit.client import Client
    from channelkit.sync import runner

    config = service.config()
    options.check()
    db = options.db
    existed = db.exists()
    with Client(**config.client_settings()) as client:
        report = runner.run_sync(
            client,
            db,
            full=options.full,
            since=options.since,
            only=options.only,
            lookback_days=options.lookback_days,
            parquet=options.parquet,
            lake=options.lake,
            convergence_runs=options.convergence_runs,
            progress=output.progress,
            page_limit=options.page_limit,
            batch_rows=options.batch_rows,
        )
    stop_if_interrupted()
    committed = sum(sum(counts.as_dict().values()) for counts in report.counts.values())
    removed = False
    if not report.completed and not existed and committed == 0:
        # A first sync that failed before writing a row leaves nothing a reader could mistake
        # for a warehouse.
        removed = _remove_warehouse(db)
    output.json({**report.as_dict(), "rows_committed": committed, "warehouse_removed": removed})
    output.result(report.summary())
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
