"""What a delivery sends, built without any I/O: the five things sent (a report, a notebook
report, a failure notice, the upcoming digest, the watcher's alert) and the email's parts.

Every message leads with the summary sentences and the key numbers of the page, and names
the report's file. How each receiver is spoken to (Slack's blocks, a Teams card, plain JSON,
email) is declared once per kind in `kinds.py`.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from channelkit.display.notes import provisional_said
from channelkit.reports.deliver.email_charts import one_minus
from channelkit.reports.page import ReportPage, Sentence
from channelkit.reports.parameters import ReportPeriod
from channelkit.reports.render import TEMPLATES_DIR

if TYPE_CHECKING:
    from channelkit.reports.upcoming import UpcomingDigest


@dataclass(frozen=True)
class InlineChart:
    """A chart drawn as an image for the email, with its heading and alt text.

    InlineChart("Read rate by channel", "Bar chart of read rate by channel: ...", png, 440)
    """

    title: str
    alt: str
    png: bytes
    width: int  # CSS px it was drawn for: shown at most this wide


@dataclass(frozen=True)
class Attachment:
    """A file sent with the email.

    Attachment("weekly-all-hands.html", b"<!doctype html>...", "text", "html")
    """

    filename: str
    data: bytes
    maintype: str
    subtype: str


@dataclass(frozen=True)
class ReportMessage:
    """The built-in report of a period, ready for any target.

    ReportMessage("weekly", page, "weekly-2026-03-30_2026-04-05.html", html, "All channels ...")
    """

    report: str  # the entry's name
    page: ReportPage
    filename: str
    html: str
    subject: str
    charts: Callable[[], Sequence[InlineChart]] = tuple  # drawn only when an email goes
    data: Attachment | None = None  # the report's CSV files, zipped (`csv = true`)
    kept: Path | None = None  # where `out_dir` keeps the page
    fallback: Path | None = None  # where it is kept when no email can carry it


@dataclass(frozen=True)
class NotebookMessage:
    """A notebook report: its page, its title and the period.

    NotebookMessage("mine", "My monthly report", period, "mine-....html", html, "All ...")
    """

    report: str
    title: str
    period: ReportPeriod
    filename: str
    html: str
    subject: str
    kept: Path | None = None
    fallback: Path | None = None

    @property
    def text(self) -> str:
        return f"{self.title}\n{self.period.label}\nReport file: {self.filename}"

    @property
    def data(self) -> dict[str, Any]:
        return {
            "report": self.report,
            "title": self.title,
            "period": self.period.name,
            "file": self.filename,
        }


@dataclass(frozen=True)
class FailureNotice:
    """A report that could not be built, told once per period (`on_failure`).

    FailureNotice("weekly", period, "channel: no channel 'x'", "Not sent: All channels ...")
    """

    report: str
    period: ReportPeriod
    error: str
    subject: str
    trace: tuple[str, ...] = ()  # a notebook cell's last frames (`NotebookCellError.trace`)

    @property
    def text(self) -> str:
        """Which report, which period, why (and where, for a notebook's cell), and what
        happens next."""
        where = "".join(f"\n  {frame}" for frame in self.trace)
        return (
            f"The report {self.report!r} for {self.period.name} could not be built, so it was "
            f"not sent:\n{self.error}{where}\n\nEvery run of `channelkit deliver` tries again "
            "until it is sent; this notice is sent once for the period."
        )

    @property
    def data(self) -> dict[str, Any]:
        return {
            "report": self.report,
            "period": self.period.name,
            "status": "failed",
            "error": self.error,
        }


@dataclass(frozen=True)
class DigestMessage:
    """The upcoming digest of a day (`upcoming = "36h"`).

    DigestMessage("morning", digest, digest.html(), "3 posts scheduled ..., Sat 28 Nov")
    """

    report: str
    digest: UpcomingDigest
    html: str
    subject: str

    @property
    def text(self) -> str:
        return self.digest.text()

    @property
    def data(self) -> dict[str, Any]:
        digest = self.digest
        return {
            "report": self.report,
            "kind": "upcoming",
            "title": digest.title,
            "start": digest.start.isoformat(),
            "end": digest.end.isoformat(),
            "tz": digest.tz.key,
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
            "held": digest.held,  # posts on hold that were scheduled in the window
        }


# What a target is sent: each kind of target says how it speaks each of them (kinds.py)
@dataclass(frozen=True)
class JobAlert:
    """The watcher's word about a job (`channelkit watch`): late, hung, failed or back.

    JobAlert("0f3c...", "sync", "late", "sync is late", "sync is late: no run ...")
    """

    alert_id: str  # the same when a send is retried, so a receiver can tell a repeat
    job: str
    kind: str  # "late", "hung", "failed" or "recovered"
    subject: str
    text: str

    @property
    def data(self) -> dict[str, Any]:
        return {
            "alert_id": self.alert_id,
            "job": self.job,
            "kind": self.kind,
            "subject": self.subject,
            "text": self.text,
        }


Content = ReportMessage | NotebookMessage | FailureNotice | DigestMessage | JobAlert


def why_provisional(page: ReportPage) -> str | None:
    """The one line of why under provisional numbers (display/notes.py's words)."""
    flags = [*(s.flags for s in page.summary), *(t.flags for t in page.kpis)]
    return provisional_said(flag for group in flags for flag in group)


def sentence_text(sentence: Sentence) -> str:
    """A summary sentence with its flags in brackets, for plain text."""
    text = one_minus(sentence.text)
    if not sentence.flags:
        return text
    return f"{text} [{'; '.join(sentence.flags)}]"


def text_summary(page: ReportPage, note: str) -> str:
    """The plain-text part of the email (and what a chat receiver can show as is)."""
    lines = [
        page.title,
        f"{page.period.label}, compared with {page.previous_period.name}",
        "",
    ]
    lines += [f"- {sentence_text(sentence)}" for sentence in page.summary]
    lines += [line for line in [why_provisional(page)] if line is not None]
    lines.append("")
    lines += [f"{tile.label}: {tile.value} ({tile.delta})" for tile in page.kpis]
    lines += ["", note, ""]
    return "\n".join(lines)


def email_message(
    page: ReportPage,
    *,
    sender: str,
    recipients: Sequence[str],
    subject: str,
    charts: Sequence[InlineChart],
    attachments: Sequence[Attachment],
    note: str,
) -> EmailMessage:
    """multipart/mixed: (text | HTML with the chart images inline) + the attachments.

    The HTML part has inline CSS and no script (mail clients drop both `<style>` and
    script); each chart is an `<img src="cid:...">` with its one-sentence alt text. `note`
    says what is attached (or why the report is not).
    """
    message = headed(sender, recipients, subject)
    domain = _domain(sender)
    message.set_content(text_summary(page, note))
    inline = [
        {
            "cid": make_msgid(domain=domain)[1:-1],
            "alt": chart.alt,
            "title": chart.title,
            "width": chart.width,
        }
        for chart in charts
    ]
    said = " ".join(line for line in (why_provisional(page), note) if line)
    html = _email_template().render(page=page, images=inline, note=said, minus=one_minus)
    message.add_alternative(html, subtype="html")
    html_part = message.get_body(preferencelist=("html",))
    if not isinstance(html_part, EmailMessage):  # pragma: no cover - add_alternative made it
        raise TypeError("no HTML part")
    for meta, chart in zip(inline, charts, strict=True):
        html_part.add_related(chart.png, "image", "png", cid=f"<{meta['cid']}>")
    _attach(message, attachments)
    return message


def notebook_email(
    title: str,
    period: ReportPeriod,
    *,
    sender: str,
    recipients: Sequence[str],
    subject: str,
    attachments: Sequence[Attachment],
    note: str,
) -> EmailMessage:
    """The email of a notebook report: its title and period in words, and the page."""
    message = headed(sender, recipients, subject)
    message.set_content(f"{title}\n{period.label}\n\n{note}\n")
    _attach(message, attachments)
    return message


def text_email(sender: str, recipients: Sequence[str], subject: str, text: str) -> EmailMessage:
    """A plain-text email (a failure notice)."""
    message = headed(sender, recipients, subject)
    message.set_content(text + "\n")
    return message


def zipped(name: str, files: Sequence[Attachment]) -> Attachment:
    """`files` in one zip archive."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in files:
            archive.writestr(file.filename, file.data)
    return Attachment(name, buffer.getvalue(), "application", "zip")


def _attach(message: EmailMessage, attachments: Sequence[Attachment]) -> None:
    for attachment in attachments:
        message.add_attachment(
            attachment.data,
            maintype=attachment.maintype,
            subtype=attachment.subtype,
            filename=attachment.filename,
        )


def headed(sender: str, recipients: Sequence[str], subject: str) -> EmailMessage:
    """A message with its headers, `Date` and `Message-ID` included: mail without them is
    refused or junked by large providers."""
    message = EmailMessage(policy=policy.SMTP)
    message["From"] = sender
    message["To"] = ", ".join(recipients)
    message["Subject"] = subject
    message["Date"] = formatdate(localtime=True)
    message["Message-ID"] = make_msgid(domain=_domain(sender))
    return message


def _domain(sender: str) -> str:
    return parseaddr(sender)[1].rpartition("@")[2] or "channelkit.local"


def _email_template() -> jinja2.Template:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return environment.get_template("email.html.j2")
