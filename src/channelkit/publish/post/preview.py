"""A post as HTML for notebooks: sanitised Markdown body, channel, local and UTC time.

Every user-supplied string is escaped or goes through the project's Markdown sanitiser, so
a title or body cannot inject script into the notebook. Pure: no I/O.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from channelkit._markdown import render_markdown


def format_when(moment: datetime | None, tz: ZoneInfo | None) -> str:
    """`Tue 1 Dec 2026, 09:00 Europe/Berlin (08:00 UTC)`; "now" when there is no time."""
    if moment is None:
        return "now"
    utc = moment.astimezone(UTC)
    utc_text = f"{utc:%a} {utc.day} {utc:%b %Y, %H:%M} UTC"
    if tz is None or tz.key == "UTC":
        return utc_text
    local = moment.astimezone(tz)
    return f"{local:%a} {local.day} {local:%b %Y, %H:%M} {tz.key} ({utc:%H:%M} UTC)"


def post_html(
    *,
    title: str,
    body: str,
    channel: str,
    when: str,
    status: str | None = None,
    priority: str = "normal",
    tags: Sequence[str] = (),
    post_id: str | None = None,
    cover_image_url: str | None = None,
) -> str:
    """The HTML card shown for a post (created or about to be)."""
    facts = [f"<b>{html.escape(channel)}</b>", html.escape(when)]
    if status:
        facts.append(html.escape(status))
    if priority != "normal":
        facts.append(f"priority <b>{html.escape(priority)}</b>")
    if tags:
        facts.append(" ".join(f"<code>#{html.escape(tag)}</code>" for tag in tags))
    if post_id:
        facts.append(f"<code>{html.escape(post_id)}</code>")
    cover = ""
    if cover_image_url and cover_image_url.lower().startswith(("http://", "https://")):
        cover = (
            f'<img src="{html.escape(cover_image_url, quote=True)}" alt="" '
            'style="max-width:100%;max-height:12em">'
        )
    return (
        '<div class="channelkit-post" style="border:1px solid #ccc;border-radius:6px;'
        'padding:0.6em 1em;max-width:48em">'
        f"{cover}<h3 style='margin:0.2em 0'>{html.escape(title)}</h3>"
        f"<div style='color:#555;font-size:90%'>{' · '.join(facts)}</div>"
        f"<div class='channelkit-post-body'>{render_markdown(body)}</div></div>"
    )
