"""`channelkit demo`: the whole flow on the demo workspace, from nothing to a report.

It starts the local service in-process on a free loopback port with the demo workspace,
syncs it into `./channelkit-demo/warehouse.duckdb` (and Parquet), writes
`./channelkit-demo/report.html`, prints where everything is and what to try next, and stops
the service. The service's own database is kept beside the warehouse, so a second run
serves the same workspace and its sync is incremental.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from zoneinfo import ZoneInfo

import click

from channelkit._cli import Output, options_value, output_options, tz_option, user_errors
from channelkit._constants import (
    DEMO_DIR,
    DEMO_KEY_NAME,
    DEMO_PARQUET_DIR,
    DEMO_REPORT,
    DEMO_REPORT_PERIOD,
    DEMO_SERVICE_DB,
    WAREHOUSE_PATH,
)
from channelkit._tz import DEFAULT_ZONE


@dataclass(frozen=True)
class DemoOptions:
    """`channelkit demo`'s own flags, as given.

    >>> DemoOptions().directory == Path(DEMO_DIR)
    True
    """

    directory: Path = Path(DEMO_DIR)
    tz: ZoneInfo = DEFAULT_ZONE  # resolved by --tz's type


@click.command("demo")
@options_value(DemoOptions, "options")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEMO_DIR,
    show_default=True,
    help="Where the service database, warehouse, Parquet files and report go.",
)
@tz_option("Timezone of the report's calendar (an IANA name such as Europe/Berlin).")
@output_options(progress=True)
def demo(options: DemoOptions, output: Output) -> None:
    """Serve the demo workspace, sync it into DuckDB and write an engagement report."""
    with user_errors():
        run_demo_command(options, output)


def run_demo_command(options: DemoOptions, output: Output) -> None:
    """`channelkit demo`: serve, sync, report, then the next commands to try."""
    from channelkit.client import Client
    from channelkit.reports.generate import generate_report
    from channelkit.service import LocalService
    from channelkit.sync.runner import run_sync

    directory, tz = options.directory, options.tz.key
    step = output.step
    started = time.perf_counter()
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.ClickException(f"cannot create {directory}: {exc.strerror}") from None
    warehouse = directory / WAREHOUSE_PATH
    report_path = directory / DEMO_REPORT
    parquet_dir = directory / DEMO_PARQUET_DIR
    step("starting the local service with the demo workspace")
    with LocalService(db=str(directory / DEMO_SERVICE_DB), seed="demo") as service:
        step(f"service at {service.base_url}")
        with Client(base_url=service.base_url, api_key=service.demo_keys[DEMO_KEY_NAME]) as client:
            step(f"syncing into {warehouse}")
            sync_report = run_sync(client, warehouse, parquet=parquet_dir, progress=output.progress)
    output.result(sync_report.summary())
    if not sync_report.completed:
        raise click.ClickException("the demo sync did not complete; run the demo again")
    step(f"writing the report to {report_path}")
    generate_report(warehouse, report_path, period=DEMO_REPORT_PERIOD, tz=tz)
    elapsed = time.perf_counter() - started
    output.result(
        _NEXT_STEPS.format(
            seconds=elapsed,
            warehouse=warehouse,
            parquet=parquet_dir,
            report=report_path.resolve(),
            tz=tz,
            bin=_bin_prefix(),
            service_db=directory / DEMO_SERVICE_DB,
            notebook_install=_notebook_install(),
        )
    )


def _bin_prefix() -> str:
    """Where this `channelkit` lives, as the reader can type it from here (`.venv/bin/`)."""
    scripts = Path(sys.executable).parent
    if not (scripts / "channelkit").exists():
        return ""  # not installed as a script here: rely on PATH
    try:
        return f"{scripts.relative_to(Path.cwd())}/"
    except ValueError:
        return f"{scripts}/"


def _notebook_install() -> str:
    """Installing the notebook extra: from this checkout when the reader stands in one."""
    if (Path.cwd() / "pyproject.toml").is_file() and (Path.cwd() / "notebooks").is_dir():
        return f"{_bin_prefix()}pip install -q -e '.[notebook]'"
    return f"{_bin_prefix()}pip install 'channelkit[notebook]'"


_NEXT_STEPS = """
Done in {seconds:.1f} s.

  warehouse  {warehouse}   (DuckDB: posts, channels, post_daily, channel_daily, ...)
  parquet    {parquet}/
  report     {report}

Next (as printed, from this directory; or `source {bin}activate` and drop the {bin}):
  open the report in a browser:      {report}
  explore it in Python:              {bin}python -c "import channelkit as ck; \\
                                       kpis = ck.Warehouse('{warehouse}').kpis(tz='{tz}'); \\
                                       print(kpis[['metric', 'value', 'previous', 'delta_pct']])"
  explore it in JupyterLab:          {notebook_install}   # once
                                     {bin}jupyter lab notebooks/01-explore-engagement.ipynb
  serve the demo workspace yourself: {bin}channelkit serve --seed demo --db {service_db}
  point at the real service:         export CHANNELKIT_BASE_URL=https://.../v1
                                     export CHANNELKIT_API_KEY=...   # your key
                                     {bin}channelkit sync --db warehouse.duckdb
                                     {bin}channelkit report --db warehouse.duckdb --out weekly.html
"""
