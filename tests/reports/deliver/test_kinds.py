"""The delivery kinds (kinds.py): every declared kind speaks every thing sent, escaped and
within its limits; the delivery file accepts exactly the declared kinds."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from channelkit._tz import UTC_ZONE
from channelkit.cli import main
from channelkit.reports.deliver.kinds import EMAIL, WEBHOOK_KINDS, Slack, WebhookKind
from channelkit.reports.deliver.messages import (
    Content,
    DigestMessage,
    FailureNotice,
    NotebookMessage,
)
from channelkit.reports.parameters import ReportPeriod
from channelkit.reports.upcoming import UpcomingDigest, UpcomingPost

START = datetime(2026, 11, 28, 7, 0, tzinfo=UTC)  # pinned: nothing here reads the clock
PERIOD = ReportPeriod(date(2026, 11, 16), date(2026, 11, 23), ZoneInfo("UTC"), "week")
MARKUP = "Town hall <today> & <!channel>"


def _digest(posts: int = 1, title: str = MARKUP) -> DigestMessage:
    post = UpcomingPost("p1", START + timedelta(hours=2), "all-hands", title, "ann")
    digest = UpcomingDigest(START, START + timedelta(hours=36), UTC_ZONE, (post,) * posts)
    return DigestMessage("morning", digest, digest.html(), digest.title)


def _texts(value: object) -> list[str]:
    """Every string in a JSON payload."""
    if isinstance(value, str):
        return [value]
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else []
    return [text for item in items for text in _texts(item)]


def _contents() -> list[Content]:
    """One of each thing sent but the report (a page needs a warehouse: test_deliver.py)."""
    return [
        NotebookMessage("mine", MARKUP, PERIOD, "mine.html", "<p>page</p>", "Mine"),
        FailureNotice("weekly", PERIOD, f"no channel {MARKUP!r}", "Not sent: weekly"),
        _digest(),
    ]


@pytest.mark.parametrize("kind", list(WEBHOOK_KINDS.values()), ids=list(WEBHOOK_KINDS))
def test_every_kind_speaks_every_thing_sent_with_its_escaping(kind: WebhookKind) -> None:
    for content in _contents():
        body = json.dumps(kind.payload(content))
        assert "<today>" not in body or kind.escape("<today>") == "<today>"
        if kind.escape(MARKUP) != MARKUP:  # a kind that escapes never lets markup through
            said = json.dumps(kind.escape("<today>"))[1:-1]  # as its own escaping writes it
            assert said in body and "<!channel>" not in body


def test_the_digest_goes_to_teams_as_a_message_and_to_slack_escaped() -> None:
    """The two the upcoming digest once got wrong."""
    teams = WEBHOOK_KINDS["teams"].payload(_digest())
    assert teams["type"] == "message" and MARKUP in teams["text"]
    slack = WEBHOOK_KINDS["slack"].payload(_digest())
    assert "Town hall &lt;today&gt; &amp; &lt;!channel&gt;" in slack["text"]


@pytest.mark.parametrize("name", [n for n, k in WEBHOOK_KINDS.items() if k.max_text])
def test_a_long_digest_is_cut_to_the_kinds_limit_never_inside_an_escape(name: str) -> None:
    kind = WEBHOOK_KINDS[name]
    assert kind.max_text is not None
    payload = kind.payload(_digest(posts=2_000, title="<&> \u00e9t\u00e9 " * 5))
    text = max(_texts(payload), key=len)  # wherever the kind puts its text
    assert kind.size(text) <= kind.max_text and text.endswith("\u2026")
    if isinstance(kind, Slack):  # every & left starts a whole escape
        assert "&" not in re.sub(r"&(amp|lt|gt);", "", text)


@pytest.mark.calendar
def test_the_email_speaks_every_thing_sent() -> None:
    for content in _contents():
        message = EMAIL.message(content, "analytics@example.com", ["a@example.com"])
        assert message["Subject"] == content.subject
        assert len(message.as_bytes()) <= EMAIL.max_bytes


@pytest.mark.calendar
def test_the_delivery_file_takes_exactly_the_declared_kinds(tmp_path: Path) -> None:
    unknown = "x" + "".join(WEBHOOK_KINDS)  # a name no kind has
    config = tmp_path / "deliver.toml"
    for kind in [*WEBHOOK_KINDS, unknown]:
        config.write_text(
            "[[reports]]\nname = 'x'\nperiod = 'week'\n"
            f"webhooks = [{{ url = 'https://h.example.com/x', kind = '{kind}' }}]\n",
            encoding="utf-8",
        )
        db = tmp_path / "w.duckdb"
        result = CliRunner().invoke(main, ["deliver", str(config), "--db", str(db), "--dry-run"])
        refused = f"webhooks[0].kind: '{kind}'" in result.output
        assert refused == (kind == unknown), result.output
