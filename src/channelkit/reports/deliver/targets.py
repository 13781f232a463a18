"""Who receives an entry, and the one way anything is sent to them.

    for target in targets(job, config.smtp):
        target.send(content)   # an email, or a webhook's JSON: as its kind declares

`send_each` sends to each pending target and records it in the ledger right after it
succeeded; every kind of entry (report, notebook, digest) and the failure notice go
through it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from channelkit.errors import DeliveryError
from channelkit.reports.deliver.config import FailureTarget, Job, SmtpSettings, Webhook
from channelkit.reports.deliver.kinds import EMAIL, WEBHOOK_KINDS
from channelkit.reports.deliver.ledger import record_sent, sent_targets
from channelkit.reports.deliver.messages import Content
from channelkit.reports.deliver.transport import post_webhook, send_email

Say = Callable[[str], None]


@dataclass(frozen=True)
class Delivery:
    """One `deliver` call's settings, the same for every entry it sends.

    Delivery(Path("warehouse.duckdb"), smtp=None, dry_run=True)
    """

    db: Path  # the warehouse: its data, and the ledger of what was sent
    smtp: SmtpSettings | None = field(default=None, repr=False)
    dry_run: bool = False
    forced: bool = False  # `--force`: sent again whatever the ledger says
    max_age: timedelta | None = None
    now: datetime | None = None
    say: Say = lambda line: None  # progress lines

    def unsent(self, job: Job, key: str) -> tuple[list[Target], set[str]]:
        """The entry's targets that have not received its period `key` (all of them when
        forced), and the ledger's targets for it."""
        done = set() if self.forced else sent_targets(self.db, job.name, key)
        return [t for t in targets(job, self.smtp) if t.key not in done], done


@dataclass(frozen=True)
class Outcome:
    """What happened to one target (or to a whole report, `target=""`).

    Outcome("weekly", "email comms-lead@example.com", "failed", "smtp://127.0.0.1:2525 ...")
    """

    report: str
    target: str
    # "sent", "would send", "already sent", "not due yet", "not sent", "failed", "news",
    # "no news"
    status: str
    detail: str = ""

    @property
    def line(self) -> str:
        where = f"{self.report}: {self.target}" if self.target else self.report
        return f"{where}: {self.status}" + (f": {self.detail}" if self.detail else "")


@dataclass(frozen=True)
class Target:
    """One receiver: its ledger key, how messages show it, and where it is sent (a webhook,
    else the email `recipients` through `smtp`).

    Target("email:comms-lead@example.com", "email comms-lead@example.com",
           recipients=("comms-lead@example.com",), smtp=settings)
    """

    key: str  # in the ledger: no secret
    shown: str  # in messages: no secret
    hook: Webhook | None = None
    recipients: tuple[str, ...] = ()
    smtp: SmtpSettings | None = field(default=None, repr=False)

    def send(self, content: Content) -> Path | None:
        """Send `content` as this target's kind declares it; a `DeliveryError` if it fails.
        Return where the interactive report is kept when the email could not carry it."""
        if self.hook is not None:
            post_webhook(self.hook, WEBHOOK_KINDS[self.hook.kind].payload(content))
            return None
        if self.smtp is None:
            raise DeliveryError("no [smtp] settings")
        message = EMAIL.message(content, self.smtp.sender, self.recipients)
        send_email(self.smtp, message)
        return EMAIL.left_out(content, message)


def targets(job: Job, smtp: SmtpSettings | None) -> list[Target]:
    """The entry's email recipients (one target) and each of its webhooks."""
    found = []
    if job.email:
        shown = "email " + ", ".join(job.email)
        found.append(Target(job.email_target, shown, recipients=job.email, smtp=smtp))
    found += [Target(hook.target, hook.shown, hook=hook) for hook in job.webhooks]
    return found


def notice_target(notice: FailureTarget, smtp: SmtpSettings | None) -> Target:
    """Who hears that a report could not be built."""
    return Target(notice.key, notice.shown, notice.webhook, notice.email, smtp)


def send_each(
    db: Path, report: str, key: str, detail: str, pending: list[Target], content: Content
) -> list[Outcome]:
    """Send `content` to each target in turn, recording each one under the ledger's period
    `key` right after it succeeded; `detail` says what was sent (the period in words)."""
    outcomes: list[Outcome] = []
    for target in pending:
        try:
            kept = target.send(content)
        except DeliveryError as exc:
            outcomes.append(Outcome(report, target.shown, "failed", str(exc)))
            continue
        record_sent(db, report, key, [target.key])
        said = (
            detail if kept is None else f"{detail}; the report, too large for email, is in {kept}"
        )
        outcomes.append(Outcome(report, target.shown, "sent", said))
    return outcomes
