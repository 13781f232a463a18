"""`channelkit status`: the last syncs, how fresh the warehouse is, and whether the last
run's volume was usual, read from the warehouse alone (no service, no key).

    channelkit status --db warehouse.duckdb
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import click

from channelkit._cli import (
    Number,
    Output,
    options_value,
    output_options,
    user_errors,
    warehouse_option,
)
from channelkit._constants import CLI_COUNT_MAX, STATUS_RUNS_SHOWN
from channelkit._job_runs import ago, watcher_note


@dataclass(frozen=True)
class StatusOptions:
    """`channelkit status`'s flags.

    >>> StatusOptions(Path("warehouse.duckdb")).runs == STATUS_RUNS_SHOWN
    True
    """

    db: Path
    runs: int = STATUS_RUNS_SHOWN


@click.command("status")
@options_value(StatusOptions, "options")
@warehouse_option()
@click.option(
    "--runs",
    type=Number(int, 1, CLI_COUNT_MAX, "a number of runs"),
    default=STATUS_RUNS_SHOWN,
    show_default=True,
    help="How many of the last runs to list.",
)
@output_options(json_summary=True)
def status(options: StatusOptions, output: Output) -> None:
    """Show the last syncs, the warehouse's freshness, and a run whose volume was unusual.

    Reads only the warehouse file. Lists the last runs (outcome, duration, requests,
    pages, 429s, seconds waited, rows read), the last completed sync and the newest data,
    and warns when the last completed run read far more or far less than the runs of the
    same mode before it.
    """
    with user_errors():
        run_status_command(options, output)


def run_status_command(options: StatusOptions, output: Output) -> None:
    from channelkit.analysis.freshness import read_freshness
    from channelkit.analysis.runs import last_volume, read_sync_runs
    from channelkit.storage.connection import open_warehouse

    if not options.db.exists():
        raise click.BadParameter(
            f"{str(options.db)!r} does not exist; run `channelkit sync --db {options.db}` first",
            param_hint="--db",
        )
    # Not `Warehouse`, which refuses a file without a completed sync: the runs of a first
    # sync that failed are what status is for.
    con = open_warehouse(options.db, read_only=True)
    try:
        runs = read_sync_runs(con)
        fresh = read_freshness(con)
    finally:
        con.close()
    volume = last_volume(runs)
    shown = runs.tail(options.runs)
    watcher = watcher_note(options.db, datetime.now(UTC))
    output.json(
        {
            "runs": [_jsonable(row) for row in shown.to_dict("records")],
            "last_sync_at": fresh.last_sync_at,
            "row_counts": fresh.row_counts,
            "unusual_volume": bool(volume and volume.unusual),
            "watcher": watcher,
        }
    )
    output.result(_runs_table(shown))
    output.result(_freshness_lines(fresh, _last_view(runs)))
    if watcher is not None:
        output.warn(watcher)
    if volume is not None and volume.unusual:
        output.warn(
            f"the last {volume.mode} run read {volume.rows_read:,} rows; the usual for "
            f"{volume.mode} runs is {volume.usual:,.0f} (the median of the {volume.earlier_runs}"
            " before it): check the service, the key's scopes and --only/--since"
        )


def _runs_table(runs: Any) -> str:
    if runs.empty:
        return "no sync has run into this warehouse yet"
    lines = [
        f"{'started (UTC)':<17} {'outcome':<10} {'mode':<12} {'seconds':>8} {'requests':>9} "
        f"{'pages':>6} {'429s':>5} {'waited':>7} {'rows read':>10}"
    ]
    for row in runs.itertuples():
        seconds = f"{row.seconds:.1f}" if row.seconds is not None else "-"
        waited = f"{row.wait_seconds:.1f}" if _known(row.wait_seconds) else "-"
        lines.append(
            f"{row.started_at:%Y-%m-%d %H:%M} {row.outcome:<10} {row.mode:<12} {seconds:>8} "
            f"{_int(row.requests):>9} {_int(row.pages):>6} {_int(row.responses_429):>5} "
            f"{waited:>7} {row.rows_read:>10,}"
        )
        if row.unknown_fields:
            named = "; ".join(f"{t}: {', '.join(f)}" for t, f in row.unknown_fields.items())
            lines.append(f"  fields the contract does not name: {named}")
        for note in row.notes:
            lines.append(f"  note: {note}")
        if row.error:
            lines.append(f"  error: {row.error}")
    return "\n".join(lines)


def _last_view(runs: Any) -> str | None:
    """The view of the last completed run (`sync.view`), None when none recorded one."""
    done = runs[(runs["outcome"] == "completed") & runs["view"].notna()]
    return None if done.empty else str(done["view"].iloc[-1])


def _freshness_lines(fresh: Any, view: str | None) -> str:
    if fresh.last_sync_at is None:
        return "no sync has completed yet"
    through = f", through {view}" if view else ""
    age = fresh.age(datetime.now(UTC)) or timedelta(0)
    counts = ", ".join(f"{table} {n:,}" for table, n in fresh.row_counts.items())
    newest = fresh.last_published_at.strftime("%Y-%m-%d %H:%M") if fresh.last_published_at else "-"
    return (
        f"last completed sync: {fresh.last_sync_at:%Y-%m-%d %H:%M} UTC ({_ago(age)}, "
        f"{fresh.last_sync_mode}) from {fresh.base_url}{through}\n"
        f"rows: {counts}\n"
        f"newest post published: {newest}; newest analytics day: "
        f"posts {fresh.last_post_day or '-'}, channels {fresh.last_channel_day or '-'}"
    )


def _ago(age: timedelta) -> str:
    return f"{ago(age)} ago"


def _known(value: Any) -> bool:
    return value is not None and value == value  # NaN: a run recorded before the column


def _int(value: Any) -> str:
    return f"{int(value):,}" if _known(value) else "-"


def _jsonable(row: dict[Any, Any]) -> dict[Any, Any]:
    return {
        k: (None if not isinstance(v, dict | list | str) and not _known(v) else v)
        for k, v in row.items()
    }
