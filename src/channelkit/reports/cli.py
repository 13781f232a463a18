"""`channelkit report`: one self-contained HTML report from the warehouse, cron-friendly."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import click

from channelkit._cli import (
    Number,
    Output,
    Parsed,
    ServiceConfig,
    ServiceOptions,
    channel_option,
    connection_hint,
    options_value,
    output_options,
    reach,
    service_options,
    tz_option,
    user_errors,
    warehouse_option,
)
from channelkit._constants import (
    CLI_SECONDS_MAX,
    NOTEBOOK_TIMEOUT_S,
    REPORT_COMPARE_DEFAULT,
    REPORT_FORMATS,
    REPORT_PDF_PAPER_DEFAULT,
    REPORT_PDF_PAPERS,
    REPORT_PERIOD_DEFAULT,
)
from channelkit._job_runs import traced
from channelkit._tz import DEFAULT_ZONE
from channelkit._urls import redact_url
from channelkit.analysis.period import COMPARES
from channelkit.errors import NotebookCellError
from channelkit.reports.parameters import (
    PERIOD_HELP,
    check_period,
    parse_date,
    parse_duration,
)

_DATE = Parsed("date", lambda text: parse_date(text, param="date"))
_PERIOD = Parsed("period", check_period)
DURATION = Parsed("duration", parse_duration)


def _silent(message: str) -> None:
    """Steps are not worth a line under --quiet."""


def _stderr_step(message: str) -> None:
    stamp = datetime.now().astimezone().strftime("%Y-%m-%dT%H:%M:%S%z")
    click.echo(f"{stamp} channelkit report: {message}", err=True)


@dataclass(frozen=True)
class ReportOptions:
    """`channelkit report`'s own flags, as given; `check()` refuses what cannot go together.

    >>> ReportOptions(Path("warehouse.duckdb"), out=Path("r.html"), period="month").compare
    'previous'
    """

    db: Path
    out: Path | None = None  # --upcoming alone prints to the terminal without it
    since: date | None = None
    until: date | None = None
    period: str | None = None
    compare: str = REPORT_COMPARE_DEFAULT
    tz: ZoneInfo = DEFAULT_ZONE  # resolved by --tz's type
    channels: tuple[str, ...] = ()
    fmt: str = REPORT_FORMATS[0]
    paper: str = REPORT_PDF_PAPER_DEFAULT
    csv_dir: Path | None = None
    template: Path | None = None
    max_age: timedelta | None = None
    notebook: Path | None = None
    notebook_timeout: int | None = None  # --timeout
    do_sync: bool = False
    upcoming: timedelta | None = None

    def check(self) -> None:
        since, until = self.since, self.until
        if since is not None and until is not None and self.period is not None:
            raise click.UsageError("give at most two of --since, --until and --period")
        if since is not None and until is not None and until < since:
            raise click.UsageError(f"--until {until} is before --since {since}")
        if self.notebook_timeout is not None and self.notebook is None:
            raise click.UsageError("--timeout limits a --notebook run; give --notebook")
        if self.out is None and self.upcoming is None:
            raise click.UsageError(
                "Missing option '--out': the file to write (only --upcoming prints to the "
                "terminal without it)"
            )

    @property
    def target(self) -> Path:
        """--out, which every report but --upcoming has (`check` asked for it)."""
        assert self.out is not None, "ReportOptions.check() first"
        return self.out

    def check_upcoming(self) -> None:
        """--upcoming asks the service what is scheduled: no period, warehouse or sync."""
        given = {
            "--since": self.since,
            "--until": self.until,
            "--period": self.period,
            "--csv": self.csv_dir,
            "--template": self.template,
            "--max-age": self.max_age,
            "--notebook": self.notebook,
            "--sync": self.do_sync or None,
        }
        self._only("--upcoming", "--tz, --channel and --out", given)

    def check_notebook(self) -> None:
        """--notebook takes the period, zone, one channel and the comparison; nothing else."""
        given = {
            "--since": self.since,
            "--until": self.until,
            "--csv": self.csv_dir,
            "--template": self.template,
        }
        self._only("--notebook", "--period, --tz, --channel and --compare", given)
        if len(self.channels) > 1:
            raise click.UsageError("--notebook takes one --channel")

    def _only(self, flag: str, takes: str, given: Mapping[str, object]) -> None:
        """Refuse the flags of `given` that have a value, and a --format other than html:
        `flag` takes only the flags named in `takes`."""
        mixed = [name for name, value in given.items() if value is not None]
        if mixed or self.fmt.lower() != "html":
            what = ", ".join(mixed) if mixed else "--format"
            raise click.UsageError(f"{flag} takes {takes}, not {what}")


@click.command("report")
@options_value(ReportOptions, "options")
@warehouse_option()
@click.option("--since", type=_DATE, help="First day of the period (YYYY-MM-DD).")
@click.option("--until", type=_DATE, help="Last day of the period, included (YYYY-MM-DD).")
@click.option(
    "--period",
    type=_PERIOD,
    help=f"{PERIOD_HELP} [default: {REPORT_PERIOD_DEFAULT}]. Words and day counts resolve "
    "from the last complete synced day ('last month': the last whole one; 'this month': "
    "to date).",
)
@click.option(
    "--compare",
    type=click.Choice(COMPARES, case_sensitive=False),
    default=REPORT_COMPARE_DEFAULT,
    show_default=True,
    help="Compare with the previous period of the same kind, or the same period a year earlier.",
)
@tz_option("IANA timezone of every date and calendar grouping, e.g. Europe/Berlin.")
@channel_option()
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="File to write (replaced atomically); --upcoming without it prints to the terminal.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(REPORT_FORMATS, case_sensitive=False),
    default=REPORT_FORMATS[0],
    show_default=True,
    help="html: one self-contained page; pdf (see --paper-size) or png: rendered by the system's "
    "Chromium (needs the images extra).",
)
@click.option(
    "--paper-size",
    "paper",
    type=click.Choice(tuple(REPORT_PDF_PAPERS), case_sensitive=False),
    default=REPORT_PDF_PAPER_DEFAULT,
    show_default=True,
    help="Paper size of --format pdf.",
)
@click.option(
    "--csv",
    "csv_dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Also write each section's data as CSV into this directory.",
)
@click.option(
    "--template",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="Jinja2 template to use instead of the built-in one.",
)
@click.option(
    "--max-age",
    type=DURATION,
    help="Fail, writing nothing, when the last completed sync is older than this (e.g. 26h).",
)
@click.option(
    "--notebook",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Your own report: run this notebook with db, period, tz, channel and compare "
    "injected after its cell tagged `parameters`, and write its outputs as the page.",
)
@click.option(
    "--timeout",
    "notebook_timeout",
    type=Number(int, 1, CLI_SECONDS_MAX, "a whole number of seconds"),
    metavar="SECONDS",
    help="With --notebook: stop the run after this long in all, naming the cell, and write "
    f"nothing [default: {NOTEBOOK_TIMEOUT_S}].",
)
@click.option("--sync", "do_sync", is_flag=True, help="Sync the warehouse first.")
@click.option(
    "--upcoming",
    type=DURATION,
    help="Instead: every post scheduled in the next DURATION (e.g. 36h), asked of the service: "
    "local time, channel and audience, title, author.",
)
@service_options("With --sync or --upcoming")
@output_options(json_summary=True, progress=True)
def report(options: ReportOptions, service: ServiceOptions, output: Output) -> None:
    """Write an engagement report for a period, from the warehouse.

    \b
    channelkit report --period month --tz Europe/Berlin --out reports/monthly.html
    channelkit report --period 2026-W44 --channel all-hands --format pdf --out week44.pdf
    channelkit report --since 2026-11-01 --until 2026-11-30 --csv csv --out november.html

    Exits 1 and writes nothing when the data is missing or older than --max-age.
    """
    command = "report" if options.notebook is None else "report-notebook"
    with traced(command, options.db), user_errors():
        run_report_command(options, service, output)


def run_report_command(options: ReportOptions, service: ServiceOptions, output: Output) -> None:
    """`channelkit report`: the flags checked, the warehouse synced (--sync), the page written."""
    options.check()
    if options.upcoming is not None:
        options.check_upcoming()
        _upcoming(options, options.upcoming, service, output)
        return
    config = service.config(needed_for="for --sync") if options.do_sync else None
    step = _silent if output.quiet or output.json_output else _stderr_step
    if config is not None:
        _sync(options.db, config, step)
    if options.notebook is not None:
        options.check_notebook()
        written = _notebook_report(options, step)
        output.json({"report": str(written), "tz": options.tz.key})
        return
    written = _generate(options, step)
    csv_dir = str(options.csv_dir) if options.csv_dir else None
    output.json({"report": str(written), "csv_dir": csv_dir, "tz": options.tz.key})


def _generate(options: ReportOptions, step: Callable[[str], None]) -> Path:
    from channelkit.reports.generate import generate_report

    return generate_report(
        options.db,
        options.target,
        since=options.since,
        until=options.until,
        period=options.period,
        compare=options.compare,
        tz=options.tz,
        channels=options.channels,
        template=options.template,
        csv_dir=options.csv_dir,
        max_age=options.max_age,
        format=options.fmt.lower(),
        paper=options.paper.lower(),
        on_step=step,
    )


def _notebook_report(options: ReportOptions, step: Callable[[str], None]) -> Path:
    """`--notebook`: the user's notebook run for one period and channel, as the page."""
    from channelkit.reports.notebook import notebook_report

    notebook = options.notebook
    assert notebook is not None  # run_report_command asks only then
    step(f"running {notebook}")
    try:
        return notebook_report(
            notebook,
            options.db,
            out=options.target,
            period=options.period or REPORT_PERIOD_DEFAULT,
            tz=options.tz,
            channel=options.channels[0] if options.channels else None,
            compare=options.compare,
            timeout=options.notebook_timeout or NOTEBOOK_TIMEOUT_S,
        )
    except NotebookCellError as exc:
        # where it failed, above the one line that says what failed (as Python prints it)
        for frame in exc.trace:
            click.echo(f"  {frame}", err=True)
        raise


def _upcoming(
    options: ReportOptions, within: timedelta, service: ServiceOptions, output: Output
) -> None:
    """`--upcoming`: what is about to go out, from the service, as a page and as lines."""
    from channelkit.client import Client
    from channelkit.reports.files import write_atomic
    from channelkit.reports.upcoming import upcoming_digest

    config = service.config(needed_for="for --upcoming")
    with Client(**config.client_settings()) as client:
        reach(client, config, output.warn)
        digest = upcoming_digest(
            client, within=within, tz=options.tz, channels=options.channels or None
        )
    if options.out is not None:
        write_atomic(options.out, digest.html())
    for line in digest.text().splitlines():
        output.result(line)
    report = None if options.out is None else str(options.out)
    counts = {"posts": len(digest.posts), "held": digest.held}
    output.json({"report": report, "tz": options.tz.key, **counts})


def _sync(db: Path, config: ServiceConfig, step: Callable[[str], None]) -> None:
    from channelkit.client import Client
    from channelkit.sync import run_sync

    step(f"syncing {db} from {redact_url(config.base_url)}")
    # Its parameters are not the user's flags: any refusal is the sync's failure (exit 1).
    with user_errors(prefix="sync failed, no report written: ", parameters="refusal"):
        with Client(**config.client_settings()) as client:
            result = run_sync(client, db, progress=False)
    for line in result.summary().splitlines():
        step(line)
    if not result.completed:
        hint = connection_hint(result.error or "")
        raise click.ClickException(
            f"sync did not complete, no report written: {result.error}"
            + (f"\nhint: {hint}" if hint else "")
        )
