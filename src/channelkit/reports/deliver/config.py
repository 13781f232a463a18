"""The delivery file (`channelkit deliver CONFIG.toml`), read and checked before anything runs.

    [smtp]                      # or CHANNELKIT_SMTP_URL=smtp://user:pass@host:port
    url = "smtp://127.0.0.1:2525"
    from = "Comms analytics <analytics@example.com>"
    starttls = false

    [[reports]]
    name = "weekly-all-hands"
    period = "week"
    tz = "Europe/Berlin"
    channels = ["all-hands"]
    email = ["comms-lead@example.com"]
    webhooks = [{ url = "https://hooks.example.com/T000/B000", kind = "slack" }]
    out_dir = "reports/weekly"
    when = "news"               # only when there is news; default "always"
    on_failure = { email = ["ops@example.com"] }   # or { url = "https://...", kind = "slack" }

Every mistake is an `InvalidParameterError` naming the file and the key
(`deliver.toml: reports[0].period: ...`; a misspelt key gets "did you mean"). Secrets
(the SMTP password, webhook URLs) stay in these objects: what is shown of them is
`SmtpSettings.shown` and `Webhook.shown`.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from email.headerregistry import Address
from email.utils import getaddresses, parseaddr
from pathlib import Path
from typing import Any, ClassVar
from urllib.parse import unquote, urlsplit
from zoneinfo import ZoneInfo

from channelkit._constants import (
    DEFAULT_TZ,
    DELIVER_SMTP_TIMEOUT_S,
    DELIVER_WHEN,
    DELIVER_WHEN_DEFAULT,
    ENV_SMTP_URL,
    NOTEBOOK_TIMEOUT_S,
    REPORT_COMPARE_DEFAULT,
)
from channelkit._suggest import choices_text
from channelkit._tz import DEFAULT_ZONE, load_zone
from channelkit.errors import DeliveryError, InvalidParameterError
from channelkit.reports.deliver.kinds import WEBHOOK_KINDS
from channelkit.reports.parameters import check_compare, check_period, parse_duration

_NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_SMTP_SCHEMES = {"smtp": 25, "smtps": 465}
_SMTP_KEYS = {"url", "from", "starttls"}
_WEBHOOK_KEYS = {"url", "url_env", "kind", "name"}


@dataclass(frozen=True)
class SmtpSettings:
    """Where and how to send mail; `password` never leaves this object.

    SmtpSettings("127.0.0.1", 2525, sender="analytics@example.com")
    """

    host: str
    port: int
    sender: str
    user: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)
    ssl: bool = False
    starttls: bool = False
    timeout: float = DELIVER_SMTP_TIMEOUT_S

    @property
    def shown(self) -> str:
        """`smtp://host:port`, without user and password."""
        return f"{'smtps' if self.ssl else 'smtp'}://{self.host}:{self.port}"


@dataclass(frozen=True)
class Webhook:
    """A chat webhook; its URL is a secret (whoever has it can post), so it is shown as
    scheme and host only and recorded in the ledger as a hash.

    Webhook("https://hooks.example.com/T000/B000", "slack")
    """

    url: str = field(repr=False)
    kind: str
    name: str = ""  # its `name` in the file, else "webhooks[N]": tells two alike apart

    @property
    def shown(self) -> str:
        parts = urlsplit(self.url)
        label = f"{self.name} " if self.name else ""
        return f"{label}({self.kind} webhook {parts.scheme}://{parts.hostname}/\u2026)"

    @property
    def target(self) -> str:
        digest = hashlib.sha256(self.url.encode("utf-8")).hexdigest()[:16]
        return f"webhook:{self.kind}:{digest}"


@dataclass(frozen=True)
class FailureTarget:
    """Who hears that a report could not be built (`on_failure`): a list of addresses or
    one webhook, told once per period.

    FailureTarget(email=("ops@example.com",))
    """

    email: tuple[str, ...] = ()
    webhook: Webhook | None = None

    @property
    def key(self) -> str:
        """Its ledger target: no secret."""
        inner = self.webhook.target if self.webhook else "email:" + ",".join(self.email)
        return "failure:" + inner

    @property
    def shown(self) -> str:
        inner = self.webhook.shown if self.webhook else "email " + ", ".join(self.email)
        return "failure notice to " + inner


@dataclass(frozen=True, kw_only=True)
class Job:
    """What every `[[reports]]` entry has: its name, who receives it, where it is kept.

    Job(name="weekly", email=("comms-lead@example.com",))
    """

    KEYS: ClassVar[frozenset[str]] = frozenset(
        {"name", "tz", "channels", "email", "webhooks", "out_dir", "subject", "on_failure"}
    )
    NOUN: ClassVar[str] = "a report"

    name: str
    tz: ZoneInfo = DEFAULT_ZONE  # resolved where the file is read: below, never a name
    channels: tuple[str, ...] = ()
    email: tuple[str, ...] = ()
    webhooks: tuple[Webhook, ...] = ()
    out_dir: Path | None = None
    subject: str | None = None
    on_failure: FailureTarget | None = None

    @property
    def email_target(self) -> str:
        return "email:" + ",".join(self.email)


@dataclass(frozen=True, kw_only=True)
class PeriodJob(Job):
    """An entry sent once per complete period (`period = "week"`): a report or a notebook."""

    KEYS: ClassVar[frozenset[str]] = Job.KEYS | {"period", "compare", "when"}

    period: str
    compare: str = REPORT_COMPARE_DEFAULT
    when: str = DELIVER_WHEN_DEFAULT  # "news": sent only for a period with news


@dataclass(frozen=True, kw_only=True)
class ReportJob(PeriodJob):
    """The built-in report of a period.

    ReportJob(name="weekly", period="week", email=("comms-lead@example.com",), csv=True)
    """

    KEYS: ClassVar[frozenset[str]] = PeriodJob.KEYS | {"csv"}

    csv: bool = False  # the report's data as CSV files, zipped, with the email


@dataclass(frozen=True, kw_only=True)
class NotebookJob(PeriodJob):
    """The user's notebook, run for the period and sent instead of the built-in report.

    NotebookJob(name="mine", period="week", notebook=Path("mine.ipynb"), email=(...))
    """

    KEYS: ClassVar[frozenset[str]] = PeriodJob.KEYS | {"notebook", "timeout"}
    NOUN: ClassVar[str] = "a notebook report"

    notebook: Path
    timeout: float = NOTEBOOK_TIMEOUT_S  # the notebook's whole run, in seconds


@dataclass(frozen=True, kw_only=True)
class UpcomingJob(Job):
    """The digest of what is scheduled `within` this far ahead, sent once a day.

    UpcomingJob(name="morning", within=timedelta(hours=36), email=(...))
    """

    KEYS: ClassVar[frozenset[str]] = (Job.KEYS - {"on_failure"}) | {"upcoming"}
    NOUN: ClassVar[str] = "an upcoming digest"

    within: timedelta


JOB_KINDS: tuple[type[Job], ...] = (ReportJob, NotebookJob, UpcomingJob)
# A key another kind of entry takes, given to this one: why it is refused
_NOT_HERE = {"timeout": "limits a notebook run; give notebook"}


@dataclass(frozen=True)
class DeliveryConfig:
    """The whole file: mail settings (None when no report mails) and the reports."""

    smtp: SmtpSettings | None
    reports: tuple[Job, ...]

    def job(self, name: str) -> Job:
        for job in self.reports:
            if job.name == name:
                return job
        names = ", ".join(job.name for job in self.reports)
        raise InvalidParameterError("force", f"no report is named {name!r} (there are: {names})")

    def email_settings(self) -> SmtpSettings:
        """The `[smtp]` settings, for a report that sends email (`load_config` requires them
        then: a `DeliveryError` otherwise)."""
        if self.smtp is None:
            raise DeliveryError("no [smtp] settings")
        return self.smtp


def load_config(path: str | Path, env: Mapping[str, str] | None = None) -> DeliveryConfig:
    """Read and check the delivery file at `path`; `env` supplies `CHANNELKIT_SMTP_URL`."""
    file = Path(path)
    env = os.environ if env is None else env
    data = read_toml(file, "config")
    where = str(file)
    known_keys(data, {"smtp", "reports"}, where, "section")
    raw_reports = data.get("reports")
    if not isinstance(raw_reports, list) or not raw_reports:
        raise InvalidParameterError(where, "no [[reports]]: add at least one")
    jobs = tuple(
        _job(item, f"{where}: reports[{index}]", file.parent, env)
        for index, item in enumerate(raw_reports)
    )
    names = [job.name for job in jobs]
    duplicates = sorted({name for name in names if names.count(name) > 1})
    if duplicates:
        raise InvalidParameterError(where, f"two reports are named {duplicates[0]!r}")
    smtp = None
    if any(job.email or (job.on_failure and job.on_failure.email) for job in jobs):
        smtp = smtp_settings(data.get("smtp", {}), env, where)
    if any(isinstance(job, NotebookJob) for job in jobs):
        _no_inline_secret(data, where)
    return DeliveryConfig(smtp, jobs)


def _no_inline_secret(data: dict[str, Any], where: str) -> None:
    """Refuse a secret written in a delivery file that runs a notebook: the notebook's code
    runs as the same user and can read the file (its path is on the command line); secrets
    come from the environment, which the kernel never sees (`notebook_kernel`)."""
    why = "this file runs a notebook, whose code could read the file"
    smtp = data.get("smtp", {})
    if isinstance(smtp, dict) and isinstance(smtp.get("url"), str):
        if urlsplit(smtp["url"]).password:
            raise InvalidParameterError(
                f"{where}: smtp.url",
                f"a password in the file ({why}): give the URL with its password in "
                f"{ENV_SMTP_URL} instead, and keep smtp.url without it",
            )
    for index, item in enumerate(data["reports"]):
        report = f"{where}: reports[{index}]"
        variable = re.sub(r"\W", "_", str(item.get("name", f"report_{index}"))).upper()
        hooks = [(f"webhooks[{n}]", hook) for n, hook in enumerate(item.get("webhooks", []))]
        hooks.append(("on_failure", item.get("on_failure")))
        for key, hook in hooks:
            if isinstance(hook, dict) and "url" in hook:
                raise InvalidParameterError(
                    f"{report}.{key}.url",
                    f"a webhook's URL is its secret ({why}): put it in an environment variable "
                    f'and name it instead, url_env = "{variable}_HOOK_URL"',
                )


def read_toml(file: Path, param: str) -> dict[str, Any]:
    """The TOML file `file`; missing, unreadable or not TOML: one `InvalidParameterError`
    naming `param` and the file (the delivery file's and the watch file's)."""
    try:
        return tomllib.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidParameterError(param, f"{file}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidParameterError(param, f"{file}: cannot read it: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise InvalidParameterError(param, f"{file}: not valid TOML: {exc}") from None


def _job(item: Any, where: str, base: Path, env: Mapping[str, str]) -> Job:
    """One entry: an upcoming digest (`upcoming`), a notebook report (`notebook`) or the
    built-in report, each refusing the keys of the others."""
    if not isinstance(item, dict):
        raise InvalidParameterError(where, "expected a table of name, period, email, ...")
    known_keys(item, set().union(*(kind.KEYS for kind in JOB_KINDS)), where)
    kind = UpcomingJob if "upcoming" in item else NotebookJob if "notebook" in item else ReportJob
    other = sorted(set(item) - kind.KEYS)
    if other:
        why = _NOT_HERE.get(other[0], f"{kind.NOUN} takes no {other[0]}")
        raise InvalidParameterError(f"{where}.{other[0]}", why)
    common = _common(item, where, base, env)
    if kind is UpcomingJob:
        return UpcomingJob(
            **common, within=_checked_duration(where, _text(item, "upcoming", where))
        )
    period = _period(item, where)
    if kind is NotebookJob:
        return NotebookJob(**common, **period, **_notebook(item, where, base, common["channels"]))
    csv = item.get("csv", False)
    if not isinstance(csv, bool):
        raise InvalidParameterError(f"{where}.csv", "expected true or false")
    return ReportJob(**common, **period, csv=csv)


def _common(item: dict[str, Any], where: str, base: Path, env: Mapping[str, str]) -> dict[str, Any]:
    """The keys every kind of entry takes, checked, as `Job`'s fields."""
    name = _text(item, "name", where)
    if not _NAME_RE.fullmatch(name):
        raise InvalidParameterError(
            f"{where}.name",
            f"{name!r}: use letters, digits, '-', '_' and '.' (it names the report's files)",
        )
    tz = load_zone(_text(item, "tz", where, DEFAULT_TZ), param=f"{where}.tz")  # once, here
    email = tuple(address(text, f"{where}.email") for text in _texts(item, "email", where))
    webhooks = tuple(
        webhook(hook, f"webhooks[{index}]", where, env)
        for index, hook in enumerate(_list(item, "webhooks", where))
    )
    if not email and not webhooks:
        raise InvalidParameterError(where, "no email and no webhooks: nobody would receive it")
    out_dir = item.get("out_dir")
    if out_dir is not None and not isinstance(out_dir, str):
        raise InvalidParameterError(f"{where}.out_dir", "expected a folder path")
    subject = item.get("subject")
    if subject is not None and not isinstance(subject, str):
        raise InvalidParameterError(f"{where}.subject", "expected text")
    on_failure = item.get("on_failure")
    return {
        "name": name,
        "tz": tz,
        "channels": _texts(item, "channels", where),
        "email": email,
        "webhooks": webhooks,
        "out_dir": (base / out_dir) if out_dir else None,
        "subject": subject,
        "on_failure": None if on_failure is None else _on_failure(on_failure, where, env),
    }


def _period(item: dict[str, Any], where: str) -> dict[str, Any]:
    """`period`, `compare` and `when`: `PeriodJob`'s fields."""
    period = _text(item, "period", where)
    _checked(where, "period", lambda: check_period(period))
    compare = _text(item, "compare", where, REPORT_COMPARE_DEFAULT)
    _checked(where, "compare", lambda: check_compare(compare))
    when = item.get("when", DELIVER_WHEN_DEFAULT)
    if when not in DELIVER_WHEN:
        raise InvalidParameterError(
            f"{where}.when", f"{when!r}: expected {' or '.join(map(repr, DELIVER_WHEN))}"
        )
    return {"period": period, "compare": compare, "when": when}


def _notebook(
    item: dict[str, Any], where: str, base: Path, channels: tuple[str, ...]
) -> dict[str, Any]:
    """`notebook` and `timeout`: `NotebookJob`'s own fields."""
    notebook = item["notebook"]
    if not isinstance(notebook, str) or not notebook.endswith(".ipynb"):
        raise InvalidParameterError(f"{where}.notebook", "expected a notebook path (NB.ipynb)")
    if not (base / notebook).is_file():
        raise InvalidParameterError(f"{where}.notebook", f"{base / notebook}: no such file")
    if len(channels) > 1:
        raise InvalidParameterError(f"{where}.channels", "a notebook report takes one channel")
    return {"notebook": base / notebook, "timeout": _timeout(item, where)}


def _on_failure(raw: Any, where: str, env: Mapping[str, str]) -> FailureTarget:
    """`{ email = [...] }` or a webhook's `{ url = ..., kind = ... }`."""
    if not isinstance(raw, dict):
        raise InvalidParameterError(
            f"{where}.on_failure", "expected { email = [...] } or { url = ..., kind = ... }"
        )
    if "email" not in raw:
        return FailureTarget(webhook=webhook(raw, "on_failure", where, env))
    known_keys(raw, {"email"}, f"{where}.on_failure")
    email = tuple(
        address(text, f"{where}.on_failure.email")
        for text in _texts(raw, "email", f"{where}.on_failure")
    )
    if not email:
        raise InvalidParameterError(f"{where}.on_failure.email", "expected at least one address")
    return FailureTarget(email=email)


def smtp_settings(raw: Any, env: Mapping[str, str], where: str) -> SmtpSettings:
    if not isinstance(raw, dict):
        raise InvalidParameterError(f"{where}: smtp", "expected a [smtp] table")
    known_keys(raw, _SMTP_KEYS, f"{where}: smtp")
    # The environment wins, so that the file can be shared without the password.
    url = env.get(ENV_SMTP_URL) or raw.get("url")
    if not url:
        raise InvalidParameterError(
            f"{where}: smtp.url", f"reports send email: set smtp.url or {ENV_SMTP_URL}"
        )
    if not isinstance(url, str):
        raise InvalidParameterError(f"{where}: smtp.url", "expected smtp://host:port")
    parts = urlsplit(url)
    shown = f"{parts.scheme}://{parts.hostname or ''}"
    if parts.scheme not in _SMTP_SCHEMES or not parts.hostname:
        raise InvalidParameterError(
            f"{where}: smtp.url", f"{shown}: expected smtp://host:port or smtps://host:port"
        )
    try:
        port = parts.port or _SMTP_SCHEMES[parts.scheme]
    except ValueError:
        raise InvalidParameterError(f"{where}: smtp.url", f"{shown}: bad port") from None
    sender = raw.get("from")
    if not isinstance(sender, str) or not sender.strip():
        raise InvalidParameterError(f"{where}: smtp.from", "the sender's address is required")
    address(sender, f"{where}: smtp.from")
    starttls = raw.get("starttls", False)
    if not isinstance(starttls, bool):
        raise InvalidParameterError(f"{where}: smtp.starttls", "expected true or false")
    return SmtpSettings(
        host=parts.hostname,
        port=port,
        sender=sender.strip(),
        user=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
        ssl=parts.scheme == "smtps",
        starttls=starttls,
    )


def webhook(raw: Any, key: str, report: str, env: Mapping[str, str]) -> Webhook:
    where = f"{report}.{key}"
    if not isinstance(raw, dict):
        raise InvalidParameterError(where, "expected { url = ..., kind = ... }")
    known_keys(raw, _WEBHOOK_KEYS, where)
    kind = raw.get("kind", "json")
    if kind not in WEBHOOK_KINDS:
        raise InvalidParameterError(
            f"{where}.kind", f"{kind!r}: expected one of {', '.join(WEBHOOK_KINDS)}"
        )
    url = raw.get("url")
    if "url_env" in raw:
        url = env.get(str(raw["url_env"]))
        if not url:
            raise InvalidParameterError(
                f"{where}.url_env", f"the environment variable {raw['url_env']} is not set"
            )
    if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https"):
        raise InvalidParameterError(f"{where}.url", "expected an http(s) URL (or url_env)")
    if not urlsplit(url).hostname:
        raise InvalidParameterError(f"{where}.url", "the URL has no host")
    name = raw.get("name", key)
    if not isinstance(name, str) or not name.strip():
        raise InvalidParameterError(f"{where}.name", "expected text")
    return Webhook(url=url, kind=kind, name=name.strip())


def known_keys(table: Mapping[str, Any], keys: set[str], where: str, what: str = "key") -> None:
    """Refuse the first unknown key, with the nearest known one."""
    unknown = sorted(set(table) - keys)
    if unknown:
        hint = choices_text(unknown[0], sorted(keys))
        sep = ": " if what == "section" else "."
        raise InvalidParameterError(f"{where}{sep}{unknown[0]}", f"unknown {what}; {hint}")


def address(text: str, where: str) -> str:
    name, address = parseaddr(text)
    if len(getaddresses([text])) != 1 or "@" not in address:
        raise InvalidParameterError(where, f"{text!r} is not an email address")
    try:
        Address(display_name=name, addr_spec=address)
    except (ValueError, IndexError):
        raise InvalidParameterError(where, f"{text!r} is not an email address") from None
    return text.strip()


def _checked_duration(where: str, text: str) -> timedelta:
    try:
        return parse_duration(text)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{where}.upcoming", exc.message) from None


def _timeout(item: Mapping[str, Any], where: str) -> float:
    """`timeout = SECONDS`: a notebook run's limit, as `channelkit report --timeout`."""
    if "timeout" not in item:
        return NOTEBOOK_TIMEOUT_S
    value = item["timeout"]
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < math.inf:
        raise InvalidParameterError(
            f"{where}.timeout", f"{value!r}: expected seconds above 0, such as 600"
        )
    return value


def _checked(where: str, key: str, check: Any) -> None:
    try:
        check()
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{where}.{key}", exc.message) from None


def _text(item: Mapping[str, Any], key: str, where: str, default: str | None = None) -> str:
    value = item.get(key, default)
    if not isinstance(value, str) or not value.strip():
        raise InvalidParameterError(f"{where}.{key}", "required text")
    return value.strip()


def _list(item: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = item.get(key, [])
    if not isinstance(value, list):
        raise InvalidParameterError(f"{where}.{key}", "expected a list [...]")
    return value


def _texts(item: Mapping[str, Any], key: str, where: str) -> tuple[str, ...]:
    values = _list(item, key, where)
    if not all(isinstance(v, str) and v.strip() for v in values):
        raise InvalidParameterError(f"{where}.{key}", "expected a list of texts")
    return tuple(v.strip() for v in values)
