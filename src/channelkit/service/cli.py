"""`channelkit serve` and `channelkit keys create|revoke`."""

from __future__ import annotations

import signal
import sys

import click

from channelkit._constants import (
    SERVICE_DB_PATH,
    SERVICE_HOST,
    SERVICE_KEY_PLAN_DEFAULT,
    SERVICE_PORT,
    SERVICE_RATE_WINDOW_MIN_SECONDS,
)
from channelkit._spec import PLAN_LIMITS, RATE_WINDOW_SECONDS, SCOPES
from channelkit.cli import user_errors
from channelkit.service import workspace
from channelkit.service.db import Database


def _scopes(value: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in value.split(",") if s.strip())


@click.command()
@click.option(
    "--db",
    "db_path",
    default=SERVICE_DB_PATH,
    show_default=True,
    help="SQLite file holding the workspace (':memory:' for a throw-away one).",
)
@click.option("--host", default=SERVICE_HOST, show_default=True)
@click.option(
    "--port",
    default=SERVICE_PORT,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="0 picks a free port.",
)
@click.option(
    "--seed",
    type=click.Choice(["demo"]),
    default=None,
    help="Fill an empty workspace with the demo organisation and print its keys.",
)
@click.option(
    "--rate-window",
    default=RATE_WINDOW_SECONDS,
    show_default=True,
    type=click.FloatRange(min=SERVICE_RATE_WINDOW_MIN_SECONDS),
    help="Length of a rate-limit window, seconds.",
)
@click.option(
    "--faults",
    default=None,
    metavar="KIND=RATE,...",
    help="Inject faults, e.g. '500=0.05,503=0.02,slow=0.02,drop=0.02,"
    "truncate=0.02,lost_create=0.02'.",
)
@click.option(
    "--fault-seed",
    default=0,
    show_default=True,
    type=int,
    help="Seed that makes the injected faults reproducible.",
)
@click.option("--admin", is_flag=True, help="Enable /v1/admin/clock (moving the clock).")
def serve(
    db_path: str,
    host: str,
    port: int,
    seed: str | None,
    rate_window: float,
    faults: str | None,
    fault_seed: int,
    admin: bool,
) -> None:
    """Run the local Publishing and Channel Service until interrupted."""
    from channelkit.service.local import LocalService

    try:
        svc = LocalService(
            db=db_path, seed=seed, rate_window=rate_window, faults=faults,
            fault_seed=fault_seed, admin=admin, host=host, port=port,
        )  # fmt: skip
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--faults") from None
    with user_errors():
        svc.start()
    click.echo(f"channelkit service listening at {svc.base_url}")
    for name, key in svc.demo_keys.items():
        click.echo(f"  {name:<10} {key}")
    # SIGTERM (a supervisor, `kill`) stops as cleanly as Ctrl-C does
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        svc.wait()
    except KeyboardInterrupt:
        pass
    finally:
        svc.stop()


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


@click.group()
def keys() -> None:
    """Create and revoke API keys in a service database."""


@keys.command("create")
@click.option("--db", "db_path", default=SERVICE_DB_PATH, show_default=True)
@click.option("--user", required=True, help="User handle; created if new.")
@click.option("--team", default=None, help="Team handle; the user joins it (created if new).")
@click.option(
    "--scopes",
    "scope_list",
    default=",".join(SCOPES),
    show_default=True,
    help="Comma-separated scopes.",
)
@click.option(
    "--plan",
    default=SERVICE_KEY_PLAN_DEFAULT,
    show_default=True,
    type=click.Choice(list(PLAN_LIMITS)),
)
def create(db_path: str, user: str, team: str | None, scope_list: str, plan: str) -> None:
    """Create a key and print it (only the key) on stdout. It is not shown again."""
    with user_errors():
        db = Database.open(db_path)
        try:
            with db.transaction() as con:
                key = workspace.create_key(
                    con, user=user, team=team, scopes=_scopes(scope_list), plan=plan, now=db.now()
                )
        finally:
            db.close()
    click.echo(key)


@keys.command("revoke")
@click.option("--db", "db_path", default=SERVICE_DB_PATH, show_default=True)
@click.argument("key", required=False)
def revoke(db_path: str, key: str | None) -> None:
    """Revoke KEY (read from stdin when omitted, so it stays out of shell history)."""
    if key is None or key == "-":
        key = sys.stdin.readline().strip()
    if not key:
        raise click.UsageError("give the key to revoke as an argument or on stdin")
    with user_errors():
        db = Database.open(db_path)
        try:
            with db.transaction() as con:
                workspace.revoke_key(con, key, db.now())
        finally:
            db.close()
    click.echo("key revoked", err=True)
