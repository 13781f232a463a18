"""The `channelkit` command line: one subcommand per part of the flow.

Each part keeps its commands beside its code (`service/cli.py`, `sync/cli.py`, ...); this
module only names them and runs them: Ctrl-C (SIGINT) and SIGTERM end any command with one
line, "interrupted; what was committed is kept; run again to resume", and exit 130 / 143
(`run`). What every command shares, so that they all behave alike (messages, --tz, the
service options, the output convention), is in the leaf module `channelkit._cli`, which
the commands import; nothing imports this module but the console script.

A command's module is imported when that command runs, so that `channelkit sync` does not
pay for plotly and `channelkit --version` pays for nothing.
"""

from __future__ import annotations

import importlib
import os
import signal
import sys
from collections.abc import Sequence
from types import FrameType
from typing import Any, NoReturn

import click

# The interrupt state lives in the leaf `_cli`, which the commands import (stop_if_interrupted).
from channelkit._cli import _interrupted, _Stopped
from channelkit._constants import (
    EXIT_INTERRUPTED,
    EXIT_TERMINATED,
    INTERRUPTED_MESSAGE,
)
from channelkit._suggest import choices_text
from channelkit._version import __version__

# command name -> "module:attribute", in the order `channelkit --help` lists them
_COMMANDS: dict[str, str] = {
    "demo": "channelkit.demo:demo",
    "serve": "channelkit.service.cli:serve",
    "keys": "channelkit.service.cli:keys",
    "sync": "channelkit.sync.cli:sync",
    "status": "channelkit.status:status",
    "outlook": "channelkit.outlook_cli:outlook",
    "report": "channelkit.reports.cli:report",
    "deliver": "channelkit.reports.deliver.cli:deliver",
    "watch": "channelkit.watch.cli:watch",
    "template": "channelkit.publish.cli:template",
    "schedule": "channelkit.publish.cli:schedule",
    "calendar": "channelkit.publish.calendar.cli:calendar",
    "hold": "channelkit.publish.hold.cli:hold",
    "release": "channelkit.publish.hold.cli:release",
}


class _Interrupted(KeyboardInterrupt):
    """Raised in the main thread by SIGINT or SIGTERM; `exit_code` is 130 or 143."""

    def __init__(self, exit_code: int) -> None:
        super().__init__()
        self.exit_code = exit_code


def _on_signal(signum: int, frame: FrameType | None) -> None:
    code = EXIT_TERMINATED if signum == signal.SIGTERM else EXIT_INTERRUPTED
    _interrupted.append(code)
    raise _Interrupted(code)


class _LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(_COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = _COMMANDS.get(cmd_name)
        if target is None:
            return None
        module_name, _, attribute = target.partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        assert isinstance(command, click.Command)
        return command

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and name not in _COMMANDS:
            raise click.UsageError(
                f"no command {name!r}; {choices_text(name, _COMMANDS, n=len(_COMMANDS))}", ctx
            )
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click cuts short help at 45 characters, mid-sentence; a first line fits whole.
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=200)))
        if rows:
            width = max(len(name) for name, _ in rows) + 2
            with formatter.section("Commands"):
                for name, text in rows:  # one line each, however narrow the terminal
                    formatter.write(f"{'':>{formatter.current_indent}}{name:<{width}}{text}\n")

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            # click would print an empty line and "Aborted!"; one line is printed by main().
            raise _Stopped from None

    def main(  # type: ignore[override]
        self, args: Sequence[str] | None = None, prog_name: str | None = None, **extra: Any
    ) -> Any:
        if not extra.pop("standalone_mode", True):
            return super().main(args, prog_name, standalone_mode=False, **extra)
        previous = _install_signal_handlers()
        _interrupted.clear()
        try:
            code = super().main(args, prog_name or "channelkit", standalone_mode=False, **extra)
        except (_Stopped, KeyboardInterrupt, click.Abort):
            _exit_interrupted()
        except click.ClickException as exc:
            if _interrupted:  # a library's own error about the interruption
                _exit_interrupted()
            exc.show()
            sys.exit(exc.exit_code)
        except Exception:
            if _interrupted:
                _exit_interrupted()
            raise
        finally:
            _restore_signal_handlers(previous)
        sys.exit(code if isinstance(code, int) else 0)


def _install_signal_handlers() -> dict[int, Any]:
    import threading

    if threading.current_thread() is not threading.main_thread():
        return {}
    previous: dict[int, Any] = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, _on_signal)
    return previous


def _restore_signal_handlers(previous: dict[int, Any]) -> None:
    for signum, handler in previous.items():
        signal.signal(signum, handler)


def _exit_interrupted() -> NoReturn:
    code = _interrupted[0] if _interrupted else EXIT_INTERRUPTED
    click.echo(f"channelkit: {INTERRUPTED_MESSAGE}", err=True)
    raise SystemExit(code)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="channelkit")
def main() -> None:
    """channelkit: work with the Publishing and Channel Service from the shell.

    \b
    Start here:  channelkit demo
    Then:        channelkit serve --seed demo    (a local service and its keys)
    Environment: CHANNELKIT_BASE_URL, CHANNELKIT_API_KEY, CHANNELKIT_TZ, CHANNELKIT_LOG
    """


def run() -> None:
    """The `channelkit` console script: `main`, leaving at once after an interrupt.

    After Ctrl-C, worker threads may still be waiting on the network and libraries print
    noise while the interpreter tears down (nanobind's "leaked instances"); the one line has
    been printed and every transaction is committed or rolled back, so the process leaves
    without that teardown.
    """
    try:
        main()
    except SystemExit as exc:
        if exc.code in (EXIT_INTERRUPTED, EXIT_TERMINATED):
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(exc.code)
        raise
