"""The delivery kinds, each declared once: email and every webhook kind, with what it sends
for a report, a notebook report, a failure notice and the upcoming digest, how it escapes
text and how large a message it takes.

    WEBHOOK_KINDS["slack"].payload(FailureNotice("weekly", period, "no channel", "Not sent"))
    EMAIL.message(content, "analytics@example.com", ["comms-lead@example.com"])

A new webhook kind is a subclass of `WebhookKind` added to `WEBHOOK_KINDS`: the delivery
file accepts its name from then on, and nothing else switches on kinds
(docs/architecture.md, "A new delivery kind").
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from pathlib import Path
from typing import Any, ClassVar

from channelkit._constants import DELIVER_EMAIL_MAX_BYTES, DELIVER_NOTEBOOK_EMAIL_MAX_BYTES
from channelkit.reports.deliver.email_charts import one_minus
from channelkit.reports.deliver.messages import (
    Attachment,
    Content,
    DigestMessage,
    FailureNotice,
    JobAlert,
    NotebookMessage,
    ReportMessage,
    email_message,
    headed,
    notebook_email,
    sentence_text,
    text_email,
    why_provisional,
    zipped,
)

Payload = dict[str, Any]


class WebhookKind(ABC):
    """A chat receiver: the JSON it is posted for each thing sent, its escaping and limits.

    A kind that takes plain text says how a text goes (`text`) and how a report goes
    (`report`); notebooks, failure notices and digests go as text unless it says otherwise.
    """

    name: ClassVar[str]
    max_text: ClassVar[int | None] = None  # the longest text it takes, in `size` units

    def escape(self, text: str) -> str:
        """User text made safe for this receiver (titles and names are never markup)."""
        return text

    def size(self, text: str) -> int:
        """How large `text` counts against `max_text`."""
        return len(text)

    def said(self, text: str, limit: int | None = None) -> str:
        """`text` escaped, and cut with "…" to `limit` (default `max_text`)."""
        limit = self.max_text if limit is None else limit
        escaped = self.escape(text)
        if limit is None or self.size(escaped) <= limit:
            return escaped
        kept: list[str] = []
        room = limit - self.size("\u2026")
        for char in text:  # char by char: never half an escape
            piece = self.escape(char)
            room -= self.size(piece)
            if room < 0:
                break
            kept.append(piece)
        return "".join(kept) + "\u2026"

    @abstractmethod
    def text(self, text: str) -> Payload:
        """A plain message."""

    @abstractmethod
    def report(self, message: ReportMessage) -> Payload:
        """The built-in report: its summary, key numbers and file."""

    def notebook(self, message: NotebookMessage) -> Payload:
        return self.text(message.text)

    def failure(self, message: FailureNotice) -> Payload:
        return self.text(message.text)

    def digest(self, message: DigestMessage) -> Payload:
        return self.text(message.text)

    def alert(self, message: JobAlert) -> Payload:
        return self.text(message.text)

    def payload(self, content: Content) -> Payload:
        """The JSON body this kind is posted for `content`."""
        match content:
            case ReportMessage():
                return self.report(content)
            case NotebookMessage():
                return self.notebook(content)
            case FailureNotice():
                return self.failure(content)
            case DigestMessage():
                return self.digest(content)
            case JobAlert():
                return self.alert(content)


class Slack(WebhookKind):
    """Slack's incoming webhooks: Block Kit blocks with a plain `text` fallback; `&`, `<`
    and `>` escaped, as Slack reads `<...>` as links and mentions."""

    name = "slack"
    max_text = 40_000  # characters of `text`: Slack cuts a message there
    max_section = 3_000  # characters of a section block's text
    max_field = 2_000  # characters of one field of a section
    max_fields = 10  # fields per section
    max_header = 150  # characters of a header block

    def escape(self, text: str) -> str:
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    def text(self, text: str) -> Payload:
        return {"text": self.said(text)}

    def report(self, message: ReportMessage) -> Payload:
        page = message.page
        lines = [f"\u2022 {sentence_text(s)}" for s in page.summary]
        lines += [line for line in [why_provisional(page)] if line]
        summary = self.said("\n".join(lines), self.max_section)
        fields = [
            {
                "type": "mrkdwn",
                "text": self.said(f"*{tile.label}*\n{tile.value} ({tile.delta})", self.max_field),
            }
            for tile in page.kpis
        ]
        header = {"type": "plain_text", "text": page.title[: self.max_header]}
        blocks: list[Payload] = [
            {"type": "header", "text": header},
            {"type": "section", "text": {"type": "mrkdwn", "text": summary or "No summary."}},
        ]
        for start in range(0, len(fields), self.max_fields):
            blocks.append({"type": "section", "fields": fields[start : start + self.max_fields]})
        file = self.said(f"Report file: {message.filename}")
        blocks.append({"type": "context", "elements": [{"type": "mrkdwn", "text": file}]})
        fallback = f"{page.title}\n" + "\n".join(sentence_text(s) for s in page.summary)
        return {"text": self.said(fallback), "blocks": blocks}


class Teams(WebhookKind):
    """Microsoft Teams' incoming webhooks: a message, the report as an Adaptive Card (1.4);
    Teams refuses a message over 28 KB."""

    name = "teams"
    max_text = 27_000  # bytes as posted (JSON-escaped), leaving room for the envelope

    def size(self, text: str) -> int:
        return len(json.dumps(text)) - 2

    def text(self, text: str) -> Payload:
        return {"type": "message", "text": self.said(text)}

    def report(self, message: ReportMessage) -> Payload:
        page = message.page
        body: list[Payload] = [
            {
                "type": "TextBlock",
                "text": page.title,
                "weight": "Bolder",
                "size": "Medium",
                "wrap": True,
            },
            {"type": "TextBlock", "text": page.period.label, "isSubtle": True, "wrap": True},
        ]
        body += [
            {"type": "TextBlock", "text": f"- {sentence_text(s)}", "wrap": True}
            for s in page.summary
        ]
        body += [
            {"type": "TextBlock", "text": why, "wrap": True}
            for why in [why_provisional(page)]
            if why
        ]
        facts = [
            {"title": tile.label, "value": f"{tile.value} ({tile.delta})"} for tile in page.kpis
        ]
        body.append({"type": "FactSet", "facts": facts})
        file = f"Report file: {message.filename}"
        body.append({"type": "TextBlock", "text": file, "isSubtle": True, "wrap": True})
        card = {
            "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
            "type": "AdaptiveCard",
            "version": "1.4",
            "body": body,
        }
        return {
            "type": "message",
            "attachments": [
                {"contentType": "application/vnd.microsoft.card.adaptive", "content": card}
            ],
        }


class Json(WebhookKind):
    """`json`: plain data for any other receiver; nothing escaped, no limit."""

    name = "json"

    def text(self, text: str) -> Payload:
        return {"text": text}

    def report(self, message: ReportMessage) -> Payload:
        page = message.page
        return {
            "report": message.report,
            "title": page.title,
            "period": {
                "name": page.period.name,
                "start": page.period.start.isoformat(),
                "last_day": page.period.last_day.isoformat(),
                "tz": page.period.tz.key,
            },
            "compared_with": page.previous_period.name,
            "summary": [{"text": one_minus(s.text), "flags": list(s.flags)} for s in page.summary],
            "notes": [why for why in [why_provisional(page)] if why],
            "numbers": [
                {
                    "metric": tile.key,
                    "label": tile.label,
                    "value": tile.value,
                    "previous": tile.previous,
                    "change": tile.delta,
                    "flags": list(tile.flags),
                }
                for tile in page.kpis
            ],
            "file": message.filename,
        }

    def notebook(self, message: NotebookMessage) -> Payload:
        return message.data

    def failure(self, message: FailureNotice) -> Payload:
        return message.data

    def digest(self, message: DigestMessage) -> Payload:
        return message.data

    def alert(self, message: JobAlert) -> Payload:
        return message.data


# Every webhook kind the delivery file accepts (`kind = "slack"`), by name
WEBHOOK_KINDS: dict[str, WebhookKind] = {kind.name: kind for kind in (Slack(), Teams(), Json())}


@dataclass
class Email:
    """Email: a multipart message for each thing sent, within `max_bytes` (a notebook's email,
    whose page is all it carries, within `max_notebook_bytes`).

    Email().message(content, "analytics@example.com", ["comms-lead@example.com"])
    """

    name: ClassVar[str] = "email"
    max_bytes: int = DELIVER_EMAIL_MAX_BYTES
    max_notebook_bytes: int = DELIVER_NOTEBOOK_EMAIL_MAX_BYTES

    def message(self, content: Content, sender: str, recipients: Sequence[str]) -> EmailMessage:
        match content:
            case ReportMessage():
                return self.report(content, sender, recipients)
            case NotebookMessage():
                return self.notebook(content, sender, recipients)
            case FailureNotice() | JobAlert():
                return text_email(sender, recipients, content.subject, content.text)
            case DigestMessage():
                return self.digest(content, sender, recipients)

    def report(self, report: ReportMessage, sender: str, recipients: Sequence[str]) -> EmailMessage:
        """Summary, key numbers and charts inline; the page attached if it fits."""
        charts = report.charts()
        extra = [report.data] if report.data is not None else []
        said = " Its data is attached as CSV files, zipped." if extra else ""

        def message(attached: list[Attachment], note: str) -> EmailMessage:
            return email_message(
                report.page,
                sender=sender,
                recipients=recipients,
                subject=report.subject,
                charts=charts,
                attachments=[*attached, *extra],
                note=note + said,
            )

        return _within(message, report, self.max_bytes)

    def notebook(
        self, report: NotebookMessage, sender: str, recipients: Sequence[str]
    ) -> EmailMessage:
        def message(attached: list[Attachment], note: str) -> EmailMessage:
            return notebook_email(
                report.title,
                report.period,
                sender=sender,
                recipients=recipients,
                subject=report.subject,
                attachments=attached,
                note=note,
            )

        return _within(message, report, self.max_notebook_bytes)

    def digest(self, digest: DigestMessage, sender: str, recipients: Sequence[str]) -> EmailMessage:
        message = headed(sender, recipients, digest.subject)
        message.set_content(digest.text)
        message.add_alternative(digest.html, subtype="html")
        return message

    @staticmethod
    def left_out(content: Content, message: EmailMessage) -> Path | None:
        """Where the interactive report of `content` is kept when `message` could not carry
        it (None when it does, or `content` is no report)."""
        if not isinstance(content, ReportMessage | NotebookMessage):
            return None
        names = {part.get_filename() for part in message.iter_attachments()}
        if content.filename in names or f"{content.filename}.zip" in names:
            return None
        return content.kept or content.fallback


EMAIL = Email()


def _within(
    message: Callable[[list[Attachment], str], EmailMessage],
    report: ReportMessage | NotebookMessage,
    limit: int,
) -> EmailMessage:
    """The email with the report attached as it is, else zipped (plotly.js shrinks to a
    third), else left out with a word on where it is kept: the first within the size limit.
    Left out, the page is kept where `out_dir` put it, else written to `report.fallback`."""
    filename = report.filename
    page = Attachment(filename, report.html.encode("utf-8"), "text", "html")
    choices = [
        ([page], f"The interactive report is attached: {filename}."),
        (
            [zipped(f"{filename}.zip", [page])],
            f"The interactive report is attached, zipped: {filename}.zip.",
        ),
    ]
    for attached, note in choices:
        built = message(attached, note)
        if len(built.as_bytes()) <= limit:
            return built
    kept = report.kept
    if kept is None and report.fallback is not None:
        from channelkit.reports.files import write_atomic

        write_atomic(report.fallback, report.html)  # its folder is made as needed
        kept = report.fallback
    where = f" It is kept as {kept}." if kept is not None else ""
    # over the limit without the report too: sent anyway, the charts are the point
    return message([], f"The interactive report ({filename}) is too large for email.{where}")
