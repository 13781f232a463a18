"""`channelkit report`: one self-contained HTML report from the warehouse, cron-friendly."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import click

from channelkit._cli import (
    Output,
    ServiceConfig,
    ServiceOptions,
    connection_hint,
    failure_message,
    output_options,
    service_options,
    tz_option,
    user_errors,
)
from channelkit._constants import (
    REPORT_COMPARE_DEFAULT,
    REPORT_FORMATS,
    REPORT_PDF_PAPER_DEFAULT,
    REPORT_PDF_PAPERS,
    REPORT_PERIOD_DEFAULT,
    WAREHOUSE_PATH,
)
from channelkit._urls import redact_url
from channelkit.analysis.period import COMPARES
from channelkit.errors import ChannelkitError, InvalidParameterError
from channelkit.reports.parameters import (
    PERIOD_HELP,
    check_period,
    parse_date,
    parse_duration,
)


class _Parsed(click.ParamType[Any, Any]):
    """A click type around one of the report's parsers, so bad flags exit 2 with its message."""

    def __init__(self, name: str, parse: Callable[[str], Any]) -> None:
        self.name = name
        self._parse = parse

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return self._parse(value)
        except InvalidParameterError as exc:
            self.fail(exc.message, param, ctx)


_DATE = _Parsed("date", lambda text: parse_date(text, param="date"))
_PERIOD = _Parsed("period", check_period)
DURATION = _Parsed("duration", parse_duration)


def _silent(message: str) -> None:
    """Steps are not worth a line under --quiet."""


def _stderr_step(message: str) -> None:
    stamp = datetime.now().astimezone().strftime("%Y-%m-%dT%H:%M:%S%z")
    click.echo(f"{stamp} channelkit report: {message}", err=True)


@click.command("report")
@click.option(
    "--db",
    type=click.Path(dir_okay=False, path_type=Path),
    default=WAREHOUSE_PATH,
    show_default=True,
    help="Warehouse file written by `channelkit sync`.",
)
@click.option("--since", type=_DATE, help="First day of the period (YYYY-MM-DD).")
@click.option("--until", type=_DATE, help="Last day of the period, included (YYYY-MM-DD).")
@click.option(
    "--period",
    type=_PERIOD,
    help=f"{PERIOD_HELP} [default: {REPORT_PERIOD_DEFAULT}]. Words and day counts mean the "
    "last complete ones before the last sync.",
)
@click.option(
    "--compare",
    type=click.Choice(COMPARES, case_sensitive=False),
    default=REPORT_COMPARE_DEFAULT,
    show_default=True,
    help="Compare with the previous period of the same kind, or the same period a year earlier.",
)
@tz_option("IANA timezone of every date and calendar grouping, e.g. Europe/Berlin.")
@click.option(
    "--channel",
    "channels",
    multiple=True,
    help="Only this channel (id, slug or name); repeat for several.",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    required=True,
    help="File to write (replaced atomically).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(REPORT_FORMATS, case_sensitive=False),
    default="html",
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
@click.option("--sync", "do_sync", is_flag=True, help="Sync the warehouse first.")
@service_options("With --sync")
@output_options(json_summary=True, progress=True)
def report(
    db: Path,
    since: date | None,
    until: date | None,
    period: str | None,
    compare: str,
    tz: str,
    channels: tuple[str, ...],
    out: Path,
    fmt: str,
    paper: str,
    csv_dir: Path | None,
    template: Path | None,
    max_age: timedelta | None,
    do_sync: bool,
    notebook: Path | None,
    service: ServiceOptions,
    quiet: bool,
    json_output: bool,
    progress: bool,
) -> None:
    """Write an engagement report for a period, from the warehouse.

    \b
    channelkit report --period month --tz Europe/Berlin --out reports/monthly.html
    channelkit report --period 2026-W44 --channel all-hands --format pdf --out week44.pdf
    channelkit report --since 2026-11-01 --until 2026-11-30 --csv csv --out november.html

    Exits 1 and writes nothing when the data is missing or older than --max-age.
    """
    from channelkit.reports.generate import generate_report

    if since is not None and until is not None and period is not None:
        raise click.UsageError("give at most two of --since, --until and --period")
    if since is not None and until is not None and until < since:
        raise click.UsageError(f"--until {until} is before --since {since}")
    config = service.config(needed_for="for --sync") if do_sync else None
    output = Output.from_options(quiet=quiet, json_output=json_output, progress=progress)
    step = _silent if quiet or json_output else _stderr_step
    if config is not None:
        _sync(db, config, step)
    if notebook is not None:
        written = _notebook_report(notebook, db, out, period, compare, tz, channels, step)
        output.json({"report": str(written), "tz": tz})
        return
    with user_errors():
        written = generate_report(
            db,
            out,
            since=since,
            until=until,
            period=period,
            compare=compare,
            tz=tz,
            channels=channels,
            template=template,
            csv_dir=csv_dir,
            max_age=max_age,
            format=fmt.lower(),
            paper=paper.lower(),
            on_step=step,
        )
    output.json({"report": str(written), "csv_dir": str(csv_dir) if csv_dir else None, "tz": tz})


def _notebook_report(
    notebook: Path,
    db: Path,
    out: Path,
    period: str | None,
    compare: str,
    tz: str,
    channels: tuple[str, ...],
    step: Callable[[str], None],
) -> Path:
    """`--notebook`: the user's notebook run for one period and channel, as the page."""
    from channelkit.reports.notebook import notebook_report

    ctx = click.get_current_context()
    flags = {"since": "--since", "until": "--until", "csv_dir": "--csv", "template": "--template"}
    mixed = [flag for name, flag in flags.items() if ctx.params.get(name) is not None]
    if mixed or ctx.params.get("fmt", "html").lower() != "html":
        what = ", ".join(mixed) if mixed else "--format"
        raise click.UsageError(
            f"--notebook takes --period, --tz, --channel and --compare, not {what}"
        )
    if len(channels) > 1:
        raise click.UsageError("--notebook takes one --channel")
    step(f"running {notebook}")
    with user_errors():
        return notebook_report(
            notebook,
            db,
            out=out,
            period=period or REPORT_PERIOD_DEFAULT,
            tz=tz,
            channel=channels[0] if channels else None,
            compare=compare,
        )


def _sync(db: Path, config: ServiceConfig, step: Callable[[str], None]) -> None:
    from channelkit.client import Client
    from channelkit.sync import run_sync

    step(f"syncing {db} from {redact_url(config.base_url)}")
    try:
        with Client(**config.client_settings()) as client:
            result = run_sync(client, db, progress=False)
    except ChannelkitError as exc:
        raise click.ClickException(
            f"sync failed, no report written: {failure_message(exc)}"
        ) from None
    for line in result.summary().splitlines():
        step(line)
    if not result.completed:
        hint = connection_hint(result.error or "")
        raise click.ClickException(
            f"sync did not complete, no report written: {result.error}"
            + (f"\nhint: {hint}" if hint else "")
        )
