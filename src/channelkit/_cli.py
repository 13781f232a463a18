"""What every subcommand shares: one way to show user errors, one set of service flags.

A leaf module: the commands' modules import it, never `channelkit.cli` (which imports them).

    @click.command()
    @service_options()
    def sync(base_url: str | None, api_key: str | None) -> None:
        with user_errors():
            ...
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import click
from click.decorators import FC

from channelkit._constants import DEFAULT_TZ, ENV_API_KEY, ENV_BASE_URL, ENV_TZ
from channelkit.errors import ChannelkitError


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn channelkit's own errors into one-line messages, the same way in every command.

    A bad parameter (channelkit's errors that are also `ValueError`) exits 2 like a bad
    flag; anything else channelkit refuses exits 1.
    """
    try:
        yield
    except ChannelkitError as exc:
        if isinstance(exc, ValueError):
            raise click.UsageError(str(exc)) from None
        raise click.ClickException(str(exc)) from None


def service_options(when: str | None = None) -> Callable[[FC], FC]:
    """`--base-url` and `--api-key`, defaulting to the environment, alike in every command.

    `when` prefixes the help of commands that only sometimes talk to the service
    ("With --sync").
    """
    prefix = f"{when}. " if when else ""

    def decorate(command: FC) -> FC:
        command = click.option(
            "--api-key",
            envvar=ENV_API_KEY,
            show_envvar=True,
            metavar="KEY",
            help=f"{prefix}API key (prefer the environment variable: a flag shows in `ps`).",
        )(command)
        return click.option(
            "--base-url",
            envvar=ENV_BASE_URL,
            show_envvar=True,
            metavar="URL",
            help=f"{prefix}The service's base URL, ending in /v1.",
        )(command)

    return decorate


def tz_option(purpose: str, *, type: click.ParamType[Any, Any] | None = None) -> Callable[[FC], FC]:
    """`--tz`, alike in every command: unset means CHANNELKIT_TZ, else UTC (`_tz.resolve_tz`).

    `purpose` starts the help ("Time zone of the report's calendar"). The command passes the
    value, None when not given, to a function that resolves it, so that the order of
    precedence lives in one place.
    """
    return click.option(
        "--tz",
        type=type,
        metavar="ZONE",
        help=f"{purpose}, an IANA name such as Europe/Berlin "
        f"[default: {ENV_TZ} when set, else {DEFAULT_TZ}].",
    )
