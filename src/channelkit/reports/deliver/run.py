"""`deliver`: every report of the delivery file whose last complete period some target has
not received yet is generated once and sent to exactly those targets.

The ledger (a warehouse table) records each (report, period, target) right after it
succeeded, so a run after a failure resends only what failed, and a second run in the same
period sends nothing. It also records a period found without news (`when = "news"`,
target `news:none`) and the failure notice of a period (`failure:...`), sent once.
"""

from __future__ import annotations

import io
import re
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING

from channelkit._constants import (
    DELIVER_EMAIL_MAX_BYTES,
    DELIVER_NOTEBOOK_EMAIL_MAX_BYTES,
    DELIVER_SUBJECT,
    REPORT_EMAIL_CHART_SIZE,
)
from channelkit.errors import (
    ChannelkitError,
    DeliveryError,
    InvalidParameterError,
    NotDueError,
    ReportError,
)
from channelkit.reports.deliver.config import DeliveryConfig, FailureTarget, ReportJob
from channelkit.reports.deliver.email_charts import alt_text, email_charts, for_email, title
from channelkit.reports.deliver.ledger import record_sent, sent_targets
from channelkit.reports.deliver.messages import (
    Attachment,
    InlineChart,
    email_message,
    failure_email,
    failure_payload,
    notebook_email,
    notebook_payload,
    webhook_payload,
)
from channelkit.reports.deliver.news import News
from channelkit.reports.deliver.transport import post_webhook, send_email
from channelkit.reports.parameters import ReportPeriod

if TYPE_CHECKING:
    import pandas as pd

    from channelkit.reports.generate import Report

Say = Callable[[str], None]
NO_NEWS = "news:none"  # the ledger's target for a period checked and found without news


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
    """One receiver of a report: its ledger key and how messages show it.

    Target("email:comms-lead@example.com", "email comms-lead@example.com")
    """

    key: str  # in the ledger: no secret
    shown: str  # in messages: no secret


def deliver(
    config: DeliveryConfig,
    warehouse: str | Path,
    *,
    dry_run: bool = False,
    force: str | None = None,
    max_age: timedelta | None = None,
    now: datetime | None = None,
    say: Say | None = None,
) -> list[Outcome]:
    """Send what is due; return one `Outcome` per target (and per refused report).

    `force` names one report to send again to all its targets, whatever the ledger says;
    the other reports are left alone. `say` gets progress lines (default: nothing).
    """
    db = Path(warehouse)
    jobs = (config.job(force),) if force is not None else config.reports
    outcomes: list[Outcome] = []
    for job in jobs:
        outcomes += _deliver_one(
            config,
            job,
            db,
            dry_run=dry_run,
            forced=force is not None,
            max_age=max_age,
            now=now,
            say=say or (lambda line: None),
        )
    return outcomes


def _deliver_one(
    config: DeliveryConfig,
    job: ReportJob,
    db: Path,
    *,
    dry_run: bool,
    forced: bool,
    max_age: timedelta | None,
    now: datetime | None,
    say: Say,
) -> list[Outcome]:
    from channelkit.reports.generate import build_report

    if job.upcoming is not None:
        from channelkit.reports.deliver.upcoming import deliver_upcoming

        return deliver_upcoming(
            config, job, db, _targets(job), dry_run=dry_run, forced=forced, now=now, say=say
        )
    try:
        period, names = _due_period(job, db, max_age, now)
    except NotDueError as exc:
        return [Outcome(job.name, "", "not due yet", str(exc))]
    except ChannelkitError as exc:  # stale or missing data: this report only, say why
        return [Outcome(job.name, "", "not sent", str(exc))]
    key = period.label
    targets = _targets(job)
    done = set() if forced else sent_targets(db, job.name, key)
    pending = [target for target in targets if target.key not in done]
    if not pending:
        return [Outcome(job.name, t.shown, "already sent", period.name) for t in targets]
    said: list[Outcome] = []
    if job.when == "news" and not forced:
        try:
            news = _period_news(job, db, period)
        except ChannelkitError as exc:
            return _build_failed(config, job, db, period, names, pending, str(exc), dry_run)
        if not news.found:
            again = " (as at the last check)" if NO_NEWS in done else ""
            if not dry_run:
                record_sent(db, job.name, key, [NO_NEWS])
            return [Outcome(job.name, "", "no news", f"{period.name}{again}: {news.text}")]
        said = [Outcome(job.name, "", "news", f"{period.name}: {news.text}")]
    if dry_run:
        return said + [Outcome(job.name, t.shown, "would send", period.name) for t in pending]

    if job.notebook is not None:
        return said + _deliver_notebook(config, job, db, period, names, pending, say, dry_run)
    say(f"{job.name}: building the report for {period.label}")
    try:
        report = build_report(
            db,
            period=job.period,
            compare=job.compare,
            tz=job.tz,
            channels=job.channels,
            now=now,
            on_step=lambda line: None,
        )
    except ChannelkitError as exc:  # e.g. a channel the warehouse does not have
        return _build_failed(config, job, db, period, names, pending, str(exc), dry_run)
    filename = f"{job.name}-{_slug(period)}.html"
    csv_files = _csv_attachments(report.frames, job.name, period)
    if job.out_dir is not None:
        _keep_files(job.out_dir, filename, report.html, csv_files)

    def send(target: Target) -> None:
        if target.key == job.email_target:
            _send_email(config, job, report, period, names, filename, csv_files, say)
        else:
            hook = next(h for h in job.webhooks if h.target == target.key)
            post_webhook(hook, webhook_payload(hook.kind, report.page, filename, job.name))

    return said + send_each(db, job, period.label, period.name, pending, send)


def _period_news(job: ReportJob, db: Path, period: ReportPeriod) -> News:
    from channelkit.reports.deliver.news import period_news
    from channelkit.warehouse import Warehouse

    wh = Warehouse(db)
    with wh.session():
        return period_news(wh, period, job.channels, job.compare)


def _build_failed(
    config: DeliveryConfig,
    job: ReportJob,
    db: Path,
    period: ReportPeriod,
    names: tuple[str, ...],
    pending: list[Target],
    error: str,
    dry_run: bool,
) -> list[Outcome]:
    """Every pending target failed; the `on_failure` target hears it, once per period."""
    outcomes = [Outcome(job.name, t.shown, "failed", error) for t in pending]
    notice = job.on_failure
    if notice is None or dry_run:
        return outcomes
    if notice.key in sent_targets(db, job.name, period.label):
        return [*outcomes, Outcome(job.name, notice.shown, "already sent", period.name)]
    try:
        _send_notice(config, job, notice, period, names, error)
    except DeliveryError as exc:
        return [*outcomes, Outcome(job.name, notice.shown, "failed", str(exc))]
    record_sent(db, job.name, period.label, [notice.key])
    return [*outcomes, Outcome(job.name, notice.shown, "sent", period.name)]


def _send_notice(
    config: DeliveryConfig,
    job: ReportJob,
    notice: FailureTarget,
    period: ReportPeriod,
    names: tuple[str, ...],
    error: str,
) -> None:
    if notice.webhook is not None:
        post_webhook(notice.webhook, failure_payload(notice.webhook.kind, job.name, period, error))
        return
    smtp = config.email_settings()
    message = failure_email(
        job.name,
        period,
        error,
        sender=smtp.sender,
        recipients=notice.email,
        subject=f"Not sent: {subject(job, period, names)}",
    )
    send_email(smtp, message)


def _deliver_notebook(
    config: DeliveryConfig,
    job: ReportJob,
    db: Path,
    period: ReportPeriod,
    names: tuple[str, ...],
    pending: list[Target],
    say: Say,
    dry_run: bool,
) -> list[Outcome]:
    """A `notebook = ...` entry: the user's notebook run for the period is the report."""
    from channelkit.reports.notebook import run_notebook

    assert job.notebook is not None  # the caller's branch
    say(f"{job.name}: running {job.notebook.name} for {period.label}")
    try:
        page = run_notebook(
            job.notebook,
            db,
            period=job.period,
            tz=job.tz,
            channel=job.channels[0] if job.channels else None,
            compare=job.compare,
            timeout=job.timeout,
        )
    except ChannelkitError as exc:  # a failing cell: named in one line, nothing sent
        return _build_failed(config, job, db, period, names, pending, str(exc), dry_run)
    filename = f"{job.name}-{_slug(period)}.html"
    if job.out_dir is not None:
        _keep_files(job.out_dir, filename, page.html, [])

    def send(target: Target) -> None:
        if target.key != job.email_target:
            hook = next(h for h in job.webhooks if h.target == target.key)
            payload = notebook_payload(hook.kind, page.title, period, filename, job.name)
            post_webhook(hook, payload)
            return
        smtp = config.email_settings()

        def message(attached: list[Attachment], note: str) -> EmailMessage:
            return notebook_email(
                page.title,
                period,
                sender=smtp.sender,
                recipients=job.email,
                subject=subject(job, period, names),
                attachments=attached,
                note=note,
            )

        built = _within_size(message, job, filename, page.html, DELIVER_NOTEBOOK_EMAIL_MAX_BYTES)
        send_email(smtp, built)

    return send_each(db, job, period.label, period.name, pending, send)


def send_each(
    db: Path,
    job: ReportJob,
    key: str,
    detail: str,
    pending: list[Target],
    send: Callable[[Target], None],
) -> list[Outcome]:
    """Send to each target in turn, recording each one under the ledger's period `key` right
    after it succeeded; `detail` says what was sent (the period in words)."""
    outcomes: list[Outcome] = []
    for target in pending:
        try:
            send(target)
        except DeliveryError as exc:
            outcomes.append(Outcome(job.name, target.shown, "failed", str(exc)))
            continue
        record_sent(db, job.name, key, [target.key])
        outcomes.append(Outcome(job.name, target.shown, "sent", detail))
    return outcomes


def _due_period(
    job: ReportJob, db: Path, max_age: timedelta | None, now: datetime | None
) -> tuple[ReportPeriod, tuple[str, ...]]:
    """The report's last complete period, after the freshness check, and its channels'
    names (as given where the warehouse does not know one: building the report says so)."""
    from channelkit.reports.checks import check_freshness
    from channelkit.reports.generate import is_complete, report_period
    from channelkit.reports.sections import channel_names
    from channelkit.warehouse import Warehouse

    wh = Warehouse(db)
    with wh.session():
        check_freshness(wh.freshness(), max_age, now)
        period = report_period(wh, period=job.period, tz=job.tz)
        complete = is_complete(wh, period)
        try:
            names = channel_names(wh, job.channels)
        except InvalidParameterError:
            names = job.channels
    if period.to_date or not complete:  # a running period is never sent, only its whole
        raise NotDueError(
            f"{period.name} is not complete yet (data up to the last sync); it is sent once "
            "it is over"
        )
    return period, names


def _targets(job: ReportJob) -> list[Target]:
    targets = []
    if job.email:
        targets.append(Target(job.email_target, "email " + ", ".join(job.email)))
    targets += [Target(hook.target, hook.shown) for hook in job.webhooks]
    return targets


def _send_email(
    config: DeliveryConfig,
    job: ReportJob,
    report: Report,
    period: ReportPeriod,
    names: tuple[str, ...],
    filename: str,
    csv_files: list[Attachment],
    say: Say,
) -> None:
    from channelkit.reports.images import chart_images

    smtp = config.email_settings()
    charts = email_charts(report.page.charts)
    try:
        images = chart_images([for_email(chart.figure) for chart in charts])
    except ReportError as exc:
        say(f"{job.name}: the email goes without chart images: {exc}")
        images = []
    inline = [
        InlineChart(title(chart.figure), alt_text(chart.figure), png, REPORT_EMAIL_CHART_SIZE[0])
        for chart, png in zip(charts, images, strict=False)
    ]
    extra = [_zipped(f"{filename.removesuffix('.html')}-data.zip", csv_files)] if job.csv else []

    def message(attached: list[Attachment], note: str) -> EmailMessage:
        return email_message(
            report.page,
            sender=smtp.sender,
            recipients=job.email,
            subject=subject(job, period, names),
            charts=inline,
            attachments=[*attached, *extra],
            note=note + (" Its data is attached as CSV files, zipped." if extra else ""),
        )

    send_email(smtp, _within_size(message, job, filename, report.html, DELIVER_EMAIL_MAX_BYTES))


def _within_size(
    message: Callable[[list[Attachment], str], EmailMessage],
    job: ReportJob,
    filename: str,
    html: str,
    limit: int,
) -> EmailMessage:
    """The email with the report attached as it is, else zipped (plotly.js shrinks to a
    third), else left out with a word on where it is: the first within the size limit."""
    data = html.encode("utf-8")
    page = Attachment(filename, data, "text", "html")
    kept = f" It is kept as {job.out_dir / filename}." if job.out_dir is not None else ""
    choices = [
        ([page], f"The interactive report is attached: {filename}."),
        (
            [_zipped(f"{filename}.zip", [page])],
            f"The interactive report is attached, zipped: {filename}.zip.",
        ),
        ([], f"The interactive report ({filename}) is too large for email.{kept}"),
    ]
    for attached, note in choices:
        built = message(attached, note)
        if len(built.as_bytes()) <= limit:
            return built
    return built  # the email without the report is over the limit too: send it anyway


def subject(job: ReportJob, period: ReportPeriod, names: tuple[str, ...]) -> str:
    """ "All Hands · October 2026 engagement" (or the entry's own `subject`): the channels by
    their names, not their slugs."""
    channels = ", ".join(names) if names else "All channels"
    return (job.subject or DELIVER_SUBJECT).format(
        name=job.name, period=period.name, channels=channels
    )


def _zipped(name: str, files: list[Attachment]) -> Attachment:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in files:
            archive.writestr(file.filename, file.data)
    return Attachment(name, buffer.getvalue(), "application", "zip")


def _csv_attachments(
    frames: dict[str, pd.DataFrame], name: str, period: ReportPeriod
) -> list[Attachment]:
    from channelkit.export import csv_text

    files = []
    for frame_name, frame in frames.items():
        data = csv_text(frame).encode("utf-8")
        files.append(Attachment(f"{name}-{_slug(period)}-{frame_name}.csv", data, "text", "csv"))
    return files


def _keep_files(folder: Path, filename: str, html: str, csv_files: list[Attachment]) -> None:
    from channelkit.reports.files import write_atomic, write_atomic_bytes

    write_atomic(folder / filename, html)
    for attachment in csv_files:
        write_atomic_bytes(folder / attachment.filename, attachment.data)


def _slug(period: ReportPeriod) -> str:
    """ "2026-10-01_2026-10-31": the period in a file name."""
    return re.sub(r"[^0-9A-Za-z_-]", "", f"{period.start}_{period.last_day}")
