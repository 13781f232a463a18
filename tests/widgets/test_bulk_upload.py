"""BulkUpload against a real service: upload bytes, read the table, submit, check the service."""

from __future__ import annotations

import base64
import io
import json
import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import openpyxl
import pytest
from ipywidgets.embed import dependency_state

from channelkit.client import Channel, Client
from channelkit.publish import calendar_frame
from channelkit.widgets import BulkUpload

pytestmark = pytest.mark.calendar

HEADER = ("channel", "title", "body", "scheduled_at", "tags")


def _xlsx(rows: list[tuple[object, ...]]) -> bytes:
    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "posts"
    sheet.append(HEADER)
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _upload(widget: BulkUpload, content: bytes, name: str) -> None:
    """What the browser sends when a file is chosen."""
    widget.upload.value = (
        {
            "name": name,
            "type": "",
            "size": len(content),
            "content": memoryview(content),
            "last_modified": datetime.now(UTC),
        },
    )


def _download(link_html: str, css_class: str) -> openpyxl.Workbook:
    match = re.search(rf'class="{css_class}"[^>]*href="data:[^;]+;base64,([^"]+)"', link_html)
    assert match, link_html
    return openpyxl.load_workbook(io.BytesIO(base64.b64decode(match[1])))


def _titles(client: Client, channel: Channel) -> list[str]:
    return sorted(post.title for post in client.posts.list(channel_id=channel.id))


def _rows(when: datetime) -> list[tuple[object, ...]]:
    stamp = f"{when:%Y-%m-%d %H:%M}"
    return [
        ("all-hands", "Town hall", "Thursday **10:00**", stamp, "hr, town-hall"),
        ("Engineering", "Release 4.2", "Faster search", stamp, "release"),
    ]


def test_a_valid_file_is_checked_submitted_and_its_results_offered(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    widget = BulkUpload(client, tz="Europe/Berlin")
    assert widget.submit_button.disabled

    _upload(widget, _xlsx(_rows(future_wall)), "posts.xlsx")

    assert widget.plan is not None and widget.plan.is_valid
    assert "Ready to submit" in widget.status.value
    assert widget.table.value.count("<td>ok</td>") == 2
    assert not widget.submit_button.disabled

    widget.submit_button.click()

    assert _titles(client, channels["all-hands"]) == ["Town hall"]
    assert _titles(client, channels["engineering"]) == ["Release 4.2"]
    utc = future_wall.replace(tzinfo=ZoneInfo("Europe/Berlin")).astimezone(UTC)
    assert all(
        post.scheduled_at == utc and post.status == "scheduled"
        for post in client.posts.list(channel_id=channels["all-hands"].id)
    )
    assert widget.results.value.count("<td>created</td>") == 2
    assert widget.progress.value == widget.progress.max == 2
    assert "2 created" in widget.status.value
    sheet = _download(widget.download.value, "ck-bulk-results-file").active
    assert sheet is not None
    values = list(sheet.values)
    assert values[0][:3] == ("row", "status", "post_id")
    ids = {
        post.id
        for channel in channels.values()
        for post in client.posts.list(channel_id=channel.id)
    }
    assert {row[2] for row in values[1:]} == ids
    assert "ck-bulk-failed-file" not in widget.download.value


def test_errors_keep_submit_disabled_until_partial_sending_is_chosen(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    rows = _rows(future_wall) + [
        ("old-news", "In an archived channel", "x", f"{future_wall:%Y-%m-%d %H:%M}", ""),
        ("all-hands", "No time", "x", "", ""),
    ]
    widget = BulkUpload(client, tz="Europe/Berlin")
    _upload(widget, _xlsx(rows), "posts.xlsx")

    assert widget.plan is not None and not widget.plan.is_valid
    assert widget.submit_button.disabled
    # The failing row is named by its title and channel, with the offending cell.
    assert (
        "2 with errors (first: row 4 (&quot;In an archived channel&quot;, old-news): channel: "
        "channel Old News (old-news) is archived"
    ) in widget.status.value.replace('"', "&quot;")
    assert "[channel = 'old-news']" in widget.status.value.replace("&#x27;", "'")
    table = widget.table.value
    assert "<td>In an archived channel</td>" in table
    assert "<td>scheduled_at = (blank)</td>" in table
    assert table.rindex("<td>error</td>") < table.index("<td>ok</td>")  # errors come first
    assert table.count("<td>error</td>") == 2
    assert "scheduled_at is required" in table
    widget.submit_button.click()  # disabled buttons do nothing, even when called from code
    assert _titles(client, channels["all-hands"]) == []

    widget.allow_partial.value = True
    assert not widget.submit_button.disabled
    widget.submit_button.click()

    assert _titles(client, channels["all-hands"]) == ["Town hall"]
    assert _titles(client, channels["engineering"]) == ["Release 4.2"]
    failed = _download(widget.download.value, "ck-bulk-failed-file").active
    assert failed is not None
    failed_rows = list(failed.values)
    assert failed_rows[0][-1] == "error"
    assert [row[1] for row in failed_rows[1:]] == ["In an archived channel", "No time"]


def test_the_same_file_again_creates_nothing_twice(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    content = _xlsx(_rows(future_wall))
    again = BulkUpload(client, tz="Europe/Berlin")
    _upload(again, content, "posts.xlsx")
    again.submit_button.click()
    assert again.upload.value == ()  # emptied after reading, so the same file is a change

    _upload(again, content, "posts.xlsx")
    assert "2 sent before" in again.status.value  # this machine's ledger knows both rows
    assert again.table.value.count("<td>sent</td>") == 2
    again.submit_button.click()

    assert again.last_result is not None and again.last_result.counts() == {"already_created": 2}
    assert _titles(client, channels["all-hands"]) == ["Town hall"]
    assert _titles(client, channels["engineering"]) == ["Release 4.2"]


def test_changing_the_time_zone_reads_the_file_again(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    widget = BulkUpload(client, tz="Europe/Berlin")
    _upload(widget, _xlsx(_rows(future_wall)), "posts.xlsx")
    berlin = future_wall.replace(tzinfo=ZoneInfo("Europe/Berlin")).astimezone(UTC)
    assert f"{berlin:%Y-%m-%dT%H:%M}:00Z" in widget.table.value

    widget.timezone.value = "America/New_York"

    new_york = future_wall.replace(tzinfo=ZoneInfo("America/New_York")).astimezone(UTC)
    assert f"{new_york:%Y-%m-%dT%H:%M}:00Z" in widget.table.value
    assert f"{berlin:%Y-%m-%dT%H:%M}:00Z" not in widget.table.value


def test_a_file_that_cannot_be_read_says_why_and_blocks_submit(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    widget = BulkUpload(client, tz="Europe/Berlin")
    _upload(widget, _xlsx(_rows(future_wall)), "posts.xlsx")
    assert not widget.submit_button.disabled

    _upload(widget, b"%PDF-1.7 not a spreadsheet", "posts.pdf")

    assert "posts.pdf: unsupported file type '.pdf'" in widget.status.value
    assert widget.plan is None
    assert widget.table.value == ""
    assert widget.submit_button.disabled

    _upload(widget, b"", "empty.csv")
    assert "empty.csv is empty" in widget.status.value


def test_cell_values_are_escaped_and_the_key_stays_out_of_widget_state(
    client: Client, admin_key: str, channels: dict[str, Channel], future_wall: datetime
) -> None:
    stamp = f"{future_wall:%Y-%m-%d %H:%M}"
    csv = f'channel,title,body,scheduled_at\nall-hands,"<img src=x onerror=alert(1)>",b,{stamp}\n'
    widget = BulkUpload(client, tz="Europe/Berlin")
    _upload(widget, csv.encode(), "posts.csv")
    widget.submit_button.click()

    assert "<img src=x" not in widget.table.value + widget.results.value
    assert "&lt;img src=x onerror=alert(1)&gt;" in widget.results.value
    state = json.dumps(dependency_state(widget), default=repr)
    assert "created" in state
    assert admin_key not in state
    assert admin_key not in repr(widget)


def test_a_plan_left_waiting_is_checked_again_on_submit(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    widget = BulkUpload(client, tz="Europe/Berlin")
    _upload(widget, _xlsx(_rows(future_wall)), "posts.xlsx")
    client.channels.update(channels["engineering"].id, is_archived=True)

    widget.submit_button.click()

    assert "Nothing more was sent" in widget.status.value
    assert "archived" in widget.status.value
    assert _titles(client, channels["all-hands"]) == []
    assert widget.submit_button.disabled  # the re-checked plan has an error now
    assert widget.last_result is None
    assert "archived" in widget.table.value  # the table shows the plan as re-checked


def test_offers_a_template_that_it_accepts(client: Client, channels: dict[str, Channel]) -> None:
    widget = BulkUpload(client, tz="Europe/Berlin")
    book = _download(widget.template.value, "ck-bulk-template-file")
    sheet = book["posts"]
    rows = list(sheet.values)
    assert list(rows[0][:4]) == ["channel", "title", "body", "scheduled_at"]
    for slug in {str(row[0]) for row in rows[1:]} - set(channels):
        client.channels.create(name=slug.replace("-", " ").title(), slug=slug)
    # The example rows are refused until someone writes their own title over them.
    for (title,) in sheet.iter_rows(min_row=2, min_col=2, max_col=2):
        assert str(title.value).startswith("[EXAMPLE] ")
        title.value = str(title.value).removeprefix("[EXAMPLE] ")
    buffer = io.BytesIO()
    book.save(buffer)

    _upload(widget, buffer.getvalue(), "posts-template.xlsx")

    assert widget.plan is not None
    assert len(widget.plan.rows) == len(rows) - 1 >= 1
    assert widget.plan.is_valid, widget.plan.errors


def test_a_calendar_file_is_not_posted_again(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    client.posts.create(
        channel_id=channels["all-hands"].id,
        title="Town hall",
        body="b",
        scheduled_at=future_wall.replace(tzinfo=ZoneInfo("Europe/Berlin")),
    )
    frame = calendar_frame(
        client, start=future_wall.date(), end=future_wall.date() + timedelta(days=1), tz="UTC"
    )
    frame.loc[0, "title"] = "Town hall, edited"
    widget = BulkUpload(client, tz="Europe/Berlin")
    _upload(widget, frame.to_csv(index=False).encode(), "calendar.csv")

    assert widget.plan is None and widget.submit_button.disabled
    assert "is a content calendar" in widget.status.value
    assert _titles(client, channels["all-hands"]) == ["Town hall"]
