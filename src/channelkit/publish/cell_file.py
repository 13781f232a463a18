"""`ck.schedule_file`: a posts file, or another tool's bulk file, from a notebook cell.

What `channelkit schedule FILE --submit` does, with its flags as keywords: every row checked
against the service before anything is sent, each row created exactly once however often
the cell runs (the ledger and idempotency keys of `channelkit.publish`), another tool's
file placed by `channel`, `names`, `date_order` and `layout_file` (`--channel`, `--map`,
`--date-order`, `--layout-file`).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal, overload
from zoneinfo import ZoneInfo

from channelkit._tz import resolve_zone
from channelkit.publish.layouts.library import known_layouts
from channelkit.publish.layouts.read import Choices
from channelkit.publish.sheets.plan import Plan, load_spreadsheet
from channelkit.publish.sheets.results import SubmitResult

if TYPE_CHECKING:
    from channelkit.client import Client


@overload
def schedule_file(
    path: str | Path,
    *,
    tz: str | ZoneInfo | None = ...,
    channel: str | None = ...,
    names: Mapping[str, str] | None = ...,
    date_order: str | None = ...,
    layout_file: str | Path | None = ...,
    sheet: str | None = ...,
    confirm_urgent: bool = ...,
    allow_partial: bool = ...,
    dry_run: Literal[False] = ...,
    client: Client | None = ...,
) -> SubmitResult: ...


@overload
def schedule_file(
    path: str | Path,
    *,
    tz: str | ZoneInfo | None = ...,
    channel: str | None = ...,
    names: Mapping[str, str] | None = ...,
    date_order: str | None = ...,
    layout_file: str | Path | None = ...,
    sheet: str | None = ...,
    confirm_urgent: bool = ...,
    allow_partial: bool = ...,
    dry_run: Literal[True],
    client: Client | None = ...,
) -> Plan: ...


def schedule_file(
    path: str | Path,
    *,
    tz: str | ZoneInfo | None = None,
    channel: str | None = None,
    names: Mapping[str, str] | None = None,
    date_order: str | None = None,
    layout_file: str | Path | None = None,
    sheet: str | None = None,
    confirm_urgent: bool = False,
    allow_partial: bool = False,
    dry_run: bool = False,
    client: Client | None = None,
) -> Plan | SubmitResult:
    """Schedule every post of a posts file (CSV or XLSX); returns the `SubmitResult`.

        result = ck.schedule_file("posts.xlsx", tz="Europe/Berlin")
        # Another tool's file: its channel and day/month order, as the command's flags.
        ck.schedule_file("hootsuite.csv", channel="all-hands", date_order="dmy")
        # A tool channelkit does not ship: its layout file (docs/publishing.md).
        plan = ck.schedule_file("schedulin.csv", layout_file="schedulin.toml", dry_run=True)
        plan.preview()          # every row checked against the service; nothing sent

    `tz` reads naive times (default: CHANNELKIT_TZ). `channel` is the channel of every
    post of another tool's file; `names` the channel of each profile or network name it
    gives (`{"Facebook": "news"}`); `date_order` `"dmy"` or `"mdy"` where the file does not
    settle it; `layout_file` a layout file (TOML) read instead of the layouts channelkit
    and the team's folder (CHANNELKIT_LAYOUTS) know. `dry_run=True` sends nothing and
    returns the checked `Plan`. A plan with errors sends nothing (`PlanNotValidError`
    naming the first) unless `allow_partial`; `urgent` rows need `confirm_urgent`. Without
    `client`, one is made from CHANNELKIT_BASE_URL and CHANNELKIT_API_KEY. A file or
    choice that cannot be used raises before any request (`SpreadsheetError`,
    `InvalidParameterError`); running the cell again creates nothing twice.
    """
    # before any client or request: a bad zone is a bad argument
    zone = resolve_zone(tz, default=None)
    layouts = known_layouts(Path(layout_file)) if layout_file is not None else ()
    choices = Choices(
        channel=channel or None,
        names=tuple((names or {}).items()),
        date_order=date_order,
        layouts=layouts,
    )
    plan = load_spreadsheet(
        Path(path), tz=zone, sheet=sheet, confirm_urgent=confirm_urgent, choices=choices
    )
    if client is None:
        from channelkit.client import Client

        with Client() as own_client:
            return _checked_or_sent(plan, own_client, dry_run, allow_partial)
    return _checked_or_sent(plan, client, dry_run, allow_partial)


def _checked_or_sent(
    plan: Plan, client: Client, dry_run: bool, allow_partial: bool
) -> Plan | SubmitResult:
    if dry_run:
        return plan.check_against(client)
    return plan.submit(client, allow_partial=allow_partial)
