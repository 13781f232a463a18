"""A delivery entry with `upcoming = "36h"`: what is about to go out, sent once a day.

    [[reports]]
    name = "morning-review"
    upcoming = "36h"
    tz = "Europe/Berlin"
    email = ["comms-lead@example.com"]

The digest asks the service (`CHANNELKIT_BASE_URL`, `CHANNELKIT_API_KEY`), not the
warehouse; the delivery record (beside the warehouse) has each target under the local day,
so every run that day after the first sends nothing, and a failed target is retried.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from channelkit.errors import ChannelkitError
from channelkit.reports.deliver.config import UpcomingJob
from channelkit.reports.deliver.messages import DigestMessage
from channelkit.reports.deliver.targets import Delivery, Outcome, send_each, targets


def deliver_upcoming(job: UpcomingJob, delivery: Delivery) -> list[Outcome]:
    """Today's digest to each target that has not received it today."""
    from channelkit.client import Client
    from channelkit.reports.upcoming import upcoming_digest

    day = (delivery.now or datetime.now(UTC)).astimezone(job.tz).date()
    key = f"upcoming {day.isoformat()}"  # the ledger's period: one digest a day
    standing = delivery.unsent(job, key)
    pending = standing.pending
    if not pending:
        return standing.nothing_due(job.name, targets(job, delivery.smtp), key)
    if delivery.dry_run:
        return standing.said + [Outcome(job.name, t.shown, "would send", key) for t in pending]
    delivery.say(f"{job.name}: asking the service what is scheduled in the next {job.within}")
    try:
        with Client() as client:
            digest = upcoming_digest(
                client,
                within=job.within,
                tz=job.tz,
                channels=job.channels or None,
                now=delivery.now,
            )
    except ChannelkitError as exc:  # no service, no key: nothing sent, retried next run
        return standing.said + [Outcome(job.name, t.shown, "failed", str(exc)) for t in pending]
    digest = replace(digest, outlook=_heading_below(delivery.db, job))
    html = digest.html()
    if job.out_dir is not None:
        from channelkit.reports.files import write_atomic

        write_atomic(job.out_dir / f"{job.name}-{day.isoformat()}.html", html)
    subject = job.subject or f"{digest.title}, {digest.day:%a %d %b}"
    message = DigestMessage(job.name, digest, html, subject)
    return standing.said + send_each(delivery, job.name, key, key, pending, message)


def _heading_below(db: Path, job: UpcomingJob) -> str | None:
    """The warehouse's young posts of the job's channels heading below their channel's
    usual range; None without any, or without a synced warehouse (the digest itself asks
    the service only)."""
    from channelkit.display.outlook import heading_below
    from channelkit.warehouse import Warehouse

    if not db.exists():
        return None
    try:
        young = Warehouse(db).outlook(channel=list(job.channels) or None, tz=job.tz)
    except ChannelkitError:  # never synced, no analytics: the digest goes out without it
        return None
    return heading_below(young)
