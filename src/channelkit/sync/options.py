"""What a sync is asked to do, checked once into a frozen value (a clear error naming each).

`ck.sync` and `channelkit sync` build it, and everything below reads it: the one place a
sync's arguments are checked, in one wording for the library and the command line.

options = SyncOptions.check(only="posts", since="2026-11-01")
options.resources   # ('posts',)
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path

from channelkit._constants import (
    SYNC_BATCH_ROWS,
    SYNC_CONVERGENCE_RUNS,
    SYNC_LOOKBACK_DAYS,
    SYNC_PAGE_LIMIT,
)
from channelkit._resources import GROUPS as RESOURCE_GROUPS
from channelkit._spec import PAGE_LIMIT_MAX
from channelkit._suggest import choices_text
from channelkit.errors import InvalidParameterError
from channelkit.sync import windows


def parse_only(only: str | Collection[str] | None) -> tuple[str, ...]:
    """`--only posts,channels,analytics` (any subset; default all) to table resources."""
    if only is None:
        names: list[str] = list(RESOURCE_GROUPS)
    else:
        parts = only.split(",") if isinstance(only, str) else list(only)
        names = [p.strip().lower() for p in parts if p.strip()]
        for name in names:
            if name not in RESOURCE_GROUPS:
                raise InvalidParameterError(
                    "only", f"{name!r} is not a part to sync; {choices_text(name, RESOURCE_GROUPS)}"
                )
        if not names:
            raise InvalidParameterError(
                "only", f"give some of {', '.join(RESOURCE_GROUPS)}, separated by commas"
            )
    return tuple(r for group in RESOURCE_GROUPS if group in names for r in RESOURCE_GROUPS[group])


@dataclass(frozen=True)
class SyncOptions:
    """What one run was asked to do (`ck.sync` says what each means); build it with `check`.

    options = SyncOptions.check(only="posts,channels", full=True, parquet="parquet/")
    run_sync(client, "warehouse.duckdb", options)
    """

    resources: tuple[str, ...]
    full: bool = False
    since: datetime | None = None
    lookback_days: int = SYNC_LOOKBACK_DAYS
    page_limit: int = SYNC_PAGE_LIMIT
    batch_rows: int = SYNC_BATCH_ROWS
    convergence_runs: int = SYNC_CONVERGENCE_RUNS
    parquet: Path | None = None
    lake: str | None = None  # a directory or an s3://... URL
    new_view: bool = False  # accept a narrower view than the one that filled the warehouse

    @classmethod
    def check(
        cls,
        *,
        only: str | Collection[str] | None = None,
        full: bool = False,
        since: str | date | datetime | None = None,
        lookback_days: int = SYNC_LOOKBACK_DAYS,
        page_limit: int = SYNC_PAGE_LIMIT,
        batch_rows: int = SYNC_BATCH_ROWS,
        convergence_runs: int = SYNC_CONVERGENCE_RUNS,
        parquet: str | Path | None = None,
        lake: str | Path | None = None,
        new_view: bool = False,
    ) -> SyncOptions:
        """The options, or `InvalidParameterError` naming the first wrong one."""
        resources = parse_only(only)
        try:
            since_at = windows.parse_since(since) if since is not None else None
        except ValueError as exc:
            raise InvalidParameterError("since", str(exc)) from None
        if _not_int(lookback_days) or lookback_days < 0:
            raise InvalidParameterError(
                "lookback_days", f"{lookback_days!r} is not a whole number of days >= 0"
            )
        for name, value, high in (
            ("page_limit", page_limit, PAGE_LIMIT_MAX),
            ("batch_rows", batch_rows, None),
            ("convergence_runs", convergence_runs, None),
        ):
            if _not_int(value) or value < 1:
                raise InvalidParameterError(name, f"{value!r} is not an integer >= 1")
            if high is not None and value > high:
                raise InvalidParameterError(
                    name, f"{value!r} is more than the service allows ({high})"
                )
        return cls(
            resources=resources,
            full=full,
            since=since_at,
            lookback_days=lookback_days,
            page_limit=page_limit,
            batch_rows=batch_rows,
            convergence_runs=convergence_runs,
            parquet=Path(parquet) if parquet is not None else None,
            lake=str(lake) if lake is not None else None,
            new_view=bool(new_view),
        )


def _not_int(value: object) -> bool:
    return isinstance(value, bool) or not isinstance(value, int)
