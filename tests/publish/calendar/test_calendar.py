"""The calendar round trip against the local service: export, edit, dry run, submit, again."""

from __future__ import annotations

import csv
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest
from click.testing import CliRunner, Result
from openpyxl import load_workbook

from channelkit.cli import main
from channelkit.client import Client
from channelkit.client.models import Post
from channelkit.publish.calendar.records import CALENDAR_HEADERS
from channelkit.publish.calendar.round_trip import calendar_export, calendar_frame, load_calendar
from channelkit.service import LocalService

pytestmark = pytest.mark.calendar

BERLIN = ZoneInfo("Europe/Berlin")
TIME_HEADER = "scheduled_at (Europe/Berlin)"


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CHANNELKIT_API_KEY", "CHANNELKIT_BASE_URL", "CHANNELKIT_TZ"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def live(service: LocalService, admin_key: str) -> Iterator[SimpleNamespace]:
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        news = client.channels.create(name="Company News", slug="news")
        team = client.channels.create(name="Engineering", slug="eng")
        yield SimpleNamespace(
            client=client,
            news=news,
            team=team,
            args=["--base-url", service.base_url, "--api-key", admin_key],
        )


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(arg) for arg in args])


def _day(offset: int) -> datetime:
    today = datetime.now(BERLIN).replace(hour=9, minute=0, second=0, microsecond=0)
    return today + timedelta(days=offset)


def _ten_posts(live: SimpleNamespace) -> list[Post]:
    posts = []
    for number in range(10):
        channel = live.news if number % 2 == 0 else live.team
        posts.append(
            live.client.posts.create(
                channel_id=channel.id,
                title=f"Post {number}",
                body=f"Body {number}",
                tags=["plan"],
                scheduled_at=_day(3 + number),
            )
        )
    return posts


def _snapshot(client: Client, live: SimpleNamespace) -> dict[str, tuple[datetime | None, str, str]]:
    return {
        post.id: (post.updated_at, post.status, post.title)
        for channel in (live.news, live.team)
        for post in client.posts.list(channel_id=channel.id)
    }


def _rows(path: Path) -> tuple[list[str], list[list[Any]]]:
    sheet = load_workbook(path).active
    assert sheet is not None
    values = [list(row) for row in sheet.iter_rows(values_only=True)]
    return [str(cell) for cell in values[0]], values[1:]


def test_round_trip_edit_cancel_add_and_a_conflict(tmp_path: Path, live: SimpleNamespace) -> None:
    posts = _ten_posts(live)
    cal = tmp_path / "cal.xlsx"
    start, end = f"{_day(0):%Y-%m-%d}", f"{_day(20):%Y-%m-%d}"
    exported = run(
        "calendar", "export", cal, "--from", start, "--to", end, "--tz", "Europe/Berlin", *live.args
    )
    assert exported.exit_code == 0, exported.output

    headers, rows = _rows(cal)
    # the declared columns, the time column's header naming its zone
    assert headers == [TIME_HEADER if h == "scheduled_at" else h for h in CALENDAR_HEADERS]
    assert headers[:8] == [
        "id", "updated_at", "channel", "title", "body", "tags", "priority", TIME_HEADER,
    ]  # fmt: skip
    assert [row[0] for row in rows] == [post.id for post in posts]
    first = dict(zip(headers, rows[0], strict=True))
    assert [first[h] for h in headers[2:8]] == [
        "news",
        "Post 0",
        "Body 0",
        "plan",
        "normal",
        f"{_day(3):%Y-%m-%d} 09:00",
    ]
    assert first["cover_image_url"] is None  # no cover image
    assert first["status"] == "scheduled"

    # The comms team edits the sheet ...
    column = {name: index + 1 for index, name in enumerate(headers)}
    workbook = load_workbook(cal)
    sheet = workbook.active
    assert sheet is not None
    sheet.cell(2, column["title"], "Post 0, retitled")
    sheet.cell(3, column[TIME_HEADER], f"{_day(25):%Y-%m-%d} 14:30")
    sheet.cell(4, column["tags"], "plan, launch")
    sheet.cell(5, column["action"], "cancel")
    for offset, title in ((30, "New one"), (31, "New two")):
        sheet.append(
            [
                None,
                None,
                "eng",
                title,
                "Fresh body",
                "new",
                "high",
                f"{_day(offset):%Y-%m-%d} 10:00",
            ]
        )
    workbook.save(cal)
    # ... while colleagues change two posts on the service: one the sheet edits, one not.
    time.sleep(1.1)  # updated_at has whole seconds
    live.client.posts.update(posts[2].id, body="Edited on the service")
    live.client.posts.update(posts[5].id, title="Post 5, fixed on the service")

    dry = run("schedule", cal, "--tz", "Europe/Berlin", *live.args)
    assert dry.exit_code == 1, dry.output  # a conflict needs attention
    lines = dry.output.splitlines()
    assert (
        f"{cal.name}: 12 rows: 2 create, 1 update, 1 reschedule, 1 cancel, 0 publish-now, "
        "6 unchanged, 1 conflict, 0 error"
    ) in lines
    # A changed text shows the words that changed, never two truncated strings.
    assert (
        'row 2 ("Post 0, retitled", Company News): update: title: Post [-0-] {+0, retitled+}'
        in (lines)
    )
    rescheduled = next(line for line in lines if line.startswith("row 3 "))
    assert f"reschedule: scheduled_at: {_day(4):%Y-%m-%d} 09:00 Europe/Berlin → " in rescheduled
    conflict = next(line for line in lines if line.startswith("row 4 "))
    assert ": conflict: " in conflict and "tags: 'plan' → 'plan, launch'" in conflict
    assert "changed on the service" in conflict
    assert 'row 5 ("Post 3", Engineering): cancel' in lines
    assert any(line.startswith("row 7 ") and "unchanged" in line for line in lines)
    before = _snapshot(live.client, live)
    assert len(before) == 10

    results = tmp_path / "cal-after.xlsx"
    applied = run(
        "schedule", cal, "--tz", "Europe/Berlin", "--submit", "--results", results, *live.args
    )
    assert applied.exit_code == 1, applied.output  # the conflict is reported
    summary = "2 created, 1 updated, 1 rescheduled, 1 cancelled, 6 unchanged, 1 conflict"
    assert f"{cal.name}: {summary}" in applied.output.splitlines()
    client = live.client
    assert client.posts.retrieve(posts[0].id).title == "Post 0, retitled"
    assert client.posts.retrieve(posts[1].id).scheduled_at == _day(25).replace(hour=14, minute=30)
    kept = client.posts.retrieve(posts[2].id)
    assert (kept.body, kept.tags) == ("Edited on the service", ["plan"])  # nothing overwritten
    assert client.posts.retrieve(posts[3].id).status == "draft"
    assert client.posts.retrieve(posts[5].id).title == "Post 5, fixed on the service"
    after = _snapshot(client, live)
    assert len(after) == 12
    changed = {post_id for post_id in before if before[post_id] != after[post_id]}
    assert changed == {posts[0].id, posts[1].id, posts[3].id}
    new_titles = sorted(str(value[2]) for post_id, value in after.items() if post_id not in before)
    assert new_titles == ["New one", "New two"]

    # Rerunning the same file writes nothing.
    time.sleep(1.1)
    again = run("schedule", cal, "--tz", "Europe/Berlin", "--submit", *live.args)
    assert "created" not in again.output and "updated" not in again.output, again.output
    assert _snapshot(client, live) == after

    # The results file carries the new ids and updated_at: edit it and submit again.
    headers, rows = _rows(results)
    assert headers[-2:] == ["result", "error"]
    by_title = {row[column["title"] - 1]: row for row in rows}
    assert by_title["New one"][0] in after
    retitled_at = after[posts[0].id][0]
    assert retitled_at is not None
    assert by_title["Post 0, retitled"][1] == retitled_at.strftime("%Y-%m-%dT%H:%M:%SZ")
    workbook = load_workbook(results)
    sheet = workbook.active
    assert sheet is not None
    target = next(index for index, row in enumerate(rows, start=2) if row[0] == posts[0].id)
    sheet.cell(target, column["title"], "Post 0, third title")
    workbook.save(results)
    third = run("schedule", results, "--tz", "Europe/Berlin", "--submit", *live.args)
    assert "1 updated" in third.output, third.output
    assert client.posts.retrieve(posts[0].id).title == "Post 0, third title"


def test_a_post_changed_only_on_the_service_is_unchanged(
    live: SimpleNamespace, tmp_path: Path
) -> None:
    posts = _ten_posts(live)
    frame = calendar_frame(
        live.client, start=_day(0).date(), end=_day(20).date(), tz="Europe/Berlin", channel="news"
    )
    assert len(frame) == 5 and set(frame["channel"]) == {"news"}
    path = tmp_path / "cal.csv"
    frame.to_csv(path, index=False)
    time.sleep(1.1)
    live.client.posts.update(posts[0].id, title="Retitled on the service", scheduled_at=_day(40))

    calendar = load_calendar(path).check_against(live.client)

    assert calendar.counts() == {"unchanged": 5}
    assert "changed only on the service" in calendar.rows[0].message
    result = calendar.submit(live.client)
    assert result.counts() == {"unchanged": 5}
    assert live.client.posts.retrieve(posts[0].id).title == "Retitled on the service"
    fresh = result.frame()
    assert fresh.loc[0, "title"] == "Retitled on the service"  # the fresh calendar shows it


def test_publish_now_needs_yes_and_bad_cells_are_row_errors(
    live: SimpleNamespace, tmp_path: Path
) -> None:
    posts = _ten_posts(live)
    frame = calendar_frame(live.client, start=_day(0).date(), end=_day(5).date(), tz="UTC")
    assert list(frame["id"]) == [posts[0].id, posts[1].id]
    frame.loc[0, "action"] = "publish now"
    frame.loc[1, "action"] = "delete"
    path = tmp_path / "cal.csv"
    frame.to_csv(path, index=False)

    refused = run("schedule", path, *live.args)
    assert refused.exit_code == 1
    assert (
        "publish-now publishes at once to every reader of the channel: confirm with --yes"
        in refused.output
    )
    assert "action: 'delete' is not an action; use cancel or publish-now" in refused.output

    frame.loc[1, "action"] = None
    frame.to_csv(path, index=False)
    done = run("schedule", path, "--yes", "--submit", *live.args)
    assert done.exit_code == 0, done.output
    assert live.client.posts.retrieve(posts[0].id).status == "published"
    assert live.client.posts.retrieve(posts[1].id).status == "scheduled"


def test_export_refuses_bad_options(live: SimpleNamespace, tmp_path: Path) -> None:
    base: list[str | Path] = ["calendar", "export", tmp_path / "cal.xlsx", "--from", "2026-12-01"]
    bad_order = run(*base, "--to", "2026-11-01", *live.args)
    assert bad_order.exit_code == 2
    assert "--to: 2026-11-01 00:00 is not after the start 2026-12-01 00:00" in bad_order.output
    unknown = run(*base, "--to", "2027-01-01", "--channel", "newz", *live.args)
    assert unknown.exit_code == 2 and "no channel 'newz'" in unknown.output
    wrong_type = run(
        "calendar",
        "export",
        tmp_path / "cal.pdf",
        "--from",
        "2026-12-01",
        "--to",
        "2027-01-01",
        *live.args,
    )
    assert wrong_type.exit_code == 2 and "write the calendar as .xlsx or .csv" in wrong_type.output
    assert not any(tmp_path.iterdir())


class _ChangeBeforePatch(httpx.HTTPTransport):
    """Real HTTP; just before the first PATCH goes out, a colleague edits the same post."""

    def __init__(self, colleague: Callable[[], None]) -> None:
        super().__init__()
        self.colleague: Callable[[], None] | None = colleague

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "PATCH" and self.colleague is not None:
            self.colleague()
            self.colleague = None
        return super().handle_request(request)


def test_a_change_between_the_re_read_and_the_patch_is_refused_by_if_match(
    service: LocalService, admin_key: str, live: SimpleNamespace, tmp_path: Path
) -> None:
    post = _ten_posts(live)[0]
    frame = calendar_frame(live.client, start=_day(0).date(), end=_day(4).date(), tz="UTC")
    frame.loc[0, "title"] = "Mine"
    path = tmp_path / "cal.csv"
    frame.to_csv(path, index=False)

    def colleague() -> None:
        live.client.posts.update(post.id, title="Theirs")

    racing = _ChangeBeforePatch(colleague)
    with Client(base_url=service.base_url, api_key=admin_key, transport=racing) as client:
        result = load_calendar(path).submit(client)

    assert result.counts() == {"conflict": 1}
    assert "changed on the service while this file was applied" in result.rows[0].message
    assert live.client.posts.retrieve(post.id).title == "Theirs"


def test_formula_like_titles_stay_text_and_round_trip(
    live: SimpleNamespace, tmp_path: Path
) -> None:
    for title in ('=HYPERLINK("http://x")', "-20% in the canteen", "@all read this"):
        live.client.posts.create(
            channel_id=live.news.id, title=title, body="b", scheduled_at=_day(3)
        )
    start, end = _day(0).date(), _day(5).date()
    for name in ("cal.csv", "cal.xlsx"):
        path = calendar_export(
            tmp_path / name, start=start, end=end, tz="Europe/Berlin", client=live.client
        )
        if name.endswith(".csv"):
            text = path.read_text(encoding="utf-8")
            assert "'=HYPERLINK" in text and "'-20% in the canteen" in text  # never a formula
        else:
            sheet = load_workbook(path).active
            assert sheet is not None
            cells = [cell for row in sheet.iter_rows() for cell in row if cell.value]
            assert all(cell.data_type != "f" for cell in cells)
        calendar = load_calendar(path).check_against(live.client)
        assert calendar.counts() == {"unchanged": 3}, calendar.preview()


def test_slots_fill_new_calendar_rows_only(live: SimpleNamespace, tmp_path: Path) -> None:
    posts = _ten_posts(live)
    path = calendar_export(
        tmp_path / "cal.csv", start=_day(0).date(), end=_day(5).date(), tz="Europe/Berlin",
        client=live.client,
    )  # fmt: skip
    with path.open("a", encoding="utf-8") as handle:
        handle.write(",,news,Filled in,Body,,normal,,,,\n")

    dry = run("schedule", path, "--slots", "daily 07:45", *live.args)

    assert dry.exit_code == 0, dry.output
    filled = [line for line in dry.output.splitlines() if "scheduled_at filled" in line]
    assert len(filled) == 1 and filled[0].startswith("row 4 (news)") and "07:45" in filled[0]
    assert "Europe/Berlin" in filled[0]  # the zone named in the file's time column
    assert f"{path.name}: 3 rows: 1 create" in dry.output
    assert [row[0] for row in _csv_ids(path)] == [posts[0].id, posts[1].id, ""]


def _csv_ids(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [row[:1] for row in list(csv.reader(handle))[1:]]


def test_a_calendar_written_both_day_and_month_first_refuses_its_dates(
    live: SimpleNamespace, tmp_path: Path
) -> None:
    """A calendar is a posts file: its A/B/YYYY dates follow the same rule (docs/metrics.md
    "Day/month order"), on rows of existing posts too."""
    _ten_posts(live)
    frame = calendar_frame(live.client, start=_day(0).date(), end=_day(20).date(), tz="UTC")
    column = next(name for name in frame.columns if name.startswith("scheduled_at"))
    path = tmp_path / "cal.csv"
    frame[column] = frame[column].astype(object)
    frame.loc[0, column] = "14/02/2031 09:00"  # day first only
    frame.loc[1, column] = "02/14/2031 09:00"  # month first only
    frame.loc[2, column] = "03/04/2031 09:00"  # both
    frame.to_csv(path, index=False)
    both = load_calendar(path, tz="UTC").check_against(live.client)
    for row in both.rows[:3]:
        assert row.kind == "error", row.message
        assert "day first (row 2: 14/02/2031 09:00) and month first (row 3:" in row.message
    frame.loc[1, column] = "02/03/2031 09:00"  # one row day first among ambiguous ones
    frame.to_csv(path, index=False)
    one = load_calendar(path, tz="UTC").check_against(live.client)
    assert one.rows[0].kind != "error", one.rows[0].message
    for row in one.rows[1:3]:
        assert row.kind == "error"
        assert "is ambiguous" in row.message and "only row 2 writes 14/02/2031" in row.message
