"""A warehouse at a glance: the card a notebook shows for `wh`, and its one-line text. Pure.

The facts come from `Warehouse.freshness()` and its coverage; nothing here reads a file.
Never a key: the service's address is shown with any credentials in it removed upstream.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

from channelkit._constants import DISPLAY_STALE_AFTER_HOURS
from channelkit.display import numbers

_STYLE = (
    "<style>.ck-card{border:1px solid #ccd;border-radius:6px;padding:8px 12px;"
    "display:inline-block;font-size:90%}.ck-card table{border-collapse:collapse}"
    ".ck-card th{text-align:left;padding:1px 12px 1px 0;color:#555;font-weight:normal}"
    ".ck-card .ck-fresh{color:#1b7f3b}.ck-card .ck-stale,.ck-card .ck-note{color:#8a5a00}</style>"
)


@dataclass(frozen=True)
class WarehouseFacts:
    """What the card says about one warehouse file (or lake)."""

    source: str
    first_day: date | None
    last_day: date | None
    last_sync_at: datetime | None
    posts: int
    channels: int
    base_url: str | None = None
    warnings: tuple[str, ...] = field(default_factory=tuple)

    @property
    def days(self) -> int:
        if self.first_day is None or self.last_day is None:
            return 0
        return (self.last_day - self.first_day).days + 1

    def covered(self) -> str:
        if self.first_day is None or self.last_day is None:
            return "no daily analytics"
        return f"{self.days:,} days, {self.first_day.isoformat()} to {self.last_day.isoformat()}"

    def synced(self, now: datetime) -> str:
        if self.last_sync_at is None:
            return "never completed"
        ago = numbers.age((now - self.last_sync_at).total_seconds())
        return f"{self.last_sync_at:%Y-%m-%d %H:%M} UTC ({ago} ago)"

    def stale(self, now: datetime) -> bool:
        if self.last_sync_at is None:
            return True
        return now - self.last_sync_at > timedelta(hours=DISPLAY_STALE_AFTER_HOURS)

    def freshness(self, now: datetime) -> str:
        if self.last_sync_at is None:
            return "not synced: run `channelkit sync`"
        if self.stale(now):
            return f"stale: older than {DISPLAY_STALE_AFTER_HOURS} hours; run `ck.sync` again"
        return "fresh"


def card_text(facts: WarehouseFacts, *, now: datetime | None = None) -> str:
    """One line: posts, channels, days covered and the last sync."""
    when = now or datetime.now(UTC)
    return (
        f"{facts.posts:,} posts in {facts.channels:,} channels; {facts.covered()}; "
        f"last sync {facts.synced(when)}; {facts.freshness(when)}"
    )


def card_html(facts: WarehouseFacts, title: str, *, now: datetime | None = None) -> str:
    """The card: file, days covered, last sync and its age, posts, channels, freshness."""
    when = now or datetime.now(UTC)
    state = "ck-stale" if facts.stale(when) else "ck-fresh"
    rows = [
        ("File", facts.source, ""),
        ("Days covered", facts.covered(), "ck-days"),
        ("Last sync", facts.synced(when), "ck-last-sync"),
        ("Posts", f"{facts.posts:,}", "ck-posts"),
        ("Channels", f"{facts.channels:,}", "ck-channels"),
        ("Freshness", facts.freshness(when), state),
    ]
    if facts.base_url:
        rows.append(("Service", facts.base_url, ""))
    body = "".join(
        f'<tr><th>{name}</th><td class="{css}">{html.escape(value)}</td></tr>'
        for name, value, css in rows
    )
    notes = "".join(f'<div class="ck-note">⚠ {html.escape(w)}</div>' for w in facts.warnings)
    return (
        f'<div class="ck-card">{_STYLE}<b>{html.escape(title)}</b>'
        f"<table>{body}</table>{notes}</div>"
    )
