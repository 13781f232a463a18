"""A publishing plan and its results show as a summary over their rows in a notebook."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import pytest

from channelkit.client import Client
from channelkit.publish import load_spreadsheet
from channelkit.service import LocalService

CSV = (
    "channel,title,body,scheduled_at,timezone\n"
    "all-hands,Town hall <b>Thursday</b>,Agenda inside,2030-01-07 09:00,Europe/Berlin\n"
    "all-hands,,No title,2030-01-07 10:00,Europe/Berlin\n"
)


@pytest.fixture
def client(service: LocalService, admin_key: str) -> Iterator[Client]:
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        client.channels.create(name="All hands", slug="all-hands")
        yield client


def _rows(html: str) -> list[list[str]]:
    body = html.split("<tbody>")[1]
    return [
        re.findall(r"<td[^>]*>([^<]*)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", body)
    ]


def test_a_plan_and_its_results_display_their_rows(client: Client) -> None:
    plan = load_spreadsheet(CSV.encode(), filename="posts.csv")
    shown = plan._repr_html_()
    caption = html.unescape(shown.split("<caption>")[1].split("</caption>")[0])
    assert caption.startswith("<b>Plan 'posts.csv': 2 rows, 1 ok, 1 with errors")
    statuses = [row[1] for row in _rows(shown)]
    assert statuses == list(plan.preview()["status"]) == ["ok", "error"]
    assert "&lt;b&gt;Thursday&lt;/b&gt;" in shown and "<b>Thursday" not in shown

    result = plan.submit(client, allow_partial=True, progress=False)
    shown = result._repr_html_()
    assert "SubmitResult 'posts.csv': " in html.unescape(shown)
    rows = _rows(shown)
    assert [row[1] for row in rows] == list(result.preview()["status"])
    assert rows[0][2] == result.preview()["post_id"][0]
    assert "\n" not in repr(result)


def test_submitting_shows_a_bar_and_a_summary_only_when_asked_or_seen(
    client: Client, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = CSV.splitlines()[:2]
    again = rows[1].replace("Town hall", "Quiz night")
    load_spreadsheet("\n".join([*rows, again]).encode(), filename="p.csv").submit(client)
    assert capsys.readouterr().err == ""  # a script (no terminal, no kernel): quiet
    # another post (the same title and body would be refused as a likely duplicate)
    later = rows[1].replace("Town hall", "Board meeting").replace("Agenda inside", "Minutes")
    load_spreadsheet("\n".join([rows[0], later]).encode(), filename="p.csv").submit(
        client, progress=True
    )
    err = capsys.readouterr().err
    assert "Scheduling posts" in err
    assert err.rstrip().splitlines()[-1] == "1 posts to send: 1 created"
