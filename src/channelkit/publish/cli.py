"""`channelkit template` and `channelkit schedule`: posts from a spreadsheet.

Exit codes: 0 everything fine; 1 rows with errors, or rows that could not be scheduled;
2 a file or option that cannot be used at all (empty, wrong type, encrypted, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from channelkit._constants import ENV_API_KEY, ENV_TZ
from channelkit._terminal import escape_controls
from channelkit.cli import service_options
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
from channelkit.publish.rows import row_label
from channelkit.publish.slots import parse_gap
from channelkit.publish.spreadsheet import read_sheet
from channelkit.publish.template import write_template

_Writer = Callable[[Path], Path]
_Thunk = Callable[[], Path | None]


class BadFileError(click.ClickException):
    """A spreadsheet that cannot be used at all: exit code 2, like a usage error."""

    exit_code = 2


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
def template(path: Path, force: bool) -> None:
    """Write a posts template (.xlsx with notes, or .csv) to PATH."""
    try:
        written = write_template(path, overwrite=force)
    except SpreadsheetError as exc:
        raise BadFileError(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None
    _say(f"wrote {written}; fill it in, then: channelkit schedule {written}")


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--tz",
    envvar=ENV_TZ,
    help=f"Time zone of naive times in rows without a timezone value [env {ENV_TZ}].",
)
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
    help="Write each row's outcome to this .xlsx or .csv file.",
)
@click.option(
    "--failed-rows",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --submit: write the rows not scheduled, with an error column, to fix and re-run.",
)
@click.option(
    "--resolve-duplicates",
    is_flag=True,
    help="With --submit: where someone else scheduled the same post too (same channel, time "
    "and title), keep the oldest copy and move the others back to draft.",
)
@schedule_options()
@service_options()
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
) -> None:
    """Check a posts spreadsheet (CSV or XLSX) and, with --submit, schedule its posts.

    Every row is checked before anything is sent. Submitting the same file again never
    posts twice.

    Exit codes: 0 all rows valid (and, with --submit, scheduled); 1 rows with errors or
    not scheduled; 2 a file or an option that cannot be used.
    """
    if allow_partial and not submit:
        raise click.UsageError("--allow-partial only applies with --submit")
    if failed_rows is not None and not submit:
        raise click.UsageError("--failed-rows only applies with --submit")
    if resolve_duplicates and not submit:
        raise click.UsageError("--resolve-duplicates only applies with --submit")
    for option, target in (("--results", results), ("--failed-rows", failed_rows)):
        if target is not None and target.suffix.lower() not in {".xlsx", ".csv"}:
            raise click.UsageError(f"{option} must name an .xlsx or .csv file")
    if submit and not api_key:
        raise click.UsageError(f"--submit needs an API key: --api-key or {ENV_API_KEY}")
    if strict and not min_gap:
        raise click.UsageError("--strict only applies with --min-gap")
    if db is not None and (slots or "").strip().lower() != "best":
        raise click.UsageError("--db only applies with --slots best")
    gap = parsed_option(lambda: parse_gap(min_gap), "--min-gap") if min_gap else None
    zone = parsed_option(lambda: zone_value(tz), "--tz")
    try:
        read = read_sheet(path, sheet=sheet)
    except SpreadsheetError as exc:
        raise BadFileError(str(exc)) from None
    if read.is_calendar and not api_key:
        raise click.UsageError(
            f"a calendar file (it has an id column) is compared with the service: give an API "
            f"key (--api-key or {ENV_API_KEY})"
        )
    if not api_key:
        read = fill_sheet(read, slots, zone, None, db, gap)
        plan = Plan(read, tz=zone, confirm_urgent=confirm_urgent)
        _show_plan(plan)
        _say(f"channels and duplicates were not checked: no API key ({ENV_API_KEY}/--api-key)")
        _finish_dry_run(plan, results)
        return

    from channelkit.client import Client

    try:
        with Client(base_url=base_url, api_key=api_key) as client:
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
                _show_plan(plan)
                show_crowded(crowded, strict)
                _finish_dry_run(plan, results)
                if crowded and strict:
                    click.get_current_context().exit(1)
                return
            if crowded and strict:
                _show_plan(plan)
                show_crowded(crowded, strict)
                raise click.ClickException("nothing was sent: posts too close (--strict)")
            show_crowded(crowded, strict)
            outcome = plan.submit(
                client, allow_partial=allow_partial, resolve_duplicates=resolve_duplicates
            )
    except PlanNotValidError:
        _show_plan(plan)
        raise click.ClickException(
            "nothing was sent: fix the rows above, or send only the valid rows with --allow-partial"
        ) from None
    except InvalidParameterError as exc:
        raise click.UsageError(str(exc)) from None
    except ChannelkitError as exc:
        raise click.ClickException(escape_controls(str(exc))) from None
    _show_outcome(outcome, plan)
    _write(results, outcome.to_excel, outcome.to_csv)
    if failed_rows is not None:
        written = _guarded(lambda: outcome.failed_rows_file(failed_rows), failed_rows)
        if written is not None:
            _say(f"rows to fix and re-run: {written}")
    if not outcome.ok or any(not group.resolved for group in outcome.duplicates):
        click.get_current_context().exit(1)


def _show_plan(plan: Plan) -> None:
    for row in plan.rows:
        for error in row.errors:
            _say(f"{row.label()}: {error} [{row.value_of(error)}]")
    for warning in plan.warnings:
        _say(f"warning: {warning}")
    counts = {status: 0 for status in ("ok", "error", "exists")}
    for row in plan.rows:
        counts[row.status] += 1
    _say(
        f"{plan.sheet.source}: {len(plan.rows)} rows: {counts['ok']} ok, {counts['error']} with "
        f"errors, {counts['exists']} already scheduled"
    )


def _finish_dry_run(plan: Plan, results: Path | None) -> None:
    frame = plan.preview()
    _write(
        results,
        lambda target: write_table(frame, target, kind="xlsx"),
        lambda target: write_table(frame, target, kind="csv"),
    )
    if not plan.is_valid:
        click.get_current_context().exit(1)
    to_send = sum(1 for row in plan.rows if row.status == "ok")
    _say(f"dry run, nothing sent: add --submit to schedule {to_send} posts")


def _show_outcome(outcome: SubmitResult, plan: Plan) -> None:
    for warning in plan.warnings:
        _say(f"warning: {warning}")
    for row in outcome.rows:
        if row.status not in {"created", "exists"}:
            label = row_label(row.number, row.title, row.channel)
            _say(f"{label}: {row.status}: {row.error}")
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
    _say(f"{outcome.sheet.source}: {summary}")
    _show_duplicates(outcome)


def _write(target: Path | None, as_xlsx: _Writer, as_csv: _Writer) -> None:
    if target is None:
        return
    writer = as_csv if target.suffix.lower() == ".csv" else as_xlsx
    written = _guarded(lambda: writer(target), target)
    _say(f"results: {written}")


def _guarded(write: _Thunk, target: Path) -> Path | None:
    try:
        return write()
    except OSError as exc:
        raise click.ClickException(f"cannot write {target}: {exc.strerror or exc}") from None
    except InvalidParameterError as exc:  # the safe writer's "no such folder" and the like
        raise click.ClickException(f"cannot write {target}: {exc.message}") from None


def _say(text: str) -> None:
    """One line on the terminal; titles and cells cannot smuggle escape sequences into it."""
    click.echo(escape_controls(text))


def _show_duplicates(outcome: SubmitResult) -> None:
    for group in outcome.duplicates:
        _say(f"duplicate: {group.describe()}")
    left = sum(len(group.copies) for group in outcome.duplicates if not group.resolved)
    if left:
        _say(
            f"{left} post(s) scheduled twice: someone else submitted the same rows meanwhile; "
            "run again with --submit --resolve-duplicates to keep one copy of each"
        )
