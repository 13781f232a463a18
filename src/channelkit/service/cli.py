"""`channelkit serve` and `channelkit keys create|revoke`."""

from __future__ import annotations

import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import click

from channelkit._cli import Number, Output, options_value, output_options, user_errors
from channelkit._constants import (
    CLI_COUNT_MAX,
    CLI_SECONDS_MAX,
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

if TYPE_CHECKING:
    from channelkit.service.local import LocalService


def _scopes(ctx: click.Context, param: click.Parameter, value: str) -> tuple[str, ...]:
    """`--scopes`: checked before the database is opened, nearest names when unknown."""
    scopes = tuple(s.strip() for s in value.split(",") if s.strip())
    for scope in scopes:
        if scope not in SCOPES:
            raise click.BadParameter(f"{scope!r} is not a scope; {choices_text(scope, SCOPES)}")
    if not scopes:
        raise click.BadParameter(f"give one or more of {', '.join(SCOPES)}, comma-separated")
    return scopes


@dataclass(frozen=True)
class ServeOptions:
    """`channelkit serve`'s own flags, as given.

    >>> ServeOptions(seed="demo").port == SERVICE_PORT
    True
    """

    db_path: str = SERVICE_DB_PATH
    host: str = SERVICE_HOST
    port: int = SERVICE_PORT
    seed: str | None = None
    rate_window: float = RATE_WINDOW_SECONDS
    faults: str | None = None
    fault_seed: int = 0
    admin: bool = False


@click.command()
@options_value(ServeOptions, "options")
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
    type=Number(int, 0, 65535, "a port number"),
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
    type=Number(float, SERVICE_RATE_WINDOW_MIN_SECONDS, CLI_SECONDS_MAX, "a number of seconds"),
    help="Length of a rate-limit window, seconds.",
)
@click.option(
    "--faults",
    default=None,
    metavar="KIND=RATE,...",
    help="Inject faults, e.g. '500=0.05,503=0.02,slow=0.02,drop=0.02,"
    "truncate=0.02,lost_create=0.02' (every kind: docs/api.md, Fault injection).",
)
@click.option(
    "--fault-seed",
    default=0,
    show_default=True,
    type=Number(int, 0, CLI_COUNT_MAX, "a seed"),
    help="Seed that makes the injected faults reproducible.",
)
@click.option("--admin", is_flag=True, help="Enable /v1/admin/clock (moving the clock).")
@output_options()
def serve(options: ServeOptions, output: Output) -> None:
    """Run the local Publishing and Channel Service until interrupted.

    With --seed demo it prints the demo keys and which one to use for what.
    """
    with user_errors():
        run_serve_command(options, output)


def run_serve_command(options: ServeOptions, output: Output) -> None:
    """`channelkit serve`: the service started, its address and keys printed, then served
    until Ctrl-C or SIGTERM."""
    from channelkit.service.local import LocalService

    db_path, seed = options.db_path, options.seed
    try:
        svc = LocalService(
            db=db_path, seed=seed, rate_window=options.rate_window, faults=options.faults,
            fault_seed=options.fault_seed, admin=options.admin, host=options.host,
            port=options.port,
        )  # fmt: skip
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--faults") from None
    # asked before starting: starting creates the workspace
    reused = seed is not None and db_path != ":memory:" and _has_workspace(db_path)
    _start(svc)
    output.result(f"channelkit service listening at {svc.base_url}")
    if seed is not None:
        output.result(_workspace_line(db_path, reused))
    if svc.demo_keys:
        output.result(_keys_table(svc.demo_keys, options.rate_window))
        output.result(
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


def _start(svc: LocalService) -> None:
    from channelkit.errors import ServiceError

    try:
        svc.start()
    except ServiceError as exc:
        if "cannot listen" not in str(exc):
            raise click.ClickException(str(exc)) from None
        raise click.ClickException(
            f"--port: {exc}; is another `channelkit serve` running? choose another --port "
            "(--port 0 picks a free one)"
        ) from None


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


@dataclass(frozen=True)
class CreateKeyOptions:
    """`channelkit keys create`'s own flags, as given.

    >>> CreateKeyOptions(SERVICE_DB_PATH, user="ana", scope_list=("posts:read",)).plan
    'enterprise'
    """

    db_path: str
    user: str
    team: str | None = None
    scope_list: tuple[str, ...] = SCOPES
    plan: str = SERVICE_KEY_PLAN_DEFAULT


@keys.command("create")
@options_value(CreateKeyOptions, "options")
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
def create_key(options: CreateKeyOptions) -> None:
    """Create a key and print it (only the key) on stdout. It is not shown again."""
    with user_errors():
        run_create_command(options)


def run_create_command(options: CreateKeyOptions) -> None:
    """`channelkit keys create`: the key made in the service's file and printed.

    No --quiet: the key is the whole result, and it is not shown again.
    """
    db = Database.open(options.db_path)
    try:
        with db.transaction() as con:
            key = workspace.create_key(
                con,
                user=options.user,
                team=options.team,
                scopes=options.scope_list,
                plan=options.plan,
                now=db.now(),
            )
    finally:
        db.close()
    click.echo(key)


@dataclass(frozen=True)
class RevokeKeyOptions:
    """`channelkit keys revoke`'s own flags, as given (no key: read from stdin).

    >>> RevokeKeyOptions(SERVICE_DB_PATH).key is None
    True
    """

    db_path: str
    key: str | None = None


@keys.command("revoke")
@options_value(RevokeKeyOptions, "options")
@_KEYS_DB
@click.argument("key", required=False)
@output_options()
def revoke_key(options: RevokeKeyOptions, output: Output) -> None:
    """Revoke KEY (read from stdin when omitted, so it stays out of shell history)."""
    with user_errors():
        run_revoke_command(options, output)


def run_revoke_command(options: RevokeKeyOptions, output: Output) -> None:
    """`channelkit keys revoke`: the key (argument or stdin) revoked in the service's file."""
    key = options.key
    if key is None or key == "-":
        key = sys.stdin.readline().strip()
    if not key:
        raise click.UsageError("give the key to revoke as an argument or on stdin")
    db = Database.open(options.db_path)
    try:
        with db.transaction() as con:
            workspace.revoke_key(con, key, db.now())
    finally:
        db.close()
    if not output.quiet:
        click.echo("key revoked", err=True)
