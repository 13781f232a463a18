"""A delivery entry with `upcoming = "36h"`: what is about to go out, sent once a day.

    [[reports]]
    name = "morning-review"
    upcoming = "36h"
    tz = "Europe/Berlin"
    email = ["comms-lead@example.com"]

The digest asks the service (`CHANNELKIT_BASE_URL`, `CHANNELKIT_API_KEY`), not the
warehouse; the warehouse's delivery ledger records each target under the local day, so
every run that day after the first sends nothing, and a failed target is retried.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING, Any

from channelkit._tz import load_zone
from channelkit.errors import ChannelkitError
from channelkit.reports.deliver.config import DeliveryConfig, ReportJob, Webhook
from channelkit.reports.deliver.ledger import sent_targets
from channelkit.reports.deliver.messages import headed
from channelkit.reports.deliver.transport import post_webhook, send_email

if TYPE_CHECKING:
    from channelkit.reports.deliver.run import Outcome, Target
    from channelkit.reports.upcoming import UpcomingDigest


def deliver_upcoming(
    config: DeliveryConfig,
    job: ReportJob,
    db: Path,
    targets: list[Target],
    *,
    dry_run: bool,
    forced: bool,
    now: datetime | None,
    say: Callable[[str], None],
) -> list[Outcome]:
    from channelkit.client import Client
    from channelkit.reports.deliver.run import Outcome, send_each
    from channelkit.reports.upcoming import upcoming_digest

    assert job.upcoming is not None  # the caller's branch
    day = (now or datetime.now(UTC)).astimezone(load_zone(job.tz)).date()
    key = f"upcoming {day.isoformat()}"  # the ledger's period: one digest a day
    done = set() if forced else sent_targets(db, job.name, key)
    pending = [target for target in targets if target.key not in done]
    if not pending:
        return [Outcome(job.name, t.shown, "already sent", key) for t in targets]
    if dry_run:
        return [Outcome(job.name, t.shown, "would send", key) for t in pending]
    say(f"{job.name}: asking the service what is scheduled in the next {job.upcoming}")
    try:
        with Client() as client:
            digest = upcoming_digest(
                client, within=job.upcoming, tz=job.tz, channels=job.channels or None, now=now
            )
    except ChannelkitError as exc:  # no service, no key: nothing sent, retried next run
        return [Outcome(job.name, t.shown, "failed", str(exc)) for t in pending]
    html = digest.html()
    if job.out_dir is not None:
        from channelkit.reports.files import write_atomic

        write_atomic(job.out_dir / f"{job.name}-{day.isoformat()}.html", html)

    def send(target: Target) -> None:
        if target.key == job.email_target:
            send_email(config.email_settings(), _email(config, job, digest, html))
        else:
            hook = next(h for h in job.webhooks if h.target == target.key)
            post_webhook(hook, _payload(hook, digest, job.name))

    return send_each(db, job, key, key, pending, send)


def _email(
    config: DeliveryConfig, job: ReportJob, digest: UpcomingDigest, html: str
) -> EmailMessage:
    smtp = config.email_settings()
    subject = job.subject or f"{digest.title}, {digest.day:%a %d %b}"
    message = headed(smtp.sender, job.email, subject)
    message.set_content(digest.text())
    message.add_alternative(html, subtype="html")
    return message


def _payload(hook: Webhook, digest: UpcomingDigest, report: str) -> dict[str, Any]:
    if hook.kind in ("slack", "teams"):
        return {"text": digest.text()}
    return {
        "report": report,
        "kind": "upcoming",
        "title": digest.title,
        "start": digest.start.isoformat(),
        "end": digest.end.isoformat(),
        "tz": digest.tz,
        "posts": [
            {
                "post_id": post.post_id,
                "scheduled_at": post.when.isoformat(),
                "channel": post.channel,
                "title": post.title,
                "author": post.author,
            }
            for post in digest.posts
        ],
    }
