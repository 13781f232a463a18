"""`channelkit template` and `channelkit schedule`: posts from a spreadsheet.

Exit codes: 0 everything fine; 1 rows with errors, or rows that could not be scheduled;
2 a file or option that cannot be used at all (empty, wrong type, encrypted, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import click

from channelkit._cli import service_options, tz_option
from channelkit._constants import ENV_API_KEY
from channelkit.errors import ChannelkitError
from channelkit.publish.errors import PlanNotValidError, PostValidationError, SpreadsheetError
from channelkit.publish.plan import Plan, load_spreadsheet
from channelkit.publish.results import SubmitResult, write_table
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
    click.echo(f"wrote {written}; fill it in, then: channelkit schedule {written}")


@click.command()
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@tz_option("Time zone of naive times in rows without a timezone value")
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
    for option, target in (("--results", results), ("--failed-rows", failed_rows)):
        if target is not None and target.suffix.lower() not in {".xlsx", ".csv"}:
            raise click.UsageError(f"{option} must name an .xlsx or .csv file")
    if submit and not api_key:
        raise click.UsageError(f"--submit needs an API key: --api-key or {ENV_API_KEY}")
    try:
        plan = load_spreadsheet(path, tz=tz or None, sheet=sheet, confirm_urgent=confirm_urgent)
    except SpreadsheetError as exc:
        raise BadFileError(str(exc)) from None
    except PostValidationError as exc:
        raise click.BadParameter(str(exc.errors[0].message), param_hint="--tz") from None
    if not api_key:
        _show_plan(plan)
        click.echo(
            f"channels and duplicates were not checked: no API key ({ENV_API_KEY}/--api-key)"
        )
        _finish_dry_run(plan, results)
        return

    from channelkit.client import Client

    try:
        with Client(base_url=base_url, api_key=api_key) as client:
            if not submit:
                plan.check_against(client)
                _show_plan(plan)
                _finish_dry_run(plan, results)
                return
            outcome = plan.submit(client, allow_partial=allow_partial)
    except PlanNotValidError:
        _show_plan(plan)
        raise click.ClickException(
            "nothing was sent: fix the rows above, or send only the valid rows with --allow-partial"
        ) from None
    except ChannelkitError as exc:
        raise click.ClickException(str(exc)) from None
    _show_outcome(outcome, plan)
    _write(results, outcome.to_excel, outcome.to_csv)
    if failed_rows is not None:
        written = _guarded(lambda: outcome.failed_rows_file(failed_rows), failed_rows)
        if written is not None:
            click.echo(f"rows to fix and re-run: {written}")
    if not outcome.ok:
        click.get_current_context().exit(1)


def _show_plan(plan: Plan) -> None:
    for number, error in plan.errors:
        click.echo(f"row {number}: {error}")
    for warning in plan.warnings:
        click.echo(f"warning: {warning}")
    counts = {status: 0 for status in ("ok", "error", "exists")}
    for row in plan.rows:
        counts[row.status] += 1
    click.echo(
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
    click.echo(f"dry run, nothing sent: add --submit to schedule {to_send} posts")


def _show_outcome(outcome: SubmitResult, plan: Plan) -> None:
    for warning in plan.warnings:
        click.echo(f"warning: {warning}")
    for row in outcome.rows:
        if row.status not in {"created", "exists"}:
            click.echo(f"row {row.number}: {row.status}: {row.error}")
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
    click.echo(f"{outcome.sheet.source}: {summary}")


def _write(target: Path | None, as_xlsx: _Writer, as_csv: _Writer) -> None:
    if target is None:
        return
    writer = as_csv if target.suffix.lower() == ".csv" else as_xlsx
    written = _guarded(lambda: writer(target), target)
    click.echo(f"results: {written}")


def _guarded(write: _Thunk, target: Path) -> Path | None:
    try:
        return write()
    except OSError as exc:
        raise click.ClickException(f"cannot write {target}: {exc.strerror or exc}") from None
