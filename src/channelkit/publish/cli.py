"""`channelkit template` and `channelkit schedule`: posts from a spreadsheet.

Exit codes: 0 everything fine; 1 rows with errors, or rows that could not be scheduled;
2 a file or option that cannot be used at all (empty, wrong type, encrypted, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from channelkit._cli import (
    Output,
    ServiceConfig,
    ServiceOptions,
    options_value,
    output_options,
    reach,
    service_options,
    stop_if_interrupted,
    tz_option,
    user_errors,
)
from channelkit._constants import ENV_API_KEY
from channelkit.errors import PlanNotValidError, SpreadsheetError
from channelkit.publish.calendar.cli import (
    fill_sheet,
    run_calendar,
    schedule_options,
    show_crowded,
)
from channelkit.publish.calendar.round_trip import CalendarPlan
from channelkit.publish.layouts.options import layout_options
from channelkit.publish.post.row_types import PlanRow, RowResult, row_label
from channelkit.publish.post.sending import write_scope_problem
from channelkit.publish.post.validation import ChannelIndex
from channelkit.publish.sheets.placing import crowded_plan
from channelkit.publish.sheets.plan import Plan
from channelkit.publish.sheets.results import SubmitResult, write_table
from channelkit.publish.sheets.schedule_options import ScheduleOptions
from channelkit.publish.sheets.sheet import Sheet
from channelkit.publish.sheets.spreadsheet import read_sheet
from channelkit.publish.sheets.template import write_template

if TYPE_CHECKING:
    from channelkit.client import Client

_Writer = Callable[[Path], Path]
_Thunk = Callable[[], Path | None]


@dataclass(frozen=True)
class TemplateOptions:
    """`channelkit template`'s own flags, as given.

    >>> TemplateOptions(Path("posts.xlsx")).force
    False
    """

    path: Path
    force: bool = False


@click.command()
@options_value(TemplateOptions, "options")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
@output_options()
def template(options: TemplateOptions, output: Output) -> None:
    """Write a posts template (.xlsx with notes, or .csv) to PATH, with example rows.

    The example rows' titles start with [EXAMPLE]: they are refused until you replace them.
    """
    with user_errors():
        run_template_command(options, output)


def run_template_command(options: TemplateOptions, output: Output) -> None:
    """`channelkit template`: the template written, and what to do with it."""
    with user_errors(writing=options.path):
        written = write_template(options.path, overwrite=options.force)
    output.result(
        f"wrote {written}; replace the example rows with your posts, then: "
        f"channelkit schedule {written}"
    )


@click.command()
@options_value(ScheduleOptions, "options")
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
@click.option(
    "--allow-duplicates",
    is_flag=True,
    help="With --submit: also send rows whose title and body match a post already on the "
    "service in that channel within 7 days (refused otherwise).",
)
@click.option(
    "--verbose",
    is_flag=True,
    help="Calendar files: list the unchanged rows too (else counted in one line).",
)
@schedule_options()
@layout_options()
@service_options()
@output_options(json_summary=True, progress=True)
def schedule(options: ScheduleOptions, service: ServiceOptions, output: Output) -> None:
    """Check a posts spreadsheet (CSV or XLSX) and, with --submit, schedule its posts.

    Every row is checked before anything is sent. Submitting the same file again never
    posts twice. Rows copied from `channelkit template` are examples: replace them.

    Exit codes: 0 all rows valid (and, with --submit, scheduled); 1 rows with errors or
    not scheduled; 2 a file or an option that cannot be used.
    """
    with user_errors():
        run_schedule_command(options, service, output)


def run_schedule_command(options: ScheduleOptions, service: ServiceOptions, out: Output) -> None:
    """`channelkit schedule`: the options checked, the file read, then checked or sent."""
    options.check()
    gap = options.gap()
    zone = options.tz
    read = _read_sheet(options)
    if read.reading:
        out.result(f"{read.source}: {read.reading}")
    config = _service_config(options, service)
    if read.is_calendar and config is None:
        raise click.UsageError(
            f"a calendar file (it has an id column) is compared with the service: give an API "
            f"key (--api-key or {ENV_API_KEY})"
        )
    if config is None:
        read = fill_sheet(read, options.slots, zone, None, options.db, gap)
        plan = Plan(read, tz=zone, confirm_urgent=options.confirm_urgent)
        _show_plan(plan, out)
        out.result(
            f"channels and duplicates were not checked: no API key ({ENV_API_KEY}/--api-key)"
        )
        _finish_dry_run(plan, options.results, options.failed_rows, out)
        return

    from channelkit.client import Client

    made: list[Plan] = []  # the plan, once there is one, for the results of a refusal

    def record_refusal(message: str) -> None:
        for plan in made:
            outcome = plan_outcome(plan, reason=message)
            _write_files(outcome, options.results, options.failed_rows, out)

    with user_errors(prefix="nothing was sent: ", on_refusal=record_refusal):
        with Client(**config.client_settings()) as client:
            reach(client, config, out.warn)
            read = fill_sheet(read, options.slots, zone, client, options.db, gap)
            if read.is_calendar:
                calendar = CalendarPlan(
                    read,
                    tz=zone,
                    confirm_urgent=options.confirm_urgent,
                    confirm_publish_now=options.confirm_publish_now,
                    take_out_of_hold=options.take_out_of_hold,
                )
                run_calendar(calendar, client, options, gap)
                return
            plan = Plan(read, tz=zone, confirm_urgent=options.confirm_urgent)
            made.append(plan)
            outcome = _check_and_send(plan, client, options, gap, out)
        stop_if_interrupted()
    if outcome is None:
        return
    _show_outcome(outcome, plan, out)
    _show_duplicates(outcome, out)
    _write_files(outcome, options.results, options.failed_rows, out)
    out.json(_outcome_json(outcome))
    if not outcome.ok or any(not group.resolved for group in outcome.duplicates):
        click.get_current_context().exit(1)


def _read_sheet(options: ScheduleOptions) -> Sheet:
    if not options.path.exists():
        raise SpreadsheetError(
            f"{options.path}: no such file; create one with "
            f"`channelkit template {options.path.name}`"
        )
    return read_sheet(options.path, sheet=options.sheet, choices=options.choices())


def _service_config(options: ScheduleOptions, service: ServiceOptions) -> ServiceConfig | None:
    """The service to send to (--submit) or to check channels against (a key was given)."""
    if options.submit:
        return service.config(needed_for="to --submit")
    if service.api_key:
        return service.config(needed_for="to check channels")
    return None


def _check_and_send(
    plan: Plan, client: Client, options: ScheduleOptions, gap: timedelta | None, out: Output
) -> SubmitResult | None:
    """The plan checked against the service; sent with --submit (None for a dry run)."""
    plan.check_against(client)
    crowded = crowded_plan(plan, gap) if gap else []
    to_send = any(row.status == "ok" for row in plan.rows)
    no_write = write_scope_problem(client) if to_send else None
    if no_write is not None:
        plan.warnings.append(no_write)
    if not options.submit:
        _show_plan(plan, out)
        show_crowded(crowded, options.strict)
        refuse = bool(crowded and options.strict) or no_write is not None
        _finish_dry_run(plan, options.results, options.failed_rows, out, refuse=refuse)
        return None
    if no_write is not None:
        _show_plan(plan, out)
        outcome = plan_outcome(plan, reason=f"not sent: {no_write}")
        _write_files(outcome, options.results, options.failed_rows, out)
        raise click.ClickException(f"nothing was sent: {no_write}")
    if crowded and options.strict:
        _show_plan(plan, out)
        show_crowded(crowded, options.strict)
        raise click.ClickException("nothing was sent: posts too close (--strict)")
    show_crowded(crowded, options.strict)
    try:
        return plan.submit(
            client,
            allow_partial=options.allow_partial,
            resolve_duplicates=options.resolve_duplicates,
            allow_duplicates=options.allow_duplicates,
            progress=out.progress,
        )
    except PlanNotValidError:
        _show_plan(plan, out)
        _write_files(plan_outcome(plan), options.results, options.failed_rows, out)
        out.json(_plan_json(plan, sent=False))
        raise click.ClickException(
            "nothing was sent: fix the rows above, or send only the valid rows with --allow-partial"
        ) from None


def plan_outcome(plan: Plan, *, reason: str | None = None) -> SubmitResult:
    """What a plan that was not sent amounts to, row by row (for --results/--failed-rows)."""
    rows = []
    for row in plan.rows:
        if row.sent_before is not None:
            before = row.sent_before
            rows.append(
                RowResult(
                    row.number,
                    "already_created",
                    request=row.request,
                    post_id=before.post_id,
                    post_status=before.post.status if before.post else None,
                    note=before.describe(),
                    post=before.post,
                )
            )
        elif row.status == "exists":
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


def _show_plan(plan: Plan, out: Output) -> None:
    """Every row as it will go (or why not), then the counts: what people approve."""
    for row in plan.rows:
        for error in row.errors:
            out.error(f"{row.label()}: {error} [{row.value_of(error)}]")
        if not row.errors:
            out.result(plan_line(row, plan.channels))
        if row.status == "ok" and row.likely_duplicate is not None:
            dup = row.likely_duplicate
            if dup.strong:
                out.warn(
                    f"row {row.number}: would be refused: {dup.describe()}; --submit sends "
                    "it only with --allow-duplicates"
                )
            else:
                out.warn(f"row {row.number}: {dup.describe()}; check it is not the same post")
    for warning in plan.warnings:
        out.warn(warning)
    counts = plan.counts()
    refused = f"{counts['duplicate']} refused as likely duplicates, " if counts["duplicate"] else ""
    line = (
        f"{plan.sheet.source}: {len(plan.rows)} rows: {counts['ok']} ok, {refused}"
        f"{counts['error']} with errors, {counts['exists']} already scheduled"
    )
    if counts["sent"]:
        line += f", {counts['sent']} sent before"
    if plan.is_valid:
        out.result(line)
    else:
        click.echo(line, err=True)


def plan_line(row: PlanRow, channels: ChannelIndex | None) -> str:
    """`row 2: "Town hall" to all-hands (organisation, 120 readers) at 2026-12-01 09:00
    Europe/Berlin (08:00 UTC)`; a row not sent again says why instead of where and when."""
    request = row.request
    assert request is not None  # rows without errors have a request
    if row.sent_before is not None:
        return f'row {row.number}: "{request.title}" {row.sent_before.describe()}: not sent again'
    if row.existing_post_id is not None:
        return (
            f'row {row.number}: "{request.title}" already scheduled as {row.existing_post_id}: '
            "not sent again"
        )
    info = channels.get(request.channel_id) if channels is not None else None
    audience = info.audience if info else f"{request.channel_id} (audience not checked)"
    return f'row {row.number}: "{request.title}" to {audience} at {_when(row)}'


def _when(row: PlanRow) -> str:
    request = row.request
    assert request is not None and request.scheduled_at is not None  # files schedule
    utc = request.scheduled_at.astimezone(UTC)
    local = request.local_time()
    if local is None or request.tz is None or request.tz.key == "UTC":
        return f"{utc:%Y-%m-%d %H:%M} UTC"
    same_day = local.date() == utc.date()
    shown_utc = f"{utc:%H:%M} UTC" if same_day else f"{utc:%Y-%m-%d %H:%M} UTC"
    return f"{local:%Y-%m-%d %H:%M} {request.tz.key} ({shown_utc})"


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
    # what --submit sends: not the rows it refuses as likely duplicates
    to_send = plan.counts()["ok"]
    out.result(f"dry run, nothing sent: add --submit to schedule {to_send} posts")


def _show_outcome(outcome: SubmitResult, plan: Plan, out: Output) -> None:
    for warning in plan.warnings:
        out.warn(warning)
    for row in outcome.rows:
        if row.status == "already_created":
            out.result(f"{row_label(row.number, row.title, row.channel)}: {row.note}")
        elif row.status not in {"created", "exists"}:
            out.error(f"{row_label(row.number, row.title, row.channel)}: {row.status}: {row.error}")
    counts = outcome.counts()
    summary = ", ".join(
        f"{counts.get(status, 0)} {label}"
        for status, label in (
            ("created", "created"),
            ("already_created", "already created"),
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
        "read_as": plan.sheet.reading,  # another tool's file: how it was read (else None)
        "sent": sent,
        "valid": plan.is_valid,
        "checked_against_service": plan.checked,
        "warnings": list(plan.warnings),
        "rows": [
            {
                "row": row.number,
                "status": row.status,
                "error": row.message or None,
                "sent_before": row.sent_before.describe() if row.sent_before else None,
                "likely_duplicate": row.likely_duplicate.describe()
                if row.likely_duplicate
                else None,
            }
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
            {
                "row": row.number,
                "status": row.status,
                "post_id": row.post_id,
                "error": row.error,
                "note": row.note,
            }
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
    with user_errors(writing=target):  # also the safe writer's "no such folder" and the like
        return write()


def _show_duplicates(outcome: SubmitResult, out: Output) -> None:
    for group in outcome.duplicates:
        out.result(f"duplicate: {group.describe()}")
    left = sum(len(group.copies) for group in outcome.duplicates if not group.resolved)
    if left:
        out.error(
            f"{left} post(s) scheduled twice: someone else submitted the same rows meanwhile; "
            "run again with --submit --resolve-duplicates to keep one copy of each"
        )
