"""The same words everywhere (issue 28): the notebook's KPI table, the Explorer's tiles, the
report, the email and the chat cards say "compared at the same age", "provisional" with
its one line of why, and "below its usual range (x–y)", counts' ranges in whole numbers.

The warehouse is the steady workspace synced on a Monday at noon: last week's posts are
still gathering readers.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

import channelkit as ck
from channelkit.display import notes
from channelkit.display.frames import frame_html
from channelkit.display.tiles import tiles_html
from channelkit.reports.deliver import messages
from channelkit.reports.deliver.kinds import WEBHOOK_KINDS
from channelkit.reports.generate import build_report
from fixtures.steady import build_steady

WHY = "Provisional: posts of the last days are still gathering readers; compared at the same age."
MONDAY_NOON = datetime(2026, 11, 23, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def monday(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_steady(tmp_path_factory.mktemp("monday") / "steady.duckdb", MONDAY_NOON)


def test_one_row_speaks_the_same_words() -> None:
    rate = {"kind": "rate", "value": 0.140, "usual_low": 0.145, "usual_high": 0.149,
            "provisional": True, "small_base": False}  # fmt: skip
    assert notes.kpi_notes(rate) == ["below its usual range (14.5%–14.9%)", "provisional"]
    count = {"kind": "count", "value": 200.0, "usual_low": 127.5, "usual_high": 179.7,
             "provisional": False, "small_base": True}  # fmt: skip
    assert notes.kpi_notes(count) == ["above its usual range (128–180)", "small base"]
    assert notes.kpi_notes({**count, "value": 150.0, "small_base": False}) == []
    assert notes.provisional_line([rate, count]) == WHY
    assert notes.provisional_line([count]) is None


def test_the_notebook_and_the_explorer_say_it(monday: Path) -> None:
    frame = ck.Warehouse(monday).kpis(period="week")
    assert frame.set_index("metric").loc["readers", "provisional"]
    for shown in (frame_html(frame), tiles_html(frame)):
        assert "compared at the same age" in shown
        assert WHY in shown
        assert ">provisional<" in shown
    # Counts' usual ranges in whole numbers: no "127.5 – 179.7".
    table = frame_html(frame)
    assert not re.search(r"\d\.\d \u2013|\d\.\d\u2013", table.replace("%", "%;"))
    ranges = re.findall(r">([\d,]+)\u2013([\d,]+)<", table)
    assert ranges  # the count rows' ranges, as whole numbers


@pytest.mark.calendar
def test_the_report_email_and_chat_cards_say_it(monday: Path) -> None:
    page = build_report(monday, period="week", now=MONDAY_NOON).page
    flagged = [s for s in page.summary if "provisional" in s.flags]
    assert flagged and any("compared at the same age" in s.text for s in flagged)
    assert WHY in page.caveats
    assert any("provisional" in tile.flags for tile in page.kpis)
    text = messages.text_summary(page, "The report is attached.")
    assert "[provisional" in text and WHY in text
    sent = messages.ReportMessage("weekly", page, "weekly.html", "", "Weekly")
    slack, teams = (json.dumps(WEBHOOK_KINDS[kind].report(sent)) for kind in ("slack", "teams"))
    data = WEBHOOK_KINDS["json"].report(sent)
    for card in (slack, teams):
        assert "provisional" in card and WHY in card
    assert data["notes"] == [WHY]
    email = messages.email_message(
        page,
        sender="ck@example.com",
        recipients=["a@example.com"],
        subject="Weekly",
        charts=(),
        attachments=(),
        note="The report is attached.",
    )
    html = email.get_body(preferencelist=("html",))
    assert html is not None
    body = html.get_content()
    assert ">provisional</span>" in body and WHY in body
