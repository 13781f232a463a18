"""The record of every sync (`sync_runs`) as a DataFrame, and whether the last run's volume
was usual (`channelkit status`)."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from typing import Any

import duckdb
import pandas as pd

from channelkit._constants import SYNC_USUAL_RUNS, SYNC_VOLUME_FACTOR
from channelkit._resources import RESOURCES
from channelkit.sync.view import KeyView

_KINDS = ("new", "updated", "unchanged", "deleted")
_COST = ("requests", "pages", "responses_429", "retries", "rate_limit_waits", "wait_seconds")
# How its working copy came to be ("clone", "copy", "continued", "new") and its seconds.
_START = ("start_copy", "start_copy_seconds")
# Columns of sync_runs shown as they are (a file synced before a column existed lacks it).
_COLUMNS = ("run_id", "started_at", "finished_at", "status", "mode", *_COST, *_START, "error")


def read_sync_runs(con: duckdb.DuckDBPyConnection, last: int | None = None) -> pd.DataFrame:
    """One row per run, oldest first (`last`: only the most recent ones).

    `outcome` is completed, failed or running; `seconds` its duration; `<table>_new`,
    `_updated`, `_unchanged`, `_deleted` its rows per table; `rows_read` the rows its
    walks read (new + updated + unchanged, over every table); `unknown_fields` the fields
    the items carried that the contract does not name ({table: {field: type}}); `notes`
    what it noticed about them; `view` the key's view it synced through (`sync.view`).
    """
    present = {row[0] for row in con.execute("DESCRIBE sync_runs").fetchall()}
    wanted = [c for c in (*_COLUMNS, "counts", "unknown_fields", "notes") if c in present]
    select = ", ".join(
        f"epoch_us({c}) AS {c}"
        if c.endswith("_at")
        else f"CAST({c} AS VARCHAR) AS {c}"
        if c in ("counts", "unknown_fields", "notes")
        else c
        for c in wanted
    )
    limit = f" LIMIT {int(last)}" if last is not None else ""
    rows = con.execute(
        f"SELECT * FROM (SELECT {select} FROM sync_runs ORDER BY started_at DESC, run_id{limit}) "
        "ORDER BY started_at, run_id"
    ).fetchall()
    frame = pd.DataFrame(
        [_record(dict(zip(wanted, row, strict=True))) for row in rows], columns=columns()
    )
    # pandas turns the None of a text column beside strings into NaN, which reads as a value
    # ("error: nan" under every completed run): a missing text is None.
    for column in ("view", "error"):
        frame[column] = frame[column].astype(object).where(frame[column].notna(), None)
    return frame


def columns() -> list[str]:
    """The columns of `read_sync_runs`' frame, in order."""
    tables = [f"{r.table}_{kind}" for r in RESOURCES for kind in _KINDS]
    return [
        "run_id",
        "started_at",
        "finished_at",
        "outcome",
        "mode",
        "seconds",
        *_COST,
        *_START,
        "rows_read",
        *tables,
        "unknown_fields",
        "notes",
        "view",
        "error",
    ]


def _record(row: dict[str, Any]) -> dict[str, Any]:
    started, finished = _time(row.get("started_at")), _time(row.get("finished_at"))
    recorded = json.loads(row.get("counts") or "{}")
    counts = recorded.get("tables", {})
    record: dict[str, Any] = {
        **{c: row.get(c) for c in _COLUMNS},
        "started_at": started,
        "finished_at": finished,
        "outcome": row.get("status"),
        "seconds": (finished - started).total_seconds() if finished and started else None,
        "unknown_fields": json.loads(row.get("unknown_fields") or "{}"),
        "notes": json.loads(row.get("notes") or "[]"),
        "view": _view(recorded.get("view")),
    }
    read = 0
    for resource in RESOURCES:
        table = counts.get(resource.table, {})
        for kind in _KINDS:
            value = table.get(kind)
            record[f"{resource.table}_{kind}"] = value
            if kind != "deleted" and value:
                read += value
    record["rows_read"] = read
    return record


def _view(record: Any) -> str | None:
    """The run's view (`sync.view`) in words, "view 3b9bd7a1 (12 channels)"; None for a run
    recorded before views were, or by a key that may not list channels."""
    view = KeyView.of_record(record if isinstance(record, dict) else None)
    return None if view is None else view.describe()


def _time(micros: int | None) -> pd.Timestamp | None:
    return pd.Timestamp(micros, unit="us", tz="UTC") if micros is not None else None


@dataclass(frozen=True)
class Volume:
    """The last completed run's rows read against the runs of the same mode before it.

    `usual` is the median of up to SYNC_USUAL_RUNS earlier completed runs (None with fewer
    than 3); the run is unusual when it read less than usual / SYNC_VOLUME_FACTOR or more
    than usual × SYNC_VOLUME_FACTOR (docs/warehouse.md, "channelkit status").
    """

    rows_read: int
    mode: str
    usual: float | None
    earlier_runs: int

    @property
    def unusual(self) -> bool:
        if self.usual is None:
            return False
        low, high = self.usual / SYNC_VOLUME_FACTOR, self.usual * SYNC_VOLUME_FACTOR
        return not low <= self.rows_read <= high


def last_volume(runs: pd.DataFrame) -> Volume | None:
    """How the last completed run of `runs` (`read_sync_runs`' frame) compares with its usual."""
    done = runs[runs["outcome"] == "completed"]
    if done.empty:
        return None
    last = done.iloc[-1]
    earlier = done.iloc[:-1]
    earlier = earlier[earlier["mode"] == last["mode"]].tail(SYNC_USUAL_RUNS)
    usual = statistics.median(earlier["rows_read"]) if len(earlier) >= 3 else None
    return Volume(int(last["rows_read"]), str(last["mode"]), usual, len(earlier))
