"""Exactly once with fractions of a second: a rerun by another key, after the service's
idempotency window has passed, finds every row already scheduled and creates nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from channelkit.cli import main
from channelkit.client import Client
from channelkit.client.models import Post
from channelkit.publish import load_spreadsheet
from channelkit.publish.post.duplicates import likely_duplicates
from channelkit.publish.post.row_types import PlanRow
from channelkit.publish.post.validation import PostRequest
from channelkit.service import LocalService
from publish.conftest import make_csv, make_xlsx

HEADER = ["channel", "title", "body", "scheduled_at"]


def _start() -> datetime:
    # Three days ahead: still in the future after the service clock moves 25 hours.
    return (datetime.now(UTC) + timedelta(days=3)).replace(tzinfo=None, minute=0, second=0)


@contextmanager
def _sheet_sent(
    path: Path, rows: list[list[str]]
) -> Iterator[tuple[LocalService, str, Client, list[str]]]:
    """`rows` written to `path` and sent once by ann to a new service's All hands channel:
    the service, her key, a client and the created posts' ids."""
    path.write_bytes(make_csv([HEADER, *rows]))
    with LocalService(admin=True) as service:
        key = service.create_key(user="ann", team="comms", plan="enterprise")
        with Client(service.base_url, key) as client:
            client.channels.create(name="All hands")
            sent = load_spreadsheet(path, tz="UTC").submit(client, progress=False)
            assert sent.counts() == {"created": len(rows)}
            yield service, key, client, [str(row.post_id) for row in sent.rows]


def _as_an_earlier_version_sent(client: Client, ids: list[str]) -> None:
    """The posts without their origin tags, as versions before them sent posts (or another
    tool did): only the duplicate guard can tell those are the rows' posts."""
    for post_id in ids:
        client.posts.update(post_id, tags=[])


def _again_from_a_fresh_ledger(
    service: LocalService, key: str, path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Result, Result]:
    """The same sheet 25 hours later (past the service's idempotency window) from another
    machine's ledger: its dry run, then its submit."""
    service.advance_clock(25 * 3600)
    monkeypatch.setenv("CHANNELKIT_LEDGER", str(path.parent / "laptop.sqlite3"))
    env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_TZ": "UTC"}
    dry = CliRunner().invoke(main, ["schedule", str(path), "--api-key", key], env=env)
    again = CliRunner().invoke(main, ["schedule", str(path), "--submit", "--api-key", key], env=env)
    return dry, again


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
@pytest.mark.calendar
def test_rerun_by_another_key_after_25_hours_creates_nothing(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = _start()
    if kind == "csv":
        times: list[object] = [
            f"{start + timedelta(hours=n):%Y-%m-%d %H:%M}:30.{n + 1}" for n in range(6)
        ]
    else:  # Excel datetimes with milliseconds, as pasted =NOW() values give
        times = [start + timedelta(hours=n, seconds=30, milliseconds=137 * n + 1) for n in range(6)]
    rows = [["all-hands", f"Post {n}", f"Body {n}", when] for n, when in enumerate(times)]
    build = make_csv if kind == "csv" else make_xlsx
    data = build([HEADER, *rows])
    with LocalService(admin=True) as service:
        first = service.create_key(user="ann", team="comms", plan="enterprise")
        second = service.create_key(user="bob", team="comms", plan="enterprise")
        with Client(service.base_url, first) as client:
            client.channels.create(name="All hands")
            plan = load_spreadsheet(data, filename=f"posts.{kind}", tz="UTC")
            assert plan.is_valid, plan.errors
            assert all(
                row.request and row.request.scheduled_at.microsecond == 0 for row in plan.rows
            )  # type: ignore[union-attr]
            done = plan.submit(client, progress=False)
            assert done.counts() == {"created": 6}
        service.advance_clock(25 * 3600)  # past the 24-hour idempotency window
        with Client(service.base_url, second) as client:
            again = load_spreadsheet(data, filename=f"posts.{kind}", tz="UTC").submit(
                client, progress=False
            )
            assert again.counts() == {"already_created": 6} and not again.duplicates
            # Another machine (its own, empty ledger) finds them by their rows' origin tags.
            monkeypatch.setenv("CHANNELKIT_LEDGER", str(tmp_path / "elsewhere.sqlite3"))
            elsewhere = load_spreadsheet(data, filename=f"posts.{kind}", tz="UTC").submit(
                client, progress=False
            )
            assert elsewhere.counts() == {"already_created": 6} and not elsewhere.duplicates
            posts = list(client.posts.list())
        assert len(posts) == 6 and {p.status for p in posts} == {"scheduled"}
        assert sorted(p.id for p in posts) == sorted(r.post_id for r in again.rows)  # type: ignore[misc]
        assert sorted(p.id for p in posts) == sorted(r.post_id for r in elsewhere.rows)  # type: ignore[misc]


@pytest.mark.calendar
def test_rows_differing_below_a_second_are_one_row_error_not_a_409() -> None:
    start = _start()
    rows = [
        ["all-hands", "Town hall", "Body", f"{start:%Y-%m-%d %H:%M}:30.1"],
        ["all-hands", "Town hall", "Body", f"{start:%Y-%m-%d %H:%M}:30.9"],
    ]
    plan = load_spreadsheet(make_csv([HEADER, *rows]), filename="posts.csv", tz="UTC")
    assert [row.status for row in plan.rows] == ["ok", "error"]
    assert (
        plan.rows[1].message == "title: same channel, title and time as row 2; remove one of them"
    )
    assert (
        plan.rows[0].request.idempotency_key()
        == load_spreadsheet(  # type: ignore[union-attr]
            make_csv([HEADER, [*rows[0][:3], f"{start:%Y-%m-%d %H:%M}:30"]]),
            filename="posts.csv",
            tz="UTC",
        )
        .rows[0]
        .request.idempotency_key()
    )  # type: ignore[union-attr]


@pytest.mark.calendar
def test_a_second_ledger_after_calendar_edits_and_25_hours_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sheet sent again a day later from another machine, after two posts were
    retitled and one moved by a day: each row's body is still on the service nearby, so
    every row is refused as the same post, whatever its title (issue 30.3)."""
    start = _start()
    bodies = [f"Post {n}: the canteen menu for the holidays, soup and salad all week."
              for n in range(3)]  # fmt: skip
    rows = [["all-hands", f"Post {n}", bodies[n], f"{start + timedelta(hours=n):%Y-%m-%d %H:%M}"]
            for n in range(3)]  # fmt: skip
    path = tmp_path / "posts.csv"
    with _sheet_sent(path, rows) as (service, key, client, ids):
        _as_an_earlier_version_sent(client, ids)
        client.posts.update(ids[0], title="Post 0 (new title)")
        client.posts.update(ids[1], title="Post 1, retitled")
        moved = client.posts.retrieve(ids[2]).scheduled_at
        assert moved is not None
        client.posts.update(ids[2], scheduled_at=moved + timedelta(days=1))
        dry, again = _again_from_a_fresh_ledger(service, key, path, monkeypatch)
        assert dry.output.count("would be refused: likely already on the service") == 3
        # the dry run counts what --submit sends, not the rows it refuses (issue 45.8)
        assert "3 rows: 0 ok, 3 refused as likely duplicates, 0 with errors" in dry.output
        assert "add --submit to schedule 0 posts" in dry.output
        assert again.exit_code == 1, again.output
        assert "posts.csv: 0 created" in again.output and "3 not sent" in again.output
        with Client(service.base_url, key) as client:
            assert len(list(client.posts.list())) == 3


@pytest.mark.calendar
def test_a_far_future_row_is_a_one_line_row_error(tmp_path: Path) -> None:
    path = tmp_path / "posts.csv"
    path.write_bytes(make_csv([HEADER, ["all-hands", "Town hall", "Body", "9999-12-30 10:00"]]))
    with LocalService(admin=True) as service:
        key = service.create_key(user="ann", team="comms", plan="enterprise")
        with Client(service.base_url, key) as client:
            client.channels.create(name="All hands")
        env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_TZ": "UTC"}
        for extra in ([], ["--submit"]):
            result = CliRunner().invoke(main, ["schedule", str(path), *extra, "--api-key", key],
                                        env=env)  # fmt: skip
            assert result.exit_code == 1 and "Traceback" not in result.output, result.output
            errors = [line for line in result.output.splitlines() if "9999-12-30" in line]
            assert errors == [
                'row 2 ("Town hall", all-hands): scheduled_at: 9999-12-30 10:00 UTC is more '
                "than 10 years ahead; check the year [scheduled_at = '9999-12-30 10:00']"
            ], result.output


@pytest.mark.calendar
def test_retitled_short_posts_from_a_fresh_ledger_after_25_hours_create_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 36.3: a sheet scheduled, three titles edited in the service, the same sheet
    from a fresh ledger 25 hours later. Two of the bodies are short and shared ("Sign up by
    Friday."): each row's post is still at its channel and minute, so every row is refused,
    and the dry run says so for exactly those rows."""
    start = _start()
    short = "Sign up by Friday."
    rows = [
        ["all-hands", "Winter party sign-up", short, f"{start:%Y-%m-%d %H:%M}"],
        ["all-hands", "Ask me anything", short, f"{start + timedelta(hours=2):%Y-%m-%d %H:%M}"],
        ["all-hands", "Canteen", "Soup.", f"{start + timedelta(hours=4):%Y-%m-%d %H:%M}"],
        ["all-hands", "Town hall", "Agenda below.", f"{start + timedelta(days=1):%Y-%m-%d %H:%M}"],
    ]
    path = tmp_path / "posts.csv"
    with _sheet_sent(path, rows) as (service, key, client, ids):
        _as_an_earlier_version_sent(client, ids)
        retitled = ("Winter party!", "AMA with Ann", "Lunch")
        for post_id, title in zip(ids, retitled, strict=False):
            client.posts.update(post_id, title=title)
        # a post nobody sent from this sheet, with one of its titles, a day away: a warning
        client.posts.create(
            channel_id=client.posts.retrieve(ids[0]).channel_id,
            title="Town hall", body="Another agenda.",
            scheduled_at=start.replace(tzinfo=UTC) + timedelta(days=2),
        )  # fmt: skip
        dry, again = _again_from_a_fresh_ledger(service, key, path, monkeypatch)
        refused = [line for line in dry.output.splitlines() if "would be refused" in line]
        assert [line.split(":")[1].strip() for line in refused] == ["row 2", "row 3", "row 4"]
        assert "row 5: would be refused" not in dry.output  # exists: same title, body, time
        assert again.exit_code == 1, again.output
        assert "posts.csv: 0 created" in again.output, again.output
        with Client(service.base_url, key) as client:
            assert len(list(client.posts.list())) == 5


AT = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("title", "body", "status", "minutes", "strong"),
    [
        ("Retitled", "Sign up by Friday.", "scheduled", 0, True),  # short body, same minute
        ("Retitled", "Sign up by Friday.", "published", 10, True),  # within the few minutes
        ("Retitled", "Sign up by Friday.", "scheduled", 11, False),  # further: only a warning
        ("Winter party", "Something else.", "scheduled", -9, True),  # title, any body
        ("Winter party", "Something else.", "scheduled", 60, False),  # a title repeats
        ("Retitled", "Sign up by Friday.", "draft", 0, False),  # a draft goes nowhere
    ],
)
def test_a_short_title_or_body_match_within_minutes_is_refused(
    title: str, body: str, status: str, minutes: int, strong: bool
) -> None:
    request = PostRequest("chan_1", "Winter party", "Sign up by Friday.", "normal", (), AT, None)
    when = AT + timedelta(minutes=minutes)
    post = Post(
        id="post_1", channel_id="chan_1", title=title, body=body, status=status,
        scheduled_at=when if status != "published" else None,
        published_at=when if status == "published" else None, created_at=AT - timedelta(days=1),
    )  # fmt: skip
    found = likely_duplicates([PlanRow(2, request)], {"chan_1": [post]}, days=7)
    assert found[2].strong is strong
