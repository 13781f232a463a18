"""What every `channelkit` command shares, so that they all behave alike.

A leaf module: the commands' modules (`service/cli.py`, `sync/cli.py`, ...) import it, never
`channelkit.cli`, which names them.

- **Messages** (`user_errors`): a user mistake is one line on stderr naming the flag
  (`--since`), what is wrong and the fix, never a traceback and never a Python keyword
  (`only=`); a service that is down, a TLS/plain-HTTP mismatch, a refused key each get a
  hint. Exit 2 for a bad flag, 1 for anything else refused.
- **Order**: every option's syntax is checked by its click type, before the callback runs;
  the callback then checks configuration (`service_config`), and only then talks to the
  network.
- **Output** (`output_options`, `Output`): the convention every command follows, `deliver`
  included:
  - stdout holds the result (a summary, a path), nothing else; `--json` replaces it with
    one JSON object (`Output.json`) for scripts;
  - stderr holds step lines (`Output.step`, timestamped when stderr is not a terminal) and
    every failure's reason; progress bars only when stderr is a terminal and
    `--no-progress` was not given (`Output.progress`); never a carriage return otherwise;
  - `-q/--quiet` prints nothing at all on success, so `cmd && other` under cron mails only
    failures.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import json
import math
import re
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, NotRequired, Protocol, TypedDict, TypeVar, cast

import click
from click.decorators import FC

from channelkit._constants import (
    CLI_NO_ANSWER_NOTICE_SECONDS,
    CLI_SECONDS_MAX,
    CLI_YEARS,
    CLIENT_TIMEOUT_SECONDS,
    DEFAULT_TZ,
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_READ_TIMEOUT,
    ENV_TZ,
    WAREHOUSE_PATH,
)
from channelkit._spec import API_VERSION_SEGMENT
from channelkit._terminal import escape_controls
from channelkit._tz import load_zone
from channelkit._urls import suggest_base_url
from channelkit.errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    ChannelkitError,
    InvalidParameterError,
    PermissionDeniedError,
    SpreadsheetError,
)

_SERVE_HINT = "is the service running? start one with `channelkit serve --seed demo`"


# --- interrupts: the state `channelkit.cli` sets from its signal handlers -------------------


class _Stopped(Exception):
    """A command ended by an interrupt, carried past click's own KeyboardInterrupt handling."""


_interrupted: list[int] = []  # the exit code of the signal received, once one was


def stop_if_interrupted() -> None:
    """After work that may have swallowed an interrupt (DuckDB turns Ctrl-C into its own
    "Query interrupted" error, which a runner may record as a failure), end as interrupted
    instead of printing a failure summary."""
    if _interrupted:
        raise _Stopped


# --- messages -----------------------------------------------------------------------------


def _flag(ctx: click.Context | None, param: str) -> str:
    """The option a Python parameter name stands for in the current command (`--since`)."""
    if ctx is not None:
        for option in ctx.command.params:
            if option.name == param and isinstance(option, click.Option):
                return max(option.opts, key=len)
    return "--" + param.replace("_", "-")


def cli_words(message: str, ctx: click.Context | None = None) -> str:
    """`since=...`, `pass api_key=...` in a library message, as the command line says it."""
    ctx = ctx or click.get_current_context(silent=True)
    if ctx is None:
        return message
    for option in ctx.command.params:
        if isinstance(option, click.Option) and option.name:
            flag = max(option.opts, key=len)
            message = re.sub(rf"\b{option.name}=(?=\.\.\.)", f"{flag} ", message)
            message = re.sub(rf"\b{option.name}=", f"{flag} ", message)
    return message


def hint_for(exc: BaseException) -> str | None:
    """What to do about a failure to talk to the service, or None when nothing helps."""
    text = str(exc)
    if isinstance(exc, AuthenticationError):
        return (
            f"the API key was refused: fix {ENV_API_KEY} (or --api-key); "
            "`channelkit serve --seed demo` prints the demo keys"
        )
    if isinstance(exc, PermissionDeniedError):
        return "the API key lacks a scope this needs: use a key that has it (see docs/api.md)"
    if "plain http request was sent to https port" in text.lower():  # nginx's 400 page
        return "the server expects TLS: use https:// instead of http:// in the base URL"
    if not isinstance(exc, APIConnectionError):
        return None
    return connection_hint(text)


def connection_hint(text: str) -> str | None:
    """The hint for a connection failure's message (refused, TLS mismatch, unknown host)."""
    lowered = text.lower()
    if "wrong_version_number" in lowered or "wrong version number" in lowered:
        return "the server speaks plain HTTP: use http:// instead of https:// in the base URL"
    if "connection refused" in lowered or "errno 111" in lowered:
        return _SERVE_HINT + ", or check the host and port of the base URL"
    if "name or service not known" in lowered or "nodename nor servname" in lowered:
        return "the host name is unknown: check the base URL"
    if "remoteprotocolerror" in lowered or "server disconnected" in lowered:
        return "if the service uses TLS, use https:// in the base URL"
    return None


def failure_message(exc: BaseException, ctx: click.Context | None = None) -> str:
    """One line for a failure: its reason (in the command line's words) and its hint."""
    if isinstance(exc, InvalidParameterError):
        text = f"{_flag(ctx, exc.param)}: {exc.message}"
    else:
        text = str(exc)
    text = cli_words(text, ctx)
    hint = hint_for(exc)
    return f"{text}\nhint: {hint}" if hint else text


class _BadFile(click.ClickException):
    """A file that cannot be used at all (empty, wrong type, encrypted): exit 2, like a
    usage error, but without the usage text, since no flag is wrong."""

    exit_code = 2


_Parameters = Literal["flags", "text", "refusal"]  # whose parameters a ValueError names


@contextlib.contextmanager
def user_errors(
    *,
    prefix: str = "",
    on_refusal: Callable[[str], None] | None = None,
    writing: Path | None = None,
    parameters: _Parameters = "flags",
) -> Iterator[None]:
    """Turn channelkit's own errors into one-line messages, the same way in every command:
    the one place that decides a failure's line and exit code (`channelkit.cli` shows it).

    A bad parameter (channelkit's errors that are also `ValueError`) exits 2 like a bad
    flag, named as the flag; a file that cannot be used (`SpreadsheetError`) exits 2;
    anything else channelkit refuses exits 1, with a hint when one helps (service not
    running, TLS mismatch, key refused). `prefix` says what the refusal means for the
    command ("nothing was sent: "); `on_refusal` gets the message first, e.g. to write a
    results file that records it.

    `writing=target`: the block writes `target`, so whatever fails there (the disk, the
    safe writer's "no such folder") is "cannot write TARGET: why", exit 1.
    `parameters` says whose parameters a `ValueError` names: "flags" (the command's own),
    "text" (a config file's keys: exit 2 in the library's words), or "refusal" (a step
    the command runs itself, such as `report --sync`: exit 1, as any refusal).

        with user_errors():
            run_sync_command(options, service, output)
    """
    try:
        yield
    except OSError as exc:
        if writing is None:
            raise
        raise click.ClickException(f"cannot write {writing}: {exc.strerror or exc}") from None
    except ChannelkitError as exc:
        raise _one_line(exc, prefix, on_refusal, writing, parameters) from None


def _one_line(
    exc: ChannelkitError,
    prefix: str,
    on_refusal: Callable[[str], None] | None,
    writing: Path | None,
    parameters: _Parameters,
) -> click.ClickException:
    """The click exception `user_errors` raises for `exc` (see there)."""
    ctx = click.get_current_context(silent=True)
    if isinstance(exc, SpreadsheetError):
        return _BadFile(str(exc))
    if writing is not None and isinstance(exc, InvalidParameterError):
        return click.ClickException(f"cannot write {writing}: {exc.message}")
    if isinstance(exc, ValueError) and parameters == "text":
        return click.UsageError(str(exc))
    message = failure_message(exc, ctx)
    if isinstance(exc, ValueError) and parameters == "flags":
        return click.UsageError(message, ctx)
    if on_refusal is not None:
        on_refusal(message)
    return click.ClickException(prefix + message)


def date_problem(text: str) -> str:
    """Why `text` is not a YYYY-MM-DD date, said so that the fix is obvious.

    >>> date_problem("2026-13-01")
    "'2026-13-01' is not a date (month must be in 1..12); use YYYY-MM-DD, e.g. 2026-11-01"
    """
    from datetime import date

    example = "use YYYY-MM-DD, e.g. 2026-11-01"
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text.strip()):
        try:
            date.fromisoformat(text.strip())
        except ValueError as exc:
            return f"{text!r} is not a date ({exc}); {example}"
    return f"{text!r} is not a date; {example}"


class TimeZoneName(click.ParamType[Any, Any]):
    """An IANA time zone name, checked before anything runs; nearest names when unknown.
    The command gets the `ZoneInfo`: the one resolution of the name (docs/architecture.md,
    "Time zones: the edge")."""

    name = "tz"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return load_zone(value)
        except InvalidParameterError as exc:
            where = " (the value of CHANNELKIT_TZ)" if _from_environment(ctx, param) else ""
            self.fail(f"{exc.message}{where}", param, ctx)


class Number(click.ParamType[Any, Any]):
    """A finite number from `low` to `high` (above `low` when `above`), for every numeric flag
    and its environment variable: inf, nan, 1e20 or a negative number is one line naming the
    flag, never an overflow deep inside the command.

    click.option("--lookback-days", type=Number(int, 0, CLI_DAYS_MAX, "a whole number of days"))
    """

    def __init__(
        self, kind: type[int] | type[float], low: float, high: float, what: str, *,
        above: bool = False,
    ) -> None:  # fmt: skip
        self.kind = kind
        self.low, self.high, self.what, self.above = low, high, what, above
        self.name = "integer" if kind is int else "float"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = self._number(value)
        low_ok = number is not None and (number > self.low if self.above else number >= self.low)
        if number is None or not low_ok or number > self.high:
            lowest = f"above {self.low:g} and up" if self.above else f"from {self.low:g}"
            where = ""
            if param is not None and _from_environment(ctx, param):
                where = f" (the value of {param.envvar})"
            self.fail(f"{value!r}{where} is not {self.what} {lowest} to {self.high:g}", param, ctx)
        return number

    def _number(self, value: Any) -> int | float | None:
        if isinstance(value, bool):
            return None
        number: int | float
        if isinstance(value, int | float):
            number = value
        else:
            try:
                number = float(str(value).strip())
            except ValueError:
                return None
        if not math.isfinite(number):
            return None
        if self.kind is int:
            return int(number) if float(number).is_integer() else None
        return float(number)


# A date at the start of a value ("2026-10-05", "2026-10-05 09:00", "2026-10"): its year.
_YEAR_RE = re.compile(r"^\s*([+-]?\d{1,6})-\d{1,2}(?:-\d{1,2})?(?:\D|$)")


def far_date(text: str) -> str | None:
    """Why `text`, a date or a time as typed, is out of range (its year outside CLI_YEARS:
    year 1 or 9999 would overflow the first day added to it), or None.

    >>> far_date("9999-12-31")
    "'9999-12-31': the year 9999 is out of range; give a date from 1970 to 2999"
    """
    found = _YEAR_RE.match(text)
    if found is None:
        return None
    year = int(found[1])
    first, last = CLI_YEARS
    if first <= year <= last:
        return None
    return f"{text!r}: the year {year} is out of range; give a date from {first} to {last}"


class Day(click.ParamType[Any, Any]):
    """A day or a time as typed, which the command reads in its zone: refused at the edge
    when its year is far (`far_date`), kept as text otherwise.

    click.option("--from", "start", type=Day(), help="Posts scheduled from this day or time.")
    """

    name = "date"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and (far := far_date(value)) is not None:
            self.fail(far, param, ctx)
        return value


class Parsed(click.ParamType[Any, Any]):
    """A click type around one of the commands' parsers (a date, a period, a duration), so a
    bad value exits 2 with the parser's message naming the flag; a far date (`far_date`) is
    refused before the parser sees it.

    click.option("--since", type=Parsed("date", parse_date))
    """

    def __init__(self, name: str, parse: Callable[[str], Any]) -> None:
        self.name = name
        self._parse = parse

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        if (far := far_date(value)) is not None:
            self.fail(far, param, ctx)
        try:
            return self._parse(value)
        except InvalidParameterError as exc:
            self.fail(exc.message, param, ctx)


def _from_environment(ctx: click.Context | None, param: click.Parameter | None) -> bool:
    if ctx is None or param is None or param.name is None:
        return False
    return ctx.get_parameter_source(param.name) is click.core.ParameterSource.ENVIRONMENT


def tz_option(help_text: str, *, default: str | None = DEFAULT_TZ) -> Callable[[FC], FC]:
    """`--tz NAME`, defaulting to `CHANNELKIT_TZ`, else `default` (as `_tz.resolve_zone` does).

    Publishing passes `default=None`: a naive time read as UTC by accident would publish at
    the wrong hour, so there it stays an error.
    """
    return click.option(
        "--tz",
        type=TimeZoneName(),
        envvar=ENV_TZ,
        show_envvar=True,
        default=default,
        show_default=default is not None,
        metavar="NAME",
        help=help_text,
    )


def channel_option() -> Callable[[FC], FC]:
    """`--channel NAME` (repeatable) into `channels`: the channels a command reads."""
    return click.option(
        "--channel",
        "channels",
        multiple=True,
        help="Only this channel (id, slug or name); repeat for several.",
    )


def warehouse_option(
    help_text: str = "Warehouse file written by `channelkit sync`.",
) -> Callable[[FC], FC]:
    """`--db FILE`, the warehouse file (default `WAREHOUSE_PATH`), as every command that
    reads or writes it takes it."""
    return click.option(
        "--db",
        type=click.Path(dir_okay=False, path_type=Path),
        default=WAREHOUSE_PATH,
        show_default=True,
        help=help_text,
    )


def settings_file_argument(name: str) -> Callable[[FC], FC]:
    """The TOML file a job runs from (`deliver`'s delivery file, `watch`'s watch file, which
    shares its targets): a path the command reads, naming the file and key of a mistake."""
    return click.argument(name, type=click.Path(dir_okay=False, path_type=Path))


# --- configuration --------------------------------------------------------------------------


class ClientSettings(TypedDict):
    """The keywords of `Client(...)` that the shared flags decide: `Client(**settings)`."""

    base_url: str
    api_key: str
    timeout: NotRequired[Any]  # an httpx.Timeout: --read-timeout, when given


@dataclass(frozen=True)
class ServiceConfig:
    """The shared service flags, checked: what a command connects with.

    with Client(**config.client_settings()) as client: ...
    """

    base_url: str
    api_key: str = dataclasses.field(repr=False)  # a key never shows in a repr
    timeout: float | None = None  # --read-timeout: the read timeout, when given

    def client_settings(self) -> ClientSettings:
        settings = ClientSettings(base_url=self.base_url, api_key=self.api_key)
        if self.timeout is not None:
            import httpx

            from channelkit._constants import CLIENT_CONNECT_TIMEOUT_SECONDS

            connect = min(self.timeout, CLIENT_CONNECT_TIMEOUT_SECONDS)
            settings["timeout"] = httpx.Timeout(self.timeout, connect=connect)
        return settings

    @property
    def read_timeout(self) -> float:
        return CLIENT_TIMEOUT_SECONDS if self.timeout is None else self.timeout


def check_base_url(base_url: str | None, *, needed_for: str = "") -> str:
    """`--base-url`, checked in the command line's words (before anything is sent)."""
    why = f" {needed_for}" if needed_for else ""
    if not base_url or not base_url.strip():
        raise click.UsageError(
            f"--base-url: no service URL given{why}; set {ENV_BASE_URL} (or pass --base-url), "
            f"e.g. export {ENV_BASE_URL}=http://127.0.0.1:8000{API_VERSION_SEGMENT} for "
            "`channelkit serve`"
        )
    url = base_url.strip()
    if not re.match(r"^https?://[^/\s]+", url):
        raise click.BadParameter(
            f"{url!r} is not an http:// or https:// URL; e.g. "
            f"http://127.0.0.1:8000{API_VERSION_SEGMENT}",
            param_hint="--base-url",
        )
    suggestion = suggest_base_url(url)
    if suggestion is not None:
        raise click.BadParameter(
            f"{url!r} must end in the API version {API_VERSION_SEGMENT}; use {suggestion}",
            param_hint="--base-url",
        )
    return url.rstrip("/")


def check_api_key(api_key: str | None, *, needed_for: str = "") -> str:
    why = f" {needed_for}" if needed_for else ""
    if not api_key or not api_key.strip():
        raise click.UsageError(
            f"--api-key: no API key given{why}; set {ENV_API_KEY} (or pass --api-key); "
            "`channelkit serve --seed demo` prints the demo keys"
        )
    if any(c.isspace() or not c.isprintable() for c in api_key.strip()):
        raise click.BadParameter(
            "the key contains spaces or control characters; copy it again",
            param_hint="--api-key",
        )
    return api_key.strip()


def service_config(
    base_url: str | None,
    api_key: str | None,
    *,
    needed_for: str = "",
    timeout: float | None = None,
) -> ServiceConfig:
    """Both settings checked, the URL first (a wrong URL makes any key look wrong)."""
    return ServiceConfig(
        check_base_url(base_url, needed_for=needed_for),
        check_api_key(api_key, needed_for=needed_for),
        timeout,
    )


@dataclass(frozen=True)
class ServiceOptions:
    """The shared service flags as given, one value for every command that talks to the
    service: a new shared flag is a field here and an option in `_service_flags`.

    @click.command()
    @options_value(SyncFlags, "options")     # the command's own flags, as one value
    @service_options()
    @output_options()
    def sync(options: SyncFlags, service: ServiceOptions, output: Output) -> None:
        with user_errors():                   # every failure: one line, its exit code
            _sync(options, service, output)

    def _sync(options, service, output):
        config = service.config()             # checked, or a one-line usage error
        with Client(**config.client_settings()) as client: ...
    """

    base_url: str | None = None
    api_key: str | None = dataclasses.field(default=None, repr=False)
    timeout: float | None = None

    def config(self, *, needed_for: str = "") -> ServiceConfig:
        """Both settings checked, the URL first (a wrong URL makes any key look wrong)."""
        return service_config(
            self.base_url, self.api_key, needed_for=needed_for, timeout=self.timeout
        )


_Options = TypeVar("_Options")


def options_value(cls: type[_Options], name: str) -> Callable[[FC], FC]:
    """Hand the command the parameters named like the fields of the dataclass `cls` as one
    value `name=cls(...)`, so that a command takes one options object, not twenty flags.

    Put it above the options it collects (decorators apply bottom-up).
    """
    fields = [field.name for field in dataclasses.fields(cast(Any, cls))]

    def decorate(command: FC) -> FC:
        @functools.wraps(command)
        def with_value(*args: Any, **kwargs: Any) -> Any:
            values = {field: kwargs.pop(field) for field in fields if field in kwargs}
            return command(*args, **{name: cls(**values)}, **kwargs)

        return cast(FC, with_value)

    return decorate


def _service_flags(prefix: str) -> list[Callable[[FC], FC]]:
    return [
        click.option(
            "--base-url",
            envvar=ENV_BASE_URL,
            show_envvar=True,
            metavar="URL",
            help=f"{prefix}The service's base URL, ending in /v1.",
        ),
        click.option(
            "--api-key",
            envvar=ENV_API_KEY,
            show_envvar=True,
            metavar="KEY",
            help=f"{prefix}API key (prefer the environment variable: a flag shows in `ps`).",
        ),
        click.option(
            "--read-timeout",
            "timeout",
            envvar=ENV_READ_TIMEOUT,
            show_envvar=True,
            type=Number(float, 0, CLI_SECONDS_MAX, "a number of seconds", above=True),
            metavar="SECONDS",
            help=f"{prefix}Seconds the service has to answer a request "
            f"[default: {CLIENT_TIMEOUT_SECONDS:g}].",
        ),
    ]


def service_options(when: str | None = None) -> Callable[[FC], FC]:
    """`--base-url` and `--api-key`, defaulting to the environment, alike in every command;
    the command receives them as one `service: ServiceOptions`.

    `when` prefixes the help of commands that only sometimes talk to the service
    ("With --sync").
    """
    prefix = f"{when}: " if when else ""

    def decorate(command: FC) -> FC:
        command = options_value(ServiceOptions, "service")(command)
        for flag in reversed(_service_flags(prefix)):
            command = flag(command)
        return command

    return decorate


# --- reaching the service --------------------------------------------------------------------


class Reachable(Protocol):
    """What `reach` needs of a `Client` (this module imports no client)."""

    @property
    def base_url(self) -> str: ...
    @property
    def connection_retry_budget(self) -> float: ...

    on_wait: Any

    def request(
        self, method: str, path: str, *, params: Any = None, max_retries: int | None = None
    ) -> Any: ...


def reach(client: Reachable, config: ServiceConfig, warn: Callable[[str], None]) -> None:
    """A run's first request, before any other, so that no run waits in silence.

    Refused there: nothing listens at that address (a wrong --base-url, or no service
    started), which waiting would only hide, so it fails at once naming the address.
    Accepted but unanswered: said at once, then it fails after the read timeout, naming
    --read-timeout. Once reached, a refused connection is a restarting service: the client
    retries it for its budget, and the first retry prints one line.
    """
    url = client.base_url
    waiting = (
        f"cannot reach {url}: no answer yet; waiting up to {config.read_timeout:g} s (the "
        "read timeout, --read-timeout)"
    )
    notice = threading.Timer(CLI_NO_ANSWER_NOTICE_SECONDS, warn, [waiting])
    notice.daemon = True
    notice.start()
    try:
        client.request("GET", "/channels", params={"limit": 1}, max_retries=0)
    except APITimeoutError:
        raise APITimeoutError(
            f"no answer from {url} within {config.read_timeout:g} s (the read timeout); "
            f"check --base-url ({ENV_BASE_URL}), or allow longer with --read-timeout"
        ) from None
    except APIConnectionError as exc:
        if not _nothing_there(exc):
            # reset or cut short: a service in trouble, not a wrong address; once more,
            # with the client's usual retries (and the line when they start)
            _say_first_retry(client, warn)
            client.request("GET", "/channels", params={"limit": 1})
            return
        raise APIConnectionError(
            f"the service could not be reached at {url}: {exc.message}; check --base-url "
            f"({ENV_BASE_URL})"
        ) from None
    except APIError:
        # it answered (an error status, or a body that is not the interface's): reached;
        # the run meets the same answer where it matters, with its retries and its words
        pass
    finally:
        notice.cancel()
    _say_first_retry(client, warn)


def _nothing_there(exc: APIConnectionError) -> bool:
    """A connection refused, timed out while connecting, or to a host that does not
    resolve: nothing listens at that address."""
    text = exc.message
    return any(kind in text for kind in ("ConnectError", "ConnectTimeout", "does not resolve"))


def _say_first_retry(client: Reachable, warn: Callable[[str], None]) -> None:
    """Chain `client.on_wait` so that the first connection retry prints one line."""
    previous = client.on_wait
    said = threading.Lock()
    budget = client.connection_retry_budget

    def hook(event: Any) -> None:
        if event.reason == "connection" and said.acquire(blocking=False):
            warn(f"cannot reach {client.base_url}: retrying for up to {budget:g} s")
        if previous is not None:
            previous(event)

    client.on_wait = hook


# --- output ---------------------------------------------------------------------------------


def output_options(
    *, json_summary: bool = False, progress: bool = False, quiet_help: str = ""
) -> Callable[[FC], FC]:
    """`-q/--quiet`, and `--json` / `--progress/--no-progress` where the command has them.

    The command receives them as one value, `output: Output`, the object that decides what
    goes where. `quiet_help` replaces the help of `--quiet` where it means something else.
    """

    def decorate(command: FC) -> FC:
        command = _as_output(command)
        if progress:
            command = click.option(
                "--progress/--no-progress",
                default=True,
                show_default=True,
                help="Progress bars on stderr; shown only when stderr is a terminal.",
            )(command)
        if json_summary:
            command = click.option(
                "--json",
                "json_output",
                is_flag=True,
                help="Print the summary as one JSON object on stdout (for scripts).",
            )(command)
        return click.option(
            "-q",
            "--quiet",
            is_flag=True,
            help=quiet_help
            or "Print nothing on success (errors still go to stderr): cron mails only failures.",
        )(command)

    return decorate


def _as_output(command: FC) -> FC:
    @functools.wraps(command)
    def with_output(*args: Any, **kwargs: Any) -> Any:
        output = Output.from_options(
            quiet=kwargs.pop("quiet"),
            json_output=kwargs.pop("json_output", False),
            progress=kwargs.pop("progress", True),
        )
        return command(*args, output=output, **kwargs)

    return cast(FC, with_output)


@dataclass(frozen=True)
class Output:
    """Where a command's words go: see this module's docstring for the convention.
    `output_options` hands every command one, built from its flags.

    output = Output.from_options(quiet=False, json_output=False, progress=True)
    output.step("syncing")                # stderr log line, not under --quiet
    output.result("3 posts scheduled")    # stdout, not under --quiet or --json
    output.json({"ok": True})             # stdout, only with --json
    run_sync(..., progress=output.progress)
    """

    quiet: bool = False
    json_output: bool = False
    show_progress: bool = True
    command: str = "channelkit"

    @classmethod
    def from_options(
        cls, *, quiet: bool = False, json_output: bool = False, progress: bool = True
    ) -> Output:
        ctx = click.get_current_context(silent=True)
        name = f"channelkit {ctx.info_name}" if ctx is not None and ctx.info_name else "channelkit"
        return cls(quiet=quiet, json_output=json_output, show_progress=progress, command=name)

    @property
    def progress(self) -> bool:
        """Progress bars: asked for, on a terminal, and not quiet or machine-readable."""
        return (
            self.show_progress and not self.quiet and not self.json_output and stderr_is_terminal()
        )

    def step(self, message: str) -> None:
        if self.quiet:
            return
        if stderr_is_terminal():
            click.echo(f"{self.command}: {message}", err=True)
        else:
            stamp = datetime.now().astimezone().strftime("%Y-%m-%dT%H:%M:%S%z")
            click.echo(f"{stamp} {self.command}: {message}", err=True)

    # Lines may quote titles and cells: escape_controls keeps their escape sequences and
    # bidi controls from reaching the terminal. Newlines stay: a result may be a table
    # (serve's keys), and a line break cannot recolour or reorder anything.
    def result(self, text: str) -> None:
        if not self.quiet and not self.json_output:
            click.echo(escape_controls(text, keep_newlines=True))

    def warn(self, text: str) -> None:
        """Something the user should know even under --quiet (it goes to stderr)."""
        click.echo(f"warning: {escape_controls(text, keep_newlines=True)}", err=True)

    def error(self, text: str) -> None:
        """A problem with one row or item (stderr, even under --quiet)."""
        click.echo(escape_controls(text, keep_newlines=True), err=True)

    def json(self, payload: dict[str, Any]) -> None:
        if self.json_output:
            click.echo(json.dumps(payload, default=str, sort_keys=True))


def stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
