"""`channelkit template` and `channelkit schedule`: posts from a spreadsheet.

Exit codes: 0 everything fine; 1 rows with errors, or rows that could not be scheduled;
2 a file or option that cannot be used at all (empty, wrong type, encrypted, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from channelkit._constants import ENV_API_KEY, ENV_TZ
from channelkit._terminal import escape_controls
from channelkit.cli import service_options
from channelkit.errors import ChannelkitError, InvalidParameterError
from channelkit.publish.calendar import KINDS as CALENDAR_KINDS
from channelkit.publish.calendar import WRITES as CALENDAR_WRITES
from channelkit.publish.calendar_sync import CalendarPlan, calendar_export
from channelkit.publish.errors import PlanNotValidError, SpreadsheetError
from channelkit.publish.placing import crowded_calendar, crowded_plan, fill_times, filled_lines
from channelkit.publish.plan import Plan
from channelkit.publish.results import SubmitResult, write_table
from channelkit.publish.rows import row_label
from channelkit.publish.slots import parse_gap
from channelkit.publish.spreadsheet import Sheet, read_sheet
from channelkit.publish.template import write_template
from channelkit.publish.times import TimeError, load_zone

if TYPE_CHECKING:
    from channelkit.client import Client

_Writer = Callable[[Path], Path]
_Thunk = Callable[[], Path | None]
_T = TypeVar("_T")


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
@click.option(
    "--yes",
    "confirm_publish_now",
    is_flag=True,
    help="Calendar files: allow rows whose action is publish-now (they publish at once).",
)
@click.option(
    "--slots",
    help="Fill blank scheduled_at cells of new rows with the next free slots per channel: "
    "'mon-fri 09:00,13:30', or 'best' (the channel's best hours, needs --db).",
)
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --slots best: the synced warehouse file to learn the best hours from.",
)
@click.option(
    "--min-gap",
    help="Warn when two posts in one channel are closer than this (2h, 90m), counting posts "
    "already scheduled on the service.",
)
@click.option("--strict", is_flag=True, help="With --min-gap: refuse instead of warning.")
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
    gap = _option(lambda: parse_gap(min_gap), "--min-gap") if min_gap else None
    zone = _option(lambda: _zone(tz), "--tz")
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
        read = _fill(read, slots, zone, None, db, gap)
        plan = Plan(read, tz=zone, confirm_urgent=confirm_urgent)
        _show_plan(plan)
        _say(f"channels and duplicates were not checked: no API key ({ENV_API_KEY}/--api-key)")
        _finish_dry_run(plan, results)
        return

    from channelkit.client import Client

    try:
        with Client(base_url=base_url, api_key=api_key) as client:
            read = _fill(read, slots, zone, client, db, gap)
            if read.is_calendar:
                calendar = CalendarPlan(
                    read,
                    tz=zone,
                    confirm_urgent=confirm_urgent,
                    confirm_publish_now=confirm_publish_now,
                )
                _run_calendar(calendar, client, submit, allow_partial, results, gap, strict)
                return
            plan = Plan(read, tz=zone, confirm_urgent=confirm_urgent)
            plan.check_against(client)
            crowded = crowded_plan(plan, gap) if gap else []
            if not submit:
                _show_plan(plan)
                _show_crowded(crowded, strict)
                _finish_dry_run(plan, results)
                if crowded and strict:
                    click.get_current_context().exit(1)
                return
            if crowded and strict:
                _show_plan(plan)
                _show_crowded(crowded, strict)
                raise click.ClickException("nothing was sent: posts too close (--strict)")
            _show_crowded(crowded, strict)
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


def _zone(tz: str | None) -> str | None:
    if not tz:
        return None
    try:
        return load_zone(tz).key
    except TimeError as exc:
        raise InvalidParameterError("tz", str(exc)) from None


def _option(parse: Callable[[], _T], name: str) -> _T:
    try:
        return parse()
    except InvalidParameterError as exc:
        raise click.BadParameter(exc.message, param_hint=name) from None


def _fill(
    sheet: Sheet,
    slots: str | None,
    zone: str | None,
    client: Client | None,
    db: Path | None,
    gap: timedelta | None,
) -> Sheet:
    if not slots:
        return sheet
    filled_sheet, filled, missing, notes = _option(
        lambda: fill_times(
            sheet, slots=slots, tz=zone, client=client, db=db, min_gap=gap or timedelta(0)
        ),
        "--slots",
    )
    for line in [*notes, *filled_lines(filled)]:
        click.echo(line)
    for number in missing:
        click.echo(f"row {number}: no free slot within a year; give it a time")
    return filled_sheet


def _show_crowded(messages: list[str], strict: bool) -> None:
    for message in messages:
        click.echo(f"{'error' if strict else 'warning'}: {message}")


def _run_calendar(
    calendar: CalendarPlan,
    client: Client,
    submit: bool,
    allow_partial: bool,
    results: Path | None,
    gap: timedelta | None,
    strict: bool,
) -> None:
    calendar.check_against(client)
    crowded = crowded_calendar(calendar, client, gap) if gap else []
    if not submit or (crowded and strict):
        _show_calendar(calendar)
        _show_crowded(crowded, strict)
        if results is not None:
            frame = calendar.preview()
            _write(
                results,
                lambda target: write_table(frame, target, kind="xlsx"),
                lambda target: write_table(frame, target, kind="csv"),
            )
        if crowded and strict:
            raise click.ClickException("nothing was sent: posts too close (--strict)")
        if not calendar.is_valid or calendar.counts().get("conflict"):
            click.get_current_context().exit(1)
        writes = sum(calendar.counts().get(kind, 0) for kind in CALENDAR_WRITES)
        click.echo(f"dry run, nothing sent: add --submit to apply {writes} changes")
        return
    _show_crowded(crowded, strict)
    try:
        outcome = calendar.submit(client, allow_partial=allow_partial)
    except PlanNotValidError:
        _show_calendar(calendar)
        raise click.ClickException(
            "nothing was sent: fix the rows above, or send only the valid rows with --allow-partial"
        ) from None
    for row in outcome.rows:
        if row.outcome not in ("unchanged",):
            detail = "; ".join(str(change) for change in row.row.changes)
            text = ": ".join(part for part in (row.outcome, detail, row.message) if part)
            click.echo(f"{row.row.label()}: {text}")
    counts = outcome.counts()
    click.echo(f"{calendar.sheet.source}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    _write(results, outcome.to_file, outcome.to_file)
    if not outcome.ok:
        click.get_current_context().exit(1)


def _show_calendar(calendar: CalendarPlan) -> None:
    for row in calendar.rows:
        click.echo(f"{row.label()}: {row.describe()}")
    for warning in calendar.warnings:
        click.echo(f"warning: {warning}")
    counts = calendar.counts()
    click.echo(
        f"{calendar.sheet.source}: {len(calendar.rows)} rows: "
        + ", ".join(f"{counts.get(kind, 0)} {kind}" for kind in CALENDAR_KINDS)
    )


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


@click.group()
def calendar() -> None:
    """A content calendar in a spreadsheet: export, edit, then `channelkit schedule` it."""


@calendar.command("export")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--from", "start", required=True, help="First day (YYYY-MM-DD), in --tz.")
@click.option("--to", "end", required=True, help="Day after the last (YYYY-MM-DD), in --tz.")
@click.option("--channel", multiple=True, help="Channel id, slug or name (repeat; default all).")
@click.option(
    "--tz",
    envvar=ENV_TZ,
    help=f"Time zone of the wall times written (header shows it) [env {ENV_TZ}; else UTC].",
)
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
@service_options()
def export(
    path: Path,
    start: str,
    end: str,
    channel: tuple[str, ...],
    tz: str | None,
    force: bool,
    base_url: str | None,
    api_key: str | None,
) -> None:
    """Write the drafts and scheduled posts from --from to --to to PATH (.xlsx or .csv).

    Edit titles, bodies, tags, priorities and times; add rows without an id for new posts;
    set action to cancel (back to draft) or publish-now. Then check the file with
    `channelkit schedule PATH` and apply it with --submit.
    """
    if path.exists() and not force:
        raise click.UsageError(f"{path} exists; choose another name or add --force")
    if not api_key:
        raise click.UsageError(f"calendar export needs an API key: --api-key or {ENV_API_KEY}")
    from channelkit.client import Client

    try:
        with Client(base_url=base_url, api_key=api_key) as client:
            written = calendar_export(
                path, start=start, end=end, tz=tz, channel=list(channel) or None, client=client
            )
    except InvalidParameterError as exc:
        raise click.UsageError(str(exc)) from None
    except ChannelkitError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"cannot write {path}: {exc.strerror or exc}") from None
    click.echo(f"wrote {written}; edit it, then: channelkit schedule {written}")
