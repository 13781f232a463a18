"""`channelkit template` and `channelkit schedule`: posts from a spreadsheet.

Exit codes: 0 everything fine; 1 rows with errors, or rows that could not be scheduled;
2 a file or option that cannot be used at all (empty, wrong type, encrypted, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from channelkit._cli import (
    Output,
    failure_message,
    output_options,
    service_config,
    service_options,
    stop_if_interrupted,
    tz_option,
)
from channelkit._constants import ENV_API_KEY
from channelkit.errors import ChannelkitError, InvalidParameterError
from channelkit.publish.calendar_cli import (
    fill_sheet,
    parsed_option,
    run_calendar,
    schedule_options,
    show_crowded,
    zone_value,
)
from channelkit.publish.calendar_sync import CalendarPlan
from channelkit.publish.errors import PlanNotValidError, SpreadsheetError
from channelkit.publish.placing import crowded_plan
from channelkit.publish.plan import Plan
from channelkit.publish.results import SubmitResult, write_table
from channelkit.publish.rows import RowResult, row_label
from channelkit.publish.slots import parse_gap
from channelkit.publish.spreadsheet import read_sheet
from channelkit.publish.template import write_template

if TYPE_CHECKING:
    from channelkit.client import Client

_Writer = Callable[[Path], Path]
_Thunk = Callable[[], Path | None]


class BadFileError(click.ClickException):
    """A spreadsheet that cannot be used at all: exit code 2, like a usage error."""

    exit_code = 2


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
@output_options()
def template(path: Path, force: bool, quiet: bool) -> None:
    """Write a posts template (.xlsx with notes, or .csv) to PATH, with example rows.

    The example rows' titles start with [EXAMPLE]: they are refused until you replace them.
    """
    try:
        written = write_template(path, overwrite=force)
    except SpreadsheetError as exc:
        raise BadFileError(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None
    Output.from_options(quiet=quiet).result(
        f"wrote {written}; replace the example rows with your posts, then: "
        f"channelkit schedule {written}"
    )


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@tz_option("Time zone of naive times in rows without a timezone value.", default=None)
@click.option("--sheet", help="Worksheet to read (default: 'posts', else the first).")
@click.option("--submit", is_flag=True, help="Send the posts (default: check only).")
@click.option(
    "--allow-partial",
    is_flag=True,
    help="With --submit: send the valid rows even if other rows have errors.",
)
@click.option(
    "--confirm-urgent",
    is_flag=True,
    help="Allow priority urgent (it bypasses readers' notification preferences).",
)
@click.option(
    "--results",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write each row's outcome (or, in a dry run, its check) to this .xlsx or .csv file.",
)
@click.option(
    "--failed-rows",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the rows not scheduled, with an error column, to fix and re-run (.xlsx/.csv).",
)
@click.option(
    "--resolve-duplicates",
    is_flag=True,
    help="With --submit: where someone else scheduled the same post too (same channel, time "
    "and title), keep the oldest copy and move the others back to draft.",
)
@schedule_options()
@service_options()
@output_options(json_summary=True, progress=True)
def schedule(
    path: Path,
    tz: str | None,
    sheet: str | None,
    submit: bool,
    allow_partial: bool,
    confirm_urgent: bool,
    results: Path | None,
    failed_rows: Path | None,
    resolve_duplicates: bool,
    confirm_publish_now: bool,
    slots: str | None,
    db: Path | None,
    min_gap: str | None,
    strict: bool,
    base_url: str | None,
    api_key: str | None,
    progress: bool,
    json_output: bool,
    quiet: bool,
) -> None:
    """Check a posts spreadsheet (CSV or XLSX) and, with --submit, schedule its posts.

    Every row is checked before anything is sent. Submitting the same file again never
    posts twice. Rows copied from `channelkit template` are examples: replace them.

    Exit codes: 0 all rows valid (and, with --submit, scheduled); 1 rows with errors or
    not scheduled; 2 a file or an option that cannot be used.
    """
    out = Output.from_options(quiet=quiet, json_output=json_output, progress=progress)
    if allow_partial and not submit:
        raise click.UsageError("--allow-partial only applies with --submit; add --submit")
    for option, target in (("--results", results), ("--failed-rows", failed_rows)):
        if target is not None and target.suffix.lower() not in {".xlsx", ".csv"}:
            raise click.BadParameter(
                f"{str(target)!r} must end in .xlsx or .csv, e.g. {target.with_suffix('.xlsx')}",
                param_hint=option,
            )
        if target is not None and not target.parent.is_dir():
            raise click.BadParameter(
                f"the folder {str(target.parent)!r} does not exist; create it first",
                param_hint=option,
            )
    if resolve_duplicates and not submit:
        raise click.UsageError("--resolve-duplicates only applies with --submit; add --submit")
    if strict and not min_gap:
        raise click.UsageError("--strict only applies with --min-gap; add --min-gap 2h, say")
    if db is not None and (slots or "").strip().lower() != "best":
        raise click.UsageError("--db only applies with --slots best")
    gap = parsed_option(lambda: parse_gap(min_gap), "--min-gap") if min_gap else None
    zone = parsed_option(lambda: zone_value(tz), "--tz")
    if not path.exists():
        raise BadFileError(
            f"{path}: no such file; create one with `channelkit template {path.name}`"
        )
    if submit:
        config = service_config(base_url, api_key, needed_for="to --submit")
    elif api_key:
        config = service_config(base_url, api_key, needed_for="to check channels")
    else:
        config = None
    try:
        read = read_sheet(path, sheet=sheet)
    except SpreadsheetError as exc:
        raise BadFileError(str(exc)) from None
    if read.is_calendar and config is None:
        raise click.UsageError(
            f"a calendar file (it has an id column) is compared with the service: give an API "
            f"key (--api-key or {ENV_API_KEY})"
        )
    if config is None:
        read = fill_sheet(read, slots, zone, None, db, gap)
        plan = Plan(read, tz=zone, confirm_urgent=confirm_urgent)
        _show_plan(plan, out)
        out.result(
            f"channels and duplicates were not checked: no API key ({ENV_API_KEY}/--api-key)"
        )
        _finish_dry_run(plan, results, failed_rows, out)
        return

    from channelkit.client import Client

    outcome: SubmitResult | None = None
    try:
        with Client(base_url=config.base_url, api_key=config.api_key) as client:
            read = fill_sheet(read, slots, zone, client, db, gap)
            if read.is_calendar:
                calendar = CalendarPlan(
                    read,
                    tz=zone,
                    confirm_urgent=confirm_urgent,
                    confirm_publish_now=confirm_publish_now,
                )
                run_calendar(calendar, client, submit, allow_partial, results, gap, strict)
                return
            plan = Plan(read, tz=zone, confirm_urgent=confirm_urgent)
            plan.check_against(client)
            crowded = crowded_plan(plan, gap) if gap else []
            if not submit:
                _show_plan(plan, out)
                show_crowded(crowded, strict)
                _warn_without_write_scope(client, plan, out)
                _finish_dry_run(plan, results, failed_rows, out, refuse=bool(crowded and strict))
                return
            if crowded and strict:
                _show_plan(plan, out)
                show_crowded(crowded, strict)
                raise click.ClickException("nothing was sent: posts too close (--strict)")
            show_crowded(crowded, strict)
            outcome = plan.submit(
                client,
                allow_partial=allow_partial,
                resolve_duplicates=resolve_duplicates,
                progress=out.progress,
            )
        stop_if_interrupted()
    except PlanNotValidError:
        _show_plan(plan, out)
        _write_files(plan_outcome(plan), results, failed_rows, out)
        out.json(_plan_json(plan, sent=False))
        raise click.ClickException(
            "nothing was sent: fix the rows above, or send only the valid rows with --allow-partial"
        ) from None
    except InvalidParameterError as exc:
        raise click.UsageError(str(exc)) from None
    except ChannelkitError as exc:
        message = failure_message(exc)
        _write_files(plan_outcome(plan, reason=message), results, failed_rows, out)
        raise click.ClickException(f"nothing was sent: {message}") from None
    _show_outcome(outcome, plan, out)
    _show_duplicates(outcome, out)
    _write_files(outcome, results, failed_rows, out)
    out.json(_outcome_json(outcome))
    if not outcome.ok or any(not group.resolved for group in outcome.duplicates):
        click.get_current_context().exit(1)


def plan_outcome(plan: Plan, *, reason: str | None = None) -> SubmitResult:
    """What a plan that was not sent amounts to, row by row (for --results/--failed-rows)."""
    rows = []
    for row in plan.rows:
        if row.status == "exists":
            rows.append(
                RowResult(
                    row.number,
                    "exists",
                    request=row.request,
                    post_id=row.existing_post_id,
                    post_status="scheduled",
                )
            )
        elif row.errors:
            rows.append(RowResult(row.number, "invalid", request=row.request, error=row.message))
        else:
            rows.append(
                RowResult(
                    row.number,
                    "not_sent",
                    request=row.request,
                    error=reason or "not sent: other rows have errors",
                )
            )
    return SubmitResult(plan.sheet, rows)  # fmt: skip


def _warn_without_write_scope(client: Client, plan: Plan, out: Output) -> None:
    """Warn before --submit when the key may not create posts.

    An empty create is invalid, so it can never create anything; a service answers 403
    when the key lacks posts:write (the local service checks the scope first).
    """
    from channelkit.errors import BadRequestError, PermissionDeniedError

    if not any(row.status == "ok" for row in plan.rows):
        return
    try:
        client.request("POST", "/posts", json={})
    except PermissionDeniedError:
        message = (
            "this API key may not create posts (it lacks the posts:write scope): --submit "
            "would fail every row; use a key with posts:write (in the demo: writer or admin)"
        )
        plan.warnings.append(message)
        out.warn(message)
    except (BadRequestError, ChannelkitError):
        pass


def _show_plan(plan: Plan, out: Output) -> None:
    for row in plan.rows:
        for error in row.errors:
            out.error(f"{row.label()}: {error} [{row.value_of(error)}]")
    for warning in plan.warnings:
        out.warn(warning)
    counts = {status: 0 for status in ("ok", "error", "exists")}
    for row in plan.rows:
        counts[row.status] += 1
    line = (
        f"{plan.sheet.source}: {len(plan.rows)} rows: {counts['ok']} ok, {counts['error']} with "
        f"errors, {counts['exists']} already scheduled"
    )
    if plan.is_valid:
        out.result(line)
    else:
        click.echo(line, err=True)


def _finish_dry_run(
    plan: Plan,
    results: Path | None,
    failed_rows: Path | None,
    out: Output,
    *,
    refuse: bool = False,
) -> None:
    frame = plan.preview()
    _write(
        results,
        lambda target: write_table(frame, target, kind="xlsx"),
        lambda target: write_table(frame, target, kind="csv"),
        out,
    )
    _write_failed_rows(plan_outcome(plan), failed_rows, out)
    out.json(_plan_json(plan, sent=False))
    if not plan.is_valid or refuse:
        click.get_current_context().exit(1)
    to_send = sum(1 for row in plan.rows if row.status == "ok")
    out.result(f"dry run, nothing sent: add --submit to schedule {to_send} posts")


def _show_outcome(outcome: SubmitResult, plan: Plan, out: Output) -> None:
    for warning in plan.warnings:
        out.warn(warning)
    for row in outcome.rows:
        if row.status not in {"created", "exists"}:
            out.error(f"{row_label(row.number, row.title, row.channel)}: {row.status}: {row.error}")
    counts = outcome.counts()
    summary = ", ".join(
        f"{counts.get(status, 0)} {label}"
        for status, label in (
            ("created", "created"),
            ("exists", "already scheduled"),
            ("failed", "failed"),
            ("invalid", "invalid (not sent)"),
            ("not_sent", "not sent"),
        )
        if counts.get(status, 0) or status in {"created", "exists"}
    )
    line = f"{outcome.sheet.source}: {summary}"
    if outcome.ok:
        out.result(line)
    else:
        click.echo(line, err=True)


def _plan_json(plan: Plan, *, sent: bool) -> dict[str, Any]:
    return {
        "file": str(plan.sheet.source),
        "sent": sent,
        "valid": plan.is_valid,
        "checked_against_service": plan.checked,
        "warnings": list(plan.warnings),
        "rows": [
            {"row": row.number, "status": row.status, "error": row.message or None}
            for row in plan.rows
        ],
    }


def _outcome_json(outcome: SubmitResult) -> dict[str, Any]:
    return {
        "file": str(outcome.sheet.source),
        "sent": True,
        "ok": outcome.ok,
        "counts": outcome.counts(),
        "rows": [
            {"row": row.number, "status": row.status, "post_id": row.post_id, "error": row.error}
            for row in outcome.rows
        ],
    }


def _write_files(
    outcome: SubmitResult, results: Path | None, failed_rows: Path | None, out: Output
) -> None:
    _write(results, outcome.to_excel, outcome.to_csv, out)
    _write_failed_rows(outcome, failed_rows, out)


def _write_failed_rows(outcome: SubmitResult, target: Path | None, out: Output) -> None:
    if target is None:
        return
    written = _guarded(lambda: outcome.failed_rows_file(target), target)
    if written is None:  # every row is fine: an empty file says so to whoever looks for it
        empty = SubmitResult(outcome.sheet, ())
        written = _guarded(lambda: _empty_failed_rows(empty, target), target)
        out.result(f"no rows to fix; {written} has only the header")
        return
    out.result(f"rows to fix and re-run: {written}")


def _empty_failed_rows(outcome: SubmitResult, target: Path) -> Path:
    import pandas as pd

    from channelkit._constants import SPREADSHEET_ERROR_COLUMN

    headers = [h for h in outcome.sheet.headers if h and h != SPREADSHEET_ERROR_COLUMN]
    frame = pd.DataFrame([], columns=[*headers, SPREADSHEET_ERROR_COLUMN])
    return write_table(frame, target, kind="csv" if target.suffix.lower() == ".csv" else "xlsx")


def _write(target: Path | None, as_xlsx: _Writer, as_csv: _Writer, out: Output) -> None:
    if target is None:
        return
    writer = as_csv if target.suffix.lower() == ".csv" else as_xlsx
    written = _guarded(lambda: writer(target), target)
    out.result(f"results: {written}")


def _guarded(write: _Thunk, target: Path) -> Path | None:
    try:
        return write()
    except OSError as exc:
        raise click.ClickException(f"cannot write {target}: {exc.strerror or exc}") from None
    except InvalidParameterError as exc:  # the safe writer's "no such folder" and the like
        raise click.ClickException(f"cannot write {target}: {exc.message}") from None


def _show_duplicates(outcome: SubmitResult, out: Output) -> None:
    for group in outcome.duplicates:
        out.result(f"duplicate: {group.describe()}")
    left = sum(len(group.copies) for group in outcome.duplicates if not group.resolved)
    if left:
        out.error(
            f"{left} post(s) scheduled twice: someone else submitted the same rows meanwhile; "
            "run again with --submit --resolve-duplicates to keep one copy of each"
        )
