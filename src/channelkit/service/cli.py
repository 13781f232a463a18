"""`channelkit serve` and `channelkit keys create|revoke`."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import click

from channelkit._cli import Output, output_options, user_errors
from channelkit._constants import (
    ENV_API_KEY,
    ENV_BASE_URL,
    SERVICE_DB_PATH,
    SERVICE_HOST,
    SERVICE_KEY_PLAN_DEFAULT,
    SERVICE_PORT,
    SERVICE_RATE_WINDOW_MIN_SECONDS,
)
from channelkit._spec import PLAN_LIMITS, RATE_WINDOW_SECONDS, SCOPES
from channelkit._suggest import choices_text
from channelkit.service import workspace
from channelkit.service.db import Database


def _scopes(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    """`--scopes`: checked before the database is opened, nearest names when unknown."""
    scopes = tuple(s.strip() for s in value.split(",") if s.strip())
    for scope in scopes:
        if scope not in SCOPES:
            raise click.BadParameter(f"{scope!r} is not a scope; {choices_text(scope, SCOPES)}")
    if not scopes:
        raise click.BadParameter(f"give one or more of {', '.join(SCOPES)}, comma-separated")
    return scopes


@click.command()
@click.option(
    "--db",
    "db_path",
    default=SERVICE_DB_PATH,
    show_default=True,
    help="SQLite file holding the workspace (':memory:' for a throw-away one).",
)
@click.option(
    "--host",
    default=SERVICE_HOST,
    show_default=True,
    help="Address to listen on (0.0.0.0 makes it reachable from other machines).",
)
@click.option(
    "--port",
    default=SERVICE_PORT,
    show_default=True,
    type=click.IntRange(0, 65535),
    help="Port to listen on (0 picks a free one).",
)
@click.option(
    "--seed",
    type=click.Choice(["demo", "steady"]),
    default=None,
    help="Fill an empty workspace with the demo organisation (or reuse it) and print its keys.",
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
@output_options()
def serve(
    db_path: str,
    host: str,
    port: int,
    seed: str | None,
    rate_window: float,
    faults: str | None,
    fault_seed: int,
    admin: bool,
    quiet: bool,
) -> None:
    """Run the local Publishing and Channel Service until interrupted.

    With --seed demo it prints the demo keys and which one to use for what.
    """
    from channelkit.errors import ServiceError
    from channelkit.service.local import LocalService

    try:
        svc = LocalService(
            db=db_path, seed=seed, rate_window=rate_window, faults=faults,
            fault_seed=fault_seed, admin=admin, host=host, port=port,
        )  # fmt: skip
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--faults") from None
    reused = seed is not None and db_path != ":memory:" and _has_workspace(db_path)
    try:
        svc.start()
    except ServiceError as exc:
        if "cannot listen" not in str(exc):
            raise click.ClickException(str(exc)) from None
        raise click.ClickException(
            f"--port: {exc}; is another `channelkit serve` running? choose another --port "
            "(--port 0 picks a free one)"
        ) from None
    out = Output.from_options(quiet=quiet)
    out.result(f"channelkit service listening at {svc.base_url}")
    if seed is not None:
        out.result(_workspace_line(db_path, reused))
    if svc.demo_keys:
        out.result(_keys_table(svc.demo_keys, rate_window))
        out.result(
            "In another terminal (the analyst key to read, the writer key to publish):\n"
            f"  export {ENV_BASE_URL}={svc.base_url}\n"
            f"  export {ENV_API_KEY}=...   # paste a key from the table"
        )
    # SIGTERM (a supervisor, `kill`) stops as cleanly as Ctrl-C does
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        svc.wait()
    except KeyboardInterrupt:
        pass
    finally:
        svc.stop()


def _has_workspace(db_path: str) -> bool:
    path = Path(db_path)
    return path.is_file() and path.stat().st_size > 0


def _workspace_line(db_path: str, reused: bool) -> str:
    if reused:
        return (
            f"reusing the demo workspace in {db_path} (new keys below; earlier keys still "
            "work; delete the file for a fresh workspace)"
        )
    return f"demo workspace created in {db_path}"


def _keys_table(keys: dict[str, str], window: float) -> str:
    """The demo keys with what each may do, so the reader knows which to export."""
    from channelkit.service.demo_workspace import DEMO_KEYS

    limits: dict[str, int] = {str(p): n for p, n in PLAN_LIMITS.items()}  # plans as text
    lines = [f"  {'name':<9} {'may':<40} {'plan: requests':<26} key"]
    for name, key in keys.items():
        _, scopes, plan = DEMO_KEYS[name]
        may = _what_it_may(scopes)
        limit = f"{plan}: {limits[plan]} per {window:g} s"
        lines.append(f"  {name:<9} {may:<40} {limit:<26} {key}")
    return "\n".join(lines)


def _what_it_may(scopes: tuple[str, ...]) -> str:
    if set(scopes) == set(SCOPES):
        return "everything: read, sync, report, publish"
    uses = []
    if {"posts:read", "channels:read", "analytics:read"} <= set(scopes):
        uses.append("read, sync, report")
    elif "posts:read" in scopes:
        uses.append("read posts (no analytics)")
    if "posts:write" in scopes:
        uses.append("publish")
    return ", ".join(uses) or ", ".join(scopes)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


# `keys create` and `keys revoke` work on the file `serve` uses.
_KEYS_DB = click.option(
    "--db",
    "db_path",
    default=SERVICE_DB_PATH,
    show_default=True,
    help="The service's SQLite file (as given to `channelkit serve --db`).",
)


@click.group()
def keys() -> None:
    """Create and revoke API keys in a service database."""


@keys.command("create")
@_KEYS_DB
@click.option("--user", required=True, help="User handle; created if new.")
@click.option("--team", default=None, help="Team handle; the user joins it (created if new).")
@click.option(
    "--scopes",
    "scope_list",
    default=",".join(SCOPES),
    show_default=True,
    callback=_scopes,
    help="Comma-separated scopes: " + ", ".join(SCOPES) + ".",
)
@click.option(
    "--plan",
    default=SERVICE_KEY_PLAN_DEFAULT,
    show_default=True,
    type=click.Choice(list(PLAN_LIMITS)),
    help="Rate-limit plan: "
    + ", ".join(f"{p} {n}" for p, n in PLAN_LIMITS.items())
    + " requests per window.",
)
def create(
    db_path: str, user: str, team: str | None, scope_list: tuple[str, ...], plan: str
) -> None:
    """Create a key and print it (only the key) on stdout. It is not shown again."""
    with user_errors():
        db = Database.open(db_path)
        try:
            with db.transaction() as con:
                key = workspace.create_key(
                    con, user=user, team=team, scopes=scope_list, plan=plan, now=db.now()
                )
        finally:
            db.close()
    click.echo(key)


@keys.command("revoke")
@_KEYS_DB
@click.argument("key", required=False)
@output_options()
def revoke(db_path: str, key: str | None, quiet: bool) -> None:
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
    if not quiet:
        click.echo("key revoked", err=True)
