"""What a delivered report says: the email and the chat messages, built without any I/O.

Every message leads with the summary sentences and the key numbers of the page, and names
the report's file. Slack gets Block Kit JSON (with a plain `text` fallback), Teams an
Adaptive Card, `json` the summary as plain data for any other receiver.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from email import policy
from email.message import EmailMessage
from email.utils import formatdate, make_msgid, parseaddr
from typing import Any

import jinja2

from channelkit.display.notes import provisional_said
from channelkit.reports.deliver.email_charts import one_minus
from channelkit.reports.page import ReportPage, Sentence
from channelkit.reports.parameters import ReportPeriod
from channelkit.reports.render import TEMPLATES_DIR


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


def _why(page: ReportPage) -> str | None:
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
    lines += [line for line in [_why(page)] if line is not None]
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
    said = " ".join(line for line in (_why(page), note) if line)
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


def failure_text(report: str, period: ReportPeriod, error: str) -> str:
    """What a failure notice says: which report, which period, why, and what happens next."""
    return (
        f"The report {report!r} for {period.name} could not be built, so it was not sent:\n"
        f"{error}\n\nEvery run of `channelkit deliver` tries again until it is sent; this "
        "notice is sent once for the period."
    )


def failure_email(
    report: str,
    period: ReportPeriod,
    error: str,
    *,
    sender: str,
    recipients: Sequence[str],
    subject: str,
) -> EmailMessage:
    """The failure notice as a plain-text email (`on_failure = { email = [...] }`)."""
    message = headed(sender, recipients, subject)
    message.set_content(failure_text(report, period, error) + "\n")
    return message


def failure_payload(kind: str, report: str, period: ReportPeriod, error: str) -> dict[str, Any]:
    """The failure notice for a `slack`, `teams` or `json` webhook."""
    text = failure_text(report, period, error)
    if kind == "slack":
        return {"text": _slack_escape(text)}
    if kind == "teams":
        return {"type": "message", "text": text}
    return {"report": report, "period": period.name, "status": "failed", "error": error}


def _attach(message: EmailMessage, attachments: Sequence[Attachment]) -> None:
    for attachment in attachments:
        message.add_attachment(
            attachment.data,
            maintype=attachment.maintype,
            subtype=attachment.subtype,
            filename=attachment.filename,
        )


def notebook_payload(
    kind: str, title: str, period: ReportPeriod, filename: str, report: str
) -> dict[str, Any]:
    """A chat message for a notebook report: what it is, for when, and its file."""
    text = f"{title}\n{period.label}\nReport file: {filename}"
    if kind == "slack":
        return {"text": _slack_escape(text)}
    if kind == "teams":
        return {"type": "message", "text": text}
    return {"report": report, "title": title, "period": period.name, "file": filename}


def webhook_payload(kind: str, page: ReportPage, filename: str, report: str) -> dict[str, Any]:
    """The JSON body for a `slack`, `teams` or `json` webhook."""
    if kind == "slack":
        return slack_payload(page, filename)
    if kind == "teams":
        return teams_payload(page, filename)
    return json_payload(page, filename, report)


def slack_payload(page: ReportPage, filename: str) -> dict[str, Any]:
    """Slack-compatible JSON: Block Kit blocks with a `text` fallback for notifications."""
    summary = "\n".join(f"\u2022 {_slack_escape(sentence_text(s))}" for s in page.summary)
    summary += "".join(f"\n{_slack_escape(line)}" for line in [_why(page)] if line)
    fields = [
        {"type": "mrkdwn", "text": f"*{_slack_escape(tile.label)}*\n{tile.value} ({tile.delta})"}
        for tile in page.kpis
    ]
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": page.title[:150]}},
        {"type": "section", "text": {"type": "mrkdwn", "text": summary or "No summary."}},
    ]
    # Slack allows ten fields per section
    for start in range(0, len(fields), 10):
        blocks.append({"type": "section", "fields": fields[start : start + 10]})
    blocks.append(
        {
            "type": "context",
            "elements": [{"type": "mrkdwn", "text": f"Report file: {_slack_escape(filename)}"}],
        }
    )
    fallback = f"{page.title}\n" + "\n".join(sentence_text(s) for s in page.summary)
    return {"text": _slack_escape(fallback), "blocks": blocks}


def teams_payload(page: ReportPage, filename: str) -> dict[str, Any]:
    """A Teams message carrying an Adaptive Card (1.4)."""
    body: list[dict[str, Any]] = [
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
        {"type": "TextBlock", "text": f"- {sentence_text(s)}", "wrap": True} for s in page.summary
    ]
    body += [{"type": "TextBlock", "text": why, "wrap": True} for why in [_why(page)] if why]
    body.append(
        {
            "type": "FactSet",
            "facts": [
                {"title": tile.label, "value": f"{tile.value} ({tile.delta})"} for tile in page.kpis
            ],
        }
    )
    body.append(
        {"type": "TextBlock", "text": f"Report file: {filename}", "isSubtle": True, "wrap": True}
    )
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


def json_payload(page: ReportPage, filename: str, report: str) -> dict[str, Any]:
    """The summary as plain data."""
    return {
        "report": report,
        "title": page.title,
        "period": {
            "name": page.period.name,
            "start": page.period.start.isoformat(),
            "last_day": page.period.last_day.isoformat(),
            "tz": page.period.tz,
        },
        "compared_with": page.previous_period.name,
        "summary": [{"text": one_minus(s.text), "flags": list(s.flags)} for s in page.summary],
        "notes": [why for why in [_why(page)] if why],
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
        "file": filename,
    }


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


def _slack_escape(text: str) -> str:
    """Slack reads `<...>` as links and mentions: user text must not."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _email_template() -> jinja2.Template:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES_DIR),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return environment.get_template("email.html.j2")
