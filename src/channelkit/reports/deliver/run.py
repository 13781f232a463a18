"""`deliver`: every report of the delivery file whose last complete period some target has
not received yet is generated once and sent to exactly those targets.

The delivery record (a file of its own beside the warehouse, `delivery_ledger`) has each
(report, period, target) as `sending` before its message leaves and `sent` or `failed`
after, so a run after a failure resends only what failed, a second run in the same period
sends nothing, and a run killed mid-send never leads to a double (the target is "unknown"
until someone says). It also records a period found without news (`when = "news"`,
target `news:none`) and the failure notice of a period (`failure:...`), sent once. The
warehouse is only ever opened read-only.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from channelkit._constants import (
    DELIVER_KEPT_FOLDER,
    DELIVER_SUBJECT,
    DELIVER_UNKNOWN_CHOICES,
    REPORT_EMAIL_CHART_SIZE,
)
from channelkit.errors import (
    ChannelkitError,
    InvalidParameterError,
    NotDueError,
    NotebookCellError,
    ReportError,
)
from channelkit.reports.deliver.config import (
    DeliveryConfig,
    Job,
    NotebookJob,
    PeriodJob,
    ReportJob,
    UpcomingJob,
)
from channelkit.reports.deliver.delivery_ledger import SENT, DeliveryLedger
from channelkit.reports.deliver.email_charts import alt_text, chart_title, email_charts, for_email
from channelkit.reports.deliver.messages import (
    Attachment,
    Content,
    FailureNotice,
    InlineChart,
    NotebookMessage,
    ReportMessage,
    zipped,
)
from channelkit.reports.deliver.news import News
from channelkit.reports.deliver.targets import (
    Delivery,
    Outcome,
    Say,
    Target,
    notice_target,
    send_each,
    targets,
)
from channelkit.reports.deliver.upcoming import deliver_upcoming
from channelkit.reports.parameters import ReportPeriod

if TYPE_CHECKING:
    import pandas as pd

    from channelkit.reports.generate import Report

NO_NEWS = "news:none"  # the ledger's target for a period checked and found without news
J = TypeVar("J", bound=PeriodJob)


@dataclass(frozen=True)
class Due:
    """A complete period of one entry, and the targets that have not received it yet.

    Due(job, period, ("All Hands",), pending)
    """

    job: PeriodJob
    period: ReportPeriod
    names: tuple[str, ...]  # the channels' names, for the subject
    pending: list[Target]

    @property
    def subject(self) -> str:
        return subject(self.job, self.period, self.names)

    @property
    def filename(self) -> str:
        return f"{self.job.name}-{_slug(self.period)}.html"

    @property
    def kept(self) -> Path | None:
        """Where `out_dir` keeps the page."""
        return self.job.out_dir / self.filename if self.job.out_dir is not None else None

    def fallback(self, db: Path) -> Path:
        """Where the page is kept when no email can carry it and there is no `out_dir`:
        beside the warehouse, whose delivery record says it was sent."""
        return db.resolve().parent / DELIVER_KEPT_FOLDER / self.filename


def deliver(
    config: DeliveryConfig,
    warehouse: str | Path,
    *,
    dry_run: bool = False,
    force: str | None = None,
    unknown: str | None = None,
    max_age: timedelta | None = None,
    now: datetime | None = None,
    say: Say | None = None,
) -> list[Outcome]:
    """Send what is due; return one `Outcome` per target (and per refused report).

    `force` names one report to send again to all its targets, whatever the record says;
    the other reports are left alone. `unknown` settles the targets a killed run left
    sending: "resend" sends them again, "sent" records them as received (default: each is
    said "unknown" and left alone). `say` gets progress lines (default: nothing).
    """
    if unknown is not None and unknown not in DELIVER_UNKNOWN_CHOICES:
        choices = ", ".join(DELIVER_UNKNOWN_CHOICES)
        raise InvalidParameterError("unknown", f"one of {choices}, not {unknown!r}")
    jobs = (config.job(force),) if force is not None else config.reports
    db = Path(warehouse)
    with DeliveryLedger.beside(db) as ledger:
        delivery = Delivery(
            db,
            ledger,
            smtp=config.smtp,
            dry_run=dry_run,
            forced=force is not None,
            unknown=unknown,
            max_age=max_age,
            now=now,
            say=say or (lambda line: None),
        )
        return [outcome for job in jobs for outcome in _deliver_job(job, delivery)]


def _deliver_job(job: Job, delivery: Delivery) -> list[Outcome]:
    match job:
        case UpcomingJob():
            return deliver_upcoming(job, delivery)
        case NotebookJob():
            return _deliver_period(job, delivery, _notebook_report)
        case ReportJob():
            return _deliver_period(job, delivery, _built_report)
    raise TypeError(f"{type(job).__name__} is not a kind of delivery entry")


def _deliver_period(
    job: J, delivery: Delivery, build: Callable[[J, Due, Delivery], Content]
) -> list[Outcome]:
    """An entry of a period: built once its period is complete, sent to who has not got it."""
    try:
        period, names = _due_period(job, delivery.db, delivery.max_age, delivery.now)
    except NotDueError as exc:
        return [Outcome(job.name, "", "not due yet", str(exc))]
    except ChannelkitError as exc:  # stale or missing data: this report only, say why
        return [Outcome(job.name, "", "not sent", str(exc))]
    standing = delivery.unsent(job, period.label)
    if not standing.pending:
        return standing.nothing_due(job.name, targets(job, delivery.smtp), period.name)
    due = Due(job, period, names, standing.pending)
    said = standing.said
    if job.when == "news" and not delivery.forced:
        try:
            news = _period_news(job, delivery.db, period)
        except ChannelkitError as exc:
            return said + _build_failed(due, delivery, str(exc))
        if not news.found:
            return [*said, _no_news(due, delivery, news, again=NO_NEWS in standing.done)]
        said = [*said, Outcome(job.name, "", "news", f"{period.name}: {news.text}")]
    if delivery.dry_run:
        return said + [Outcome(job.name, t.shown, "would send", period.name) for t in due.pending]
    try:
        content = build(job, due, delivery)
    except NotebookCellError as exc:  # the notice says where in the notebook, too
        return said + _build_failed(due, delivery, str(exc), exc.trace)
    except ChannelkitError as exc:  # e.g. a channel the warehouse does not have
        return said + _build_failed(due, delivery, str(exc))
    return said + send_each(delivery, job.name, period.label, period.name, due.pending, content)


def _no_news(due: Due, delivery: Delivery, news: News, *, again: bool) -> Outcome:
    """The period checked and found without news: recorded, so that it is said once."""
    if not delivery.dry_run:
        delivery.ledger.settle(due.job.name, due.period.label, NO_NEWS, SENT)
    checked = " (as at the last check)" if again else ""
    return Outcome(due.job.name, "", "no news", f"{due.period.name}{checked}: {news.text}")


def _built_report(job: ReportJob, due: Due, delivery: Delivery) -> ReportMessage:
    """The built-in report of the period (its page kept in `out_dir`)."""
    from channelkit.reports.generate import build_report

    delivery.say(f"{job.name}: building the report for {due.period.label}")
    report = build_report(
        delivery.db,
        period=job.period,
        compare=job.compare,
        tz=job.tz,
        channels=job.channels,
        now=delivery.now,
        on_step=lambda line: None,
    )
    csv_files = _csv_attachments(report.frames, job.name, due.period)
    if job.out_dir is not None:
        _keep_files(job.out_dir, due.filename, report.html, csv_files)
    data = zipped(f"{due.filename.removesuffix('.html')}-data.zip", csv_files)
    return ReportMessage(
        job.name,
        report.page,
        due.filename,
        report.html,
        due.subject,
        charts=lambda: _inline_charts(report, job.name, delivery.say),
        data=data if job.csv else None,
        kept=due.kept,
        fallback=due.fallback(delivery.db),
    )


def _notebook_report(job: NotebookJob, due: Due, delivery: Delivery) -> NotebookMessage:
    """The user's notebook run for the period: its page is the report."""
    from channelkit.reports.notebook import run_notebook

    delivery.say(f"{job.name}: running {job.notebook.name} for {due.period.label}")
    page = run_notebook(
        job.notebook,
        delivery.db,
        period=job.period,
        tz=job.tz,
        channel=job.channels[0] if job.channels else None,
        compare=job.compare,
        timeout=job.timeout,
    )
    if job.out_dir is not None:
        _keep_files(job.out_dir, due.filename, page.html, [])
    return NotebookMessage(
        job.name,
        page.title,
        due.period,
        due.filename,
        page.html,
        due.subject,
        kept=due.kept,
        fallback=due.fallback(delivery.db),
    )


def _inline_charts(report: Report, name: str, say: Say) -> list[InlineChart]:
    """The email's chart images; none, and a word why, when they cannot be drawn."""
    from channelkit.reports.images import chart_images

    charts = email_charts(report.page.charts)
    try:
        images = chart_images([for_email(chart.figure) for chart in charts])
    except ReportError as exc:
        say(f"{name}: the email goes without chart images: {exc}")
        return []
    return [
        InlineChart(
            chart_title(chart.figure), alt_text(chart.figure), png, REPORT_EMAIL_CHART_SIZE[0]
        )
        for chart, png in zip(charts, images, strict=False)
    ]


def _period_news(job: PeriodJob, db: Path, period: ReportPeriod) -> News:
    from channelkit.reports.deliver.news import period_news
    from channelkit.warehouse import Warehouse

    wh = Warehouse(db)
    with wh.session():
        return period_news(wh, period, job.channels, job.compare)


def _build_failed(
    due: Due, delivery: Delivery, error: str, trace: tuple[str, ...] = ()
) -> list[Outcome]:
    """Every pending target failed; the `on_failure` target hears it, once per period."""
    job, period = due.job, due.period
    outcomes = [Outcome(job.name, t.shown, "failed", error) for t in due.pending]
    if job.on_failure is None or delivery.dry_run:
        return outcomes
    target = notice_target(job.on_failure, delivery.smtp)
    once = replace(delivery, forced=False)  # `--force` sends the report again, not the notice
    standing = once.standing(job.name, period.label, [target])
    if not standing.pending:
        return outcomes + standing.nothing_due(job.name, [target], period.name)
    notice = FailureNotice(job.name, period, error, f"Not sent: {due.subject}", trace)
    return outcomes + send_each(once, job.name, period.label, period.name, [target], notice)


def _due_period(
    job: PeriodJob, db: Path, max_age: timedelta | None, now: datetime | None
) -> tuple[ReportPeriod, tuple[str, ...]]:
    """The report's last complete period, after the freshness check, and its channels'
    names (as given where the warehouse does not know one: building the report says so)."""
    from channelkit.reports.checks import check_freshness
    from channelkit.reports.generate import is_complete, report_period
    from channelkit.reports.sections import channel_display_names
    from channelkit.warehouse import Warehouse

    wh = Warehouse(db)
    with wh.session():
        check_freshness(wh.freshness(), max_age, now)
        period = report_period(wh, period=job.period, tz=job.tz)
        complete = is_complete(wh, period)
        try:
            names = channel_display_names(wh, job.channels)
        except InvalidParameterError:
            names = job.channels
    if period.to_date or not complete:  # a running period is never sent, only its whole
        raise NotDueError(
            f"{period.name} is not complete yet (data up to the last sync); it is sent once "
            "it is over"
        )
    return period, names


def subject(job: PeriodJob, period: ReportPeriod, names: tuple[str, ...]) -> str:
    """ "All Hands · October 2026 engagement" (or the entry's own `subject`): the channels by
    their names, not their slugs."""
    channels = ", ".join(names) if names else "All channels"
    return (job.subject or DELIVER_SUBJECT).format(
        name=job.name, period=period.name, channels=channels
    )


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
