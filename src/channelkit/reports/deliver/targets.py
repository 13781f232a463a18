"""Who receives an entry, and the one way anything is sent to them.

    for target in targets(job, config.smtp):
        target.send(content)   # an email, or a webhook's JSON: as its kind declares

`send_each` claims each pending target in the delivery record (`sending`) before its
message leaves and settles it (`sent`, `failed`) after; every kind of entry (report,
notebook, digest) and the failure notice go through it. A target a killed run left
`sending` is "unknown" (did it arrive?) and is sent again only with `--unknown resend`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from channelkit.errors import DeliveryError
from channelkit.reports.deliver.config import FailureTarget, Job, SmtpSettings, Webhook
from channelkit.reports.deliver.delivery_ledger import (
    FAILED,
    SENDING,
    SENT,
    DeliveryLedger,
    Entry,
)
from channelkit.reports.deliver.kinds import EMAIL, WEBHOOK_KINDS
from channelkit.reports.deliver.messages import Content
from channelkit.reports.deliver.transport import post_webhook, send_email

Say = Callable[[str], None]


@dataclass(frozen=True)
class Delivery:
    """One `deliver` call's settings, the same for every entry it sends.

    with DeliveryLedger.beside(Path("warehouse.duckdb")) as ledger:
        Delivery(Path("warehouse.duckdb"), ledger, smtp=None, dry_run=True)
    """

    db: Path  # the warehouse, only ever read
    ledger: DeliveryLedger = field(repr=False)  # what was sent, beside the warehouse
    smtp: SmtpSettings | None = field(default=None, repr=False)
    dry_run: bool = False
    forced: bool = False  # `--force`: sent again whatever the record says
    unknown: str | None = None  # `--unknown resend|sent`: targets a killed run left sending
    max_age: timedelta | None = None
    now: datetime | None = None
    say: Say = lambda line: None  # progress lines

    def unsent(self, job: Job, key: str) -> Standing:
        """Where the entry's targets stand for its period `key`."""
        return self.standing(job.name, key, targets(job, self.smtp))

    def standing(self, report: str, key: str, every: list[Target]) -> Standing:
        """Which of `every` are to be sent now (all of them when forced), which the record
        has as sent, and a line for each whose last send is unknown or still running."""
        entries = self.ledger.states(report, key)
        done = set() if self.forced else {k for k, e in entries.items() if e.state == SENT}
        pending: list[Target] = []
        said: list[Outcome] = []
        for target in every:
            entry = entries.get(target.key)
            if entry is None or entry.state == FAILED or (self.forced and not entry.running):
                pending.append(target)
            elif entry.state == SENT:
                continue
            elif entry.running or self.unknown is None:
                said.append(stopped(report, target, entry, key))
            elif self.unknown == "resend":
                pending.append(target)
            else:  # "sent": someone checked that it arrived
                if not self.dry_run:
                    self.ledger.settle(report, key, target.key, SENT)
                said.append(
                    Outcome(report, target.shown, "already sent", f"{key} (--unknown sent)")
                )
        return Standing(pending, done, said)

    @property
    def again(self) -> frozenset[str]:
        """The recorded states a target is claimed from again (`failed` always is)."""
        if self.forced:
            return frozenset({SENT, SENDING})
        return frozenset({SENDING}) if self.unknown == "resend" else frozenset()


@dataclass(frozen=True)
class Standing:
    """Where an entry's targets stand for one period: `pending` to send now, `done` the
    targets (and marks, e.g. `news:none`) the record has as sent, `said` a line for each
    target neither pending nor done (unknown, being sent).

    Standing([target], set(), [])
    """

    pending: list[Target]
    done: set[str]
    said: list[Outcome]

    def nothing_due(self, report: str, every: list[Target], detail: str) -> list[Outcome]:
        """The lines of a period with nothing to send."""
        sent = [
            Outcome(report, t.shown, "already sent", detail) for t in every if t.key in self.done
        ]
        return self.said + sent


@dataclass(frozen=True)
class Outcome:
    """What happened to one target (or to a whole report, `target=""`).

    Outcome("weekly", "email comms-lead@example.com", "failed", "smtp://127.0.0.1:2525 ...")
    """

    report: str
    target: str
    # "sent", "would send", "already sent", "not due yet", "not sent", "failed", "news",
    # "no news", "unknown" (a killed run was sending it), "being sent" (by another run)
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
    delivery: Delivery,
    report: str,
    key: str,
    detail: str,
    pending: list[Target],
    content: Content,
) -> list[Outcome]:
    """Send `content` to each target in turn, each claimed as `sending` under the record's
    period `key` before it leaves and settled after; `detail` says what was sent (the
    period in words)."""
    outcomes: list[Outcome] = []
    for target in pending:
        entry = delivery.ledger.claim(report, key, target.key, again=delivery.again)
        if entry is not None:  # sent or being sent since this run read the record
            outcomes.append(stopped(report, target, entry, key))
            continue
        try:
            kept = target.send(content)
        except DeliveryError as exc:
            delivery.ledger.settle(report, key, target.key, FAILED)
            outcomes.append(Outcome(report, target.shown, "failed", str(exc)))
            continue
        delivery.ledger.settle(report, key, target.key, SENT)
        said = (
            detail if kept is None else f"{detail}; the report, too large for email, is in {kept}"
        )
        outcomes.append(Outcome(report, target.shown, "sent", said))
    return outcomes


def stopped(report: str, target: Target, entry: Entry, key: str) -> Outcome:
    """The line of a target the record stops from being sent: sent, being sent by another
    run, or unknown (a run was killed while sending it)."""
    if entry.state == SENT:
        return Outcome(report, target.shown, "already sent", key)
    if entry.running:
        return Outcome(
            report,
            target.shown,
            "being sent",
            f"{key}: by another deliver (process {entry.pid}) since {entry.recorded_at}",
        )
    return Outcome(
        report,
        target.shown,
        "unknown",
        f"{key}: a run stopped while sending it ({entry.recorded_at}); check whether it "
        "arrived, then run deliver with `--unknown sent` to record it as received or "
        "`--unknown resend` to send it again",
    )
