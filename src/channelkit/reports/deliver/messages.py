"""What a delivered report says: the email and the chat messages, built without any I/O.

Every message leads with the summary sentences and the key numbers of the page, and names
the report's file. Slack gets Block Kit JSON (with a plain `text` fallback), Teams an
Adaptive Card, `json` the summary as plain data for any other receiver.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

import jinja2

from channelkit.reports.page import ReportPage, Sentence
from channelkit.reports.render import TEMPLATES_DIR


@dataclass(frozen=True)
class Attachment:
    """A file sent with the email.

    Attachment("weekly-all-hands.html", b"<!doctype html>...", "text", "html")
    """

    filename: str
    data: bytes
    maintype: str
    subtype: str


def sentence_text(sentence: Sentence) -> str:
    """A summary sentence with its flags in brackets, for plain text."""
    if not sentence.flags:
        return sentence.text
    return f"{sentence.text} [{'; '.join(sentence.flags)}]"


def text_summary(page: ReportPage, filename: str) -> str:
    """The plain-text part of the email (and what a chat receiver can show as is)."""
    lines = [
        page.title,
        f"{page.period.label}, compared with {page.previous_period.name}",
        "",
    ]
    lines += [f"- {sentence_text(sentence)}" for sentence in page.summary]
    lines.append("")
    lines += [f"{tile.label}: {tile.value} ({tile.delta})" for tile in page.kpis]
    lines += ["", f"The interactive report is attached: {filename}", ""]
    return "\n".join(lines)


def email_message(
    page: ReportPage,
    *,
    sender: str,
    recipients: Sequence[str],
    subject: str,
    filename: str,
    images: Sequence[bytes],
    attachments: Sequence[Attachment],
) -> EmailMessage:
    """multipart/mixed: (text | HTML with the chart images inline) + the attachments.

    The HTML part has inline CSS and no script (mail clients drop both `<style>` and
    script); each chart is an `<img src="cid:...">` with the chart's text as its `alt`.
    """
    message = EmailMessage()
    message["From"] = sender
    message["To"] = ", ".join(recipients)
    message["Subject"] = subject
    message.set_content(text_summary(page, filename))
    charts = page.charts[: len(images)]
    inline = [
        {
            "cid": make_msgid(domain="channelkit.local")[1:-1],
            "label": chart.label,
            "title": _chart_title(page, index),
        }
        for index, chart in enumerate(charts)
    ]
    csv_count = sum(1 for a in attachments if a.subtype == "csv")
    html = _email_template().render(
        page=page, images=inline, filename=filename, csv_count=csv_count
    )
    message.add_alternative(html, subtype="html")
    html_part = message.get_body(preferencelist=("html",))
    if not isinstance(html_part, EmailMessage):  # pragma: no cover - add_alternative made it
        raise TypeError("no HTML part")
    for meta, image in zip(inline, images, strict=False):
        html_part.add_related(image, "image", "png", cid=f"<{meta['cid']}>")
    for attachment in attachments:
        message.add_attachment(
            attachment.data,
            maintype=attachment.maintype,
            subtype=attachment.subtype,
            filename=attachment.filename,
        )
    return message


def email_html(page: ReportPage, filename: str) -> str:
    """The email's HTML part without images (what `--dry-run` can show)."""
    return _email_template().render(page=page, images=[], filename=filename, csv_count=0)


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
        "summary": [{"text": s.text, "flags": list(s.flags)} for s in page.summary],
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


def _chart_title(page: ReportPage, index: int) -> str:
    count = 0
    for section in page.sections:
        for _ in section.charts:
            if count == index:
                return section.title
            count += 1
    return ""


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
