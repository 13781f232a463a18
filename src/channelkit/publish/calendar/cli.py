"""Calendar files and posting slots on the command line.

`channelkit calendar export` writes a content calendar; `channelkit schedule` hands calendar
files (and `--slots` / `--min-gap`) to the helpers here, so that the posts-file flow in
`publish/cli.py` stays as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import click
from click.decorators import FC

from channelkit._cli import (
    Day,
    Output,
    ServiceOptions,
    options_value,
    output_options,
    service_options,
    tz_option,
    user_errors,
)
from channelkit._tz import DEFAULT_ZONE
from channelkit.errors import PlanNotValidError
from channelkit.publish.calendar.crowding import crowded_calendar
from channelkit.publish.calendar.layout_export import export_layout
from channelkit.publish.calendar.records import KINDS, WRITES
from channelkit.publish.calendar.round_trip import CalendarPlan, CalendarResult, calendar_export
from channelkit.publish.layouts.declared import Layout
from channelkit.publish.layouts.library import LAYOUTS, layout_named
from channelkit.publish.layouts.options import layout_options, parse_choices
from channelkit.publish.post.sending import write_scope_problem
from channelkit.publish.sheets.placing import fill_times, filled_lines
from channelkit.publish.sheets.results import write_table
from channelkit.publish.sheets.schedule_options import ScheduleOptions, parsed_option
from channelkit.publish.sheets.sheet import Sheet

if TYPE_CHECKING:
    from channelkit.client import Client


def schedule_options() -> Callable[[FC], FC]:
    """`--yes`, `--take-out-of-hold`, `--slots`, `--db`, `--min-gap` and `--strict` of
    `channelkit schedule`."""

    def decorate(command: FC) -> FC:
        for option in reversed(_OPTIONS):
            command = option(command)
        return command

    return decorate


_OPTIONS = (
    click.option(
        "--yes",
        "confirm_publish_now",
        is_flag=True,
        help="Calendar files: allow rows whose action is publish-now (they publish at once).",
    ),
    click.option(
        "--take-out-of-hold",
        is_flag=True,
        help="Calendar files: let rows give a held post (channelkit hold) a time; it leaves "
        "the hold (refused without this flag, naming who held it).",
    ),
    click.option(
        "--slots",
        help="Fill blank scheduled_at cells of new rows with the next free slots per channel: "
        "'mon-fri 09:00,13:30', or 'best' (the channel's best hours, needs --db).",
    ),
    click.option(
        "--db",
        type=click.Path(dir_okay=False, path_type=Path),
        help="With --slots best: the synced warehouse file to learn the best hours from.",
    ),
    click.option(
        "--min-gap",
        help="Warn when two posts in one channel are closer than this (2h, 90m), counting posts "
        "already scheduled on the service.",
    ),
    click.option("--strict", is_flag=True, help="With --min-gap: refuse instead of warning."),
)


def fill_sheet(
    sheet: Sheet,
    slots: str | None,
    zone: ZoneInfo | None,
    client: Client | None,
    db: Path | None,
    gap: timedelta | None,
) -> Sheet:
    if not slots:
        return sheet
    filled_sheet, filled, missing, notes = parsed_option(
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


def show_crowded(messages: list[str], strict: bool) -> None:
    for message in messages:
        click.echo(f"{'error' if strict else 'warning'}: {message}")


@dataclass(frozen=True)
class _CalendarCheck:
    """A calendar file checked against the service: what stands in the way of sending it."""

    crowded: list[str]  # posts closer than --min-gap
    writes: int  # rows that change something on the service
    no_write: str | None  # why the key cannot write, when it cannot

    def blocks(self, strict: bool) -> bool:
        return bool(self.crowded and strict) or self.no_write is not None


def run_calendar(
    calendar: CalendarPlan, client: Client, options: ScheduleOptions, gap: timedelta | None
) -> None:
    """A calendar file: checked against the service, then shown (a dry run, or a --submit
    that cannot go) or applied."""
    check = _check_calendar(calendar, client, gap)
    if options.submit and not check.blocks(options.strict):
        _apply_calendar(calendar, client, options, check.crowded)
    else:
        _preview_calendar(calendar, options, check)


def _check_calendar(
    calendar: CalendarPlan, client: Client, gap: timedelta | None
) -> _CalendarCheck:
    calendar.check_against(client)
    crowded = crowded_calendar(calendar, client, gap) if gap else []
    writes = sum(calendar.counts().get(kind, 0) for kind in WRITES)
    no_write = write_scope_problem(client) if writes else None
    if no_write is not None:
        calendar.warnings.append(no_write)
    return _CalendarCheck(crowded, writes, no_write)


def _preview_calendar(
    calendar: CalendarPlan, options: ScheduleOptions, check: _CalendarCheck
) -> None:
    """What --submit would change, the preview file, and the refusal when it cannot go."""
    _show_calendar(calendar, verbose=options.verbose)
    show_crowded(check.crowded, options.strict)
    if options.submit and check.no_write is not None:
        raise click.ClickException(f"nothing was sent: {check.no_write}")
    if options.results is not None:
        frame = calendar.preview()
        results = options.results
        kind = "csv" if results.suffix.lower() == ".csv" else "xlsx"
        _write_file(lambda: write_table(frame, results, kind=kind), results)
    if check.crowded and options.strict:
        raise click.ClickException("nothing was sent: posts too close (--strict)")
    if not calendar.is_valid or calendar.counts().get("conflict") or check.no_write:
        click.get_current_context().exit(1)
    click.echo(f"dry run, nothing sent: add --submit to apply {check.writes} changes")


def _apply_calendar(
    calendar: CalendarPlan, client: Client, options: ScheduleOptions, crowded: list[str]
) -> None:
    """--submit: the changes sent, each row's outcome, the results file."""
    show_crowded(crowded, options.strict)
    try:
        outcome = calendar.submit(client, allow_partial=options.allow_partial)
    except PlanNotValidError:
        _show_calendar(calendar, verbose=options.verbose)
        raise click.ClickException(
            "nothing was sent: fix the rows above, or send only the valid rows with --allow-partial"
        ) from None
    _show_outcome(outcome, calendar)
    results = options.results
    if results is not None:
        _write_file(lambda: outcome.to_file(results), results)
    if not outcome.ok:
        click.get_current_context().exit(1)


def _show_outcome(outcome: CalendarResult, calendar: CalendarPlan) -> None:
    """The rows that changed (or failed), then the counts."""
    for row in outcome.rows:
        if row.outcome != "unchanged":
            detail = "; ".join(str(change) for change in row.row.changes)
            text = ": ".join(part for part in (row.outcome, detail, row.message) if part)
            click.echo(f"{row.row.label()}: {text}")
    counts = outcome.counts()
    click.echo(f"{calendar.sheet.source}: " + ", ".join(f"{n} {k}" for k, n in counts.items()))


def _show_calendar(calendar: CalendarPlan, *, verbose: bool) -> None:
    """The rows that change something (all rows with `verbose`), the unchanged in one line."""
    quiet = [row for row in calendar.rows if row.kind == "unchanged" and not row.message]
    for row in calendar.rows:
        if verbose or row not in quiet:
            click.echo(f"{row.label()}: {row.describe()}")
    if quiet and not verbose:
        click.echo(f"{len(quiet)} rows unchanged (--verbose lists them)")
    for warning in calendar.warnings:
        click.echo(f"warning: {warning}")
    counts = calendar.counts()
    click.echo(
        f"{calendar.sheet.source}: {len(calendar.rows)} rows: "
        + ", ".join(f"{counts.get(kind, 0)} {kind}" for kind in KINDS)
    )


def _write_file(write: Callable[[], Path], target: Path) -> None:
    with user_errors(writing=target):
        written = write()
    click.echo(f"results: {written}")


@click.group()
def calendar() -> None:
    """A content calendar in a spreadsheet: export, edit, then `channelkit schedule` it."""


@dataclass(frozen=True)
class ExportOptions:
    """`channelkit calendar export`'s own flags, as given.

    >>> ExportOptions(Path("cal.xlsx"), start="2026-12-01", end="2027-01-01").channel
    ()
    """

    path: Path
    start: str
    end: str
    channel: tuple[str, ...] = ()
    tz: ZoneInfo = DEFAULT_ZONE  # resolved by --tz's type
    force: bool = False
    layout: str | None = None
    map_names: tuple[str, ...] = ()
    map_file: Path | None = None
    date_order: str | None = None
    layout_file: Path | None = None


@calendar.command("export")
@options_value(ExportOptions, "options")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--from", "start", type=Day(), required=True, help="First day (YYYY-MM-DD), in --tz.")
@click.option(
    "--to", "end", type=Day(), required=True, help="Day after the last (YYYY-MM-DD), in --tz."
)
@click.option("--channel", multiple=True, help="Channel id, slug or name (repeat; default all).")
@tz_option("Time zone of the wall times written (the scheduled_at header names it).")
@click.option("--force", is_flag=True, help="Overwrite PATH if it exists.")
@click.option(
    "--layout",
    metavar="LAYOUT",
    help=f"Write the scheduled posts in another tool's bulk layout ({', '.join(LAYOUTS)}, or "
    "one of the team's folder CHANNELKIT_LAYOUTS; see docs/publishing.md, 'Moving from "
    "another tool'); --map gives the file's names for channels.",
)
@layout_options(channel=False)
@service_options()
@output_options()
def export(options: ExportOptions, service: ServiceOptions, output: Output) -> None:
    """Write the drafts and scheduled posts from --from to --to to PATH (.xlsx or .csv).

    Edit titles, bodies, tags, priorities and times; add rows without an id for new posts;
    set action to cancel (back to draft) or publish-now. Then check the file with
    `channelkit schedule PATH` and apply it with --submit. With --layout, the scheduled
    posts are written as another tool's bulk file instead (read back the same way).
    """
    with user_errors():
        run_export_command(options, service, output)


def run_export_command(options: ExportOptions, service: ServiceOptions, output: Output) -> None:
    """`channelkit calendar export`: the calendar fetched and written to PATH."""
    path = options.path
    if path.exists() and not options.force:
        raise click.UsageError(f"{path} exists; choose another name or add --force")
    config = service.config(needed_for="to export the calendar")
    from channelkit.client import Client

    if options.layout or options.layout_file:
        choices = parsed_option(
            lambda: parse_choices(
                channel=None,
                maps=options.map_names,
                map_file=options.map_file,
                date_order=options.date_order,
                layout_file=options.layout_file,
            ),
            "--layout-file" if options.layout_file else "--map",
        )
        with user_errors(writing=path), user_errors(), Client(**config.client_settings()) as client:
            layout = choices.layouts[0] if choices.layouts else options.layout or ""
            written, count, drafts = export_layout(
                path,
                layout=layout,
                start=options.start,
                end=options.end,
                tz=options.tz,
                channel=list(options.channel) or None,
                client=client,
                choices=choices,
            )
        left = f" ({drafts} drafts left out: a bulk file has no drafts)" if drafts else ""
        output.result(f"wrote {count} posts to {written} as {_named(layout).a_name} file{left}")
        return
    # Nested: a refused flag (--from) stays a usage error; only the disk is "cannot write".
    with user_errors(writing=path), user_errors(), Client(**config.client_settings()) as client:
        written = calendar_export(
            path,
            start=options.start,
            end=options.end,
            tz=options.tz,
            channel=list(options.channel) or None,
            client=client,
        )
    output.result(f"wrote {written}; edit it, then: channelkit schedule {written}")


def _named(layout: str | Layout) -> Layout:
    return layout_named(layout) if isinstance(layout, str) else layout
