"""`channelkit demo`: the whole flow on the demo workspace, from nothing to a report.

It starts the local service in-process on a free loopback port with the demo workspace,
syncs it into `./channelkit-demo/warehouse.duckdb` (and Parquet), writes
`./channelkit-demo/report.html`, prints where everything is and what to try next, and stops
the service. The service's own database is kept beside the warehouse, so a second run
serves the same workspace and its sync is incremental.
"""

from __future__ import annotations

import time
from pathlib import Path

import click

from channelkit._cli import tz_option, user_errors
from channelkit._constants import (
    DEMO_DIR,
    DEMO_KEY_NAME,
    DEMO_PARQUET_DIR,
    DEMO_REPORT,
    DEMO_REPORT_PERIOD,
    DEMO_SERVICE_DB,
    WAREHOUSE_PATH,
)
from channelkit._tz import resolve_tz


@click.command("demo")
@click.option(
    "--dir",
    "directory",
    type=click.Path(file_okay=False, path_type=Path),
    default=DEMO_DIR,
    show_default=True,
    help="Where the service database, warehouse, Parquet files and report go.",
)
@tz_option("Time zone of the report's calendar")
@click.option("--progress/--no-progress", default=True, help="Progress bars (terminal only).")
def demo(directory: Path, tz: str | None, progress: bool) -> None:
    """Serve the demo workspace, sync it into DuckDB and write an engagement report."""
    from channelkit.client import Client
    from channelkit.reports.generate import generate_report
    from channelkit.service import LocalService
    from channelkit.sync.runner import run_sync

    started = time.perf_counter()
    with user_errors():
        tz = resolve_tz(tz)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise click.ClickException(f"cannot create {directory}: {exc.strerror}") from None
    warehouse = directory / WAREHOUSE_PATH
    report_path = directory / DEMO_REPORT
    parquet_dir = directory / DEMO_PARQUET_DIR
    with user_errors():
        _step("starting the local service with the demo workspace")
        with LocalService(db=str(directory / DEMO_SERVICE_DB), seed="demo") as service:
            _step(f"service at {service.base_url}")
            with Client(
                base_url=service.base_url, api_key=service.demo_keys[DEMO_KEY_NAME]
            ) as client:
                _step(f"syncing into {warehouse}")
                sync_report = run_sync(client, warehouse, parquet=parquet_dir, progress=progress)
        click.echo(sync_report.summary())
        if not sync_report.completed:
            raise click.ClickException("the demo sync did not complete; run the demo again")
        _step(f"writing the report to {report_path}")
        generate_report(warehouse, report_path, period=DEMO_REPORT_PERIOD, tz=tz)
    elapsed = time.perf_counter() - started
    click.echo(
        _NEXT_STEPS.format(
            seconds=elapsed,
            warehouse=warehouse,
            parquet=parquet_dir,
            report=report_path.resolve(),
            tz=tz,
        )
    )


def _step(message: str) -> None:
    click.echo(f"channelkit demo: {message}", err=True)


_NEXT_STEPS = """
Done in {seconds:.1f} s.

  warehouse  {warehouse}   (DuckDB: posts, channels, post_daily, channel_daily, ...)
  parquet    {parquet}/
  report     {report}

Next:
  open the report in a browser:      {report}
  explore it in Python:              python -c "import channelkit as ck; \\
                                       print(ck.Warehouse('{warehouse}').kpis(tz='{tz}'))"
  explore it in JupyterLab:          pip install 'channelkit[notebook]'   # once
                                     jupyter lab notebooks/01-explore-engagement.ipynb
  serve the demo workspace yourself: channelkit serve --seed demo
  point at the real service:         export CHANNELKIT_BASE_URL=https://.../v1
                                     export CHANNELKIT_API_KEY=...   # your key
                                     channelkit sync --db warehouse.duckdb
                                     channelkit report --db warehouse.duckdb --out weekly.html
"""
