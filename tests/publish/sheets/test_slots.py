"""Posting slots: parsing, filling blank times, best hours, and posts crowding a channel."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, time, timedelta
from pathlib import Path
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner, Result

from channelkit._constants import PUBLISH_BEST_SLOTS
from channelkit.cli import main
from channelkit.client import Client
from channelkit.errors import InvalidParameterError
from channelkit.publish.post.times import parse_gap
from channelkit.publish.sheets.best_times import BestTimes
from channelkit.publish.sheets.slots import (
    PlacedPost,
    next_free_slot,
    parse_slots,
    too_close,
)
from channelkit.service import LocalService
from fixtures import equal_rates

BERLIN = ZoneInfo("Europe/Berlin")
H = ["channel", "title", "body", "scheduled_at"]


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CHANNELKIT_API_KEY", "CHANNELKIT_BASE_URL", "CHANNELKIT_TZ"):
        monkeypatch.delenv(name, raising=False)


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(arg) for arg in args])


def test_parse_slots_and_gaps() -> None:
    assert parse_slots("mon-fri 09:00,13:30") == tuple(
        (day, wall) for day in range(5) for wall in (time(9), time(13, 30))
    )
    assert parse_slots("sat,sun 11:00; fri-mon 08:15") == (
        (0, time(8, 15)), (4, time(8, 15)), (5, time(8, 15)), (5, time(11)), (6, time(8, 15)),
        (6, time(11)),
    )  # fmt: skip
    assert len(parse_slots("10:00")) == 7  # no days: every day
    for bad, message in (
        ("mon-fry 09:00", "'fry' is not a weekday"),
        ("mon 9h", "'9h' is not a time of day"),
        ("mon 24:00", "'24:00' is not a time of day"),
        (" ; ", "names no slot"),
    ):
        with pytest.raises(InvalidParameterError, match=message):
            parse_slots(bad)
    assert parse_gap("2h") == timedelta(hours=2)
    assert parse_gap("1h30m") == timedelta(minutes=90)
    assert parse_gap("45m") == timedelta(minutes=45)
    with pytest.raises(InvalidParameterError, match="'soon' is not a duration"):
        parse_gap("soon")


def test_next_free_slot_skips_taken_times_and_daylight_saving_gaps() -> None:
    monday = datetime(2026, 12, 7, 8, 0, tzinfo=BERLIN)
    rule = parse_slots("mon-fri 09:00,13:30")
    first = next_free_slot(rule, BERLIN, after=monday, taken=[], min_gap=timedelta(0))
    assert first == datetime(2026, 12, 7, 9, 0, tzinfo=BERLIN)
    taken = [first, datetime(2026, 12, 7, 12, 0, tzinfo=BERLIN)]
    second = next_free_slot(rule, BERLIN, after=monday, taken=taken, min_gap=timedelta(0))
    assert second == datetime(2026, 12, 7, 13, 30, tzinfo=BERLIN)
    spaced = next_free_slot(rule, BERLIN, after=monday, taken=taken, min_gap=timedelta(hours=2))
    assert spaced == datetime(2026, 12, 8, 9, 0, tzinfo=BERLIN)  # 13:30 is 1h30 after 12:00
    # 02:30 does not exist in Berlin on 2027-03-28: the next day's slot is used.
    night = next_free_slot(
        parse_slots("02:30"),
        BERLIN,
        after=datetime(2027, 3, 28, 0, 0, tzinfo=BERLIN),
        taken=[],
        min_gap=timedelta(0),
    )
    assert night == datetime(2027, 3, 29, 2, 30, tzinfo=BERLIN)


def test_too_close_pairs_need_a_row_of_the_file() -> None:
    at = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
    placed = [
        PlacedPost("news", at, "post_a", None),
        PlacedPost("news", at + timedelta(minutes=30), "post_b", None),  # both on the service
        PlacedPost("news", at + timedelta(hours=5), "row 2", 2),
        PlacedPost("news", at + timedelta(hours=6), "row 3", 3),
        PlacedPost("eng", at + timedelta(hours=5, minutes=10), "row 4", 4),  # another channel
    ]
    pairs = too_close(placed, timedelta(hours=2))
    assert [(a.label, b.label) for a, b in pairs] == [("row 2", "row 3")]


def test_best_hours_from_the_channel_or_the_organisation(small_warehouse: Path) -> None:
    best = BestTimes(small_warehouse, tz=BERLIN, count=2, min_posts=3)
    # Engineering's 3 posts old enough to judge tell no hour apart: its usual hours, the
    # weekday-hours it published in most (one post each: the earliest first).
    assert best.slots("chan_eng") == ((0, time(0)), (0, time(9)))
    assert best.source("chan_eng") == (
        "the channel's own 3 posts: no reliable difference, so posts are spread "
        "over the usual hours (the weekday-hours with the most posts)"
    )
    # Asked for 4 posts, Company News (3 such posts) gets the organisation's hours: Monday
    # 00:00 had two posts, then the earliest hour with one.
    fewer = BestTimes(small_warehouse, tz=BERLIN, count=2, min_posts=4)
    assert fewer.slots("chan_news") == fewer.slots(None) == ((0, time(0)), (0, time(9)))
    assert fewer.source("chan_news") == (
        "the organisation's 6 posts: no reliable difference, so posts are spread "
        "over the usual hours (the weekday-hours with the most posts) (the channel "
        "has 3 posts old enough to judge, fewer than 4)"
    )


def test_best_hours_are_the_reliably_better_ones(tmp_path: Path) -> None:
    planted = equal_rates.build(tmp_path / "planted.duckdb", equal_rates.posts(1, planted=1.23))
    best = BestTimes(planted, tz=ZoneInfo("UTC"))
    slots = best.slots(None)
    assert slots and all(hour == time(9) for _, hour in slots)
    assert "some hours reliably better: " in best.source(None)
    assert "reliably read more than the rest" in best.source(None)
    flat = equal_rates.build(tmp_path / "flat.duckdb", equal_rates.posts(1))
    usual = BestTimes(flat, tz=ZoneInfo("UTC"))
    assert "no reliable difference, so posts are spread" in usual.source(None)
    assert len(usual.slots(None)) == PUBLISH_BEST_SLOTS


@pytest.fixture
def live(service: LocalService, admin_key: str) -> Iterator[SimpleNamespace]:
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        news = client.channels.create(name="Company News", slug="news")
        yield SimpleNamespace(
            client=client,
            news=news,
            args=["--base-url", service.base_url, "--api-key", admin_key],
        )


def _slots_after(moment: datetime, count: int, skip: set[datetime]) -> list[datetime]:
    """The next `count` mon-fri 09:00/13:30 Berlin slots after `moment`, by brute force."""
    found: list[datetime] = []
    day = moment.astimezone(BERLIN).date()
    while len(found) < count:
        if day.weekday() < 5:
            for wall in (time(9), time(13, 30)):
                slot = datetime.combine(day, wall, tzinfo=BERLIN)
                if slot > moment and slot not in skip and len(found) < count:
                    found.append(slot)
        day += timedelta(days=1)
    return found


@pytest.mark.calendar
def test_slots_fill_blank_times_with_distinct_free_future_slots(
    tmp_path: Path, sheets: SimpleNamespace, live: SimpleNamespace
) -> None:
    now = datetime.now(UTC)
    expected = _slots_after(now + timedelta(minutes=6), 4, set())
    on_service = live.client.posts.create(
        channel_id=live.news.id, title="Already there", body="b", scheduled_at=expected[1]
    )
    in_file = expected[2].astimezone(BERLIN)
    path = tmp_path / "posts.csv"
    path.write_bytes(
        sheets.csv(
            [
                H,
                ["news", "One", "Body", ""],
                ["news", "Fixed", "Body", f"{in_file:%Y-%m-%d %H:%M}"],
                ["news", "Two", "Body", ""],
                ["news", "Three", "Body", ""],
            ]
        )
    )

    result = run(
        "schedule", path, "--tz", "Europe/Berlin", "--slots", "mon-fri 09:00,13:30",
        "--submit", *live.args,
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    wanted = [expected[0], expected[3], *_slots_after(expected[3], 1, set())]
    posts = {
        post.title: post.scheduled_at
        for post in live.client.posts.list(channel_id=live.news.id)
        if post.id != on_service.id
    }
    assert [posts["One"], posts["Two"], posts["Three"]] == wanted
    assert len(set(posts.values()) | {expected[1]}) == 5  # every post at its own time
    assert all(moment is not None and moment > now for moment in posts.values())
    first = wanted[0].astimezone(BERLIN)
    assert f"row 2 (news): scheduled_at filled with {first:%a %Y-%m-%d %H:%M} Europe/Berlin" in (
        result.output
    )


@pytest.mark.calendar
def test_min_gap_warns_about_posts_on_the_service_and_strict_refuses(
    tmp_path: Path, sheets: SimpleNamespace, live: SimpleNamespace
) -> None:
    base = (datetime.now(BERLIN) + timedelta(days=3)).replace(
        hour=9, minute=0, second=0, microsecond=0
    )
    live.client.posts.create(
        channel_id=live.news.id, title="On the service", body="b", scheduled_at=base
    )
    path = tmp_path / "posts.csv"
    close = base + timedelta(minutes=90)
    far = base + timedelta(hours=6)
    path.write_bytes(
        sheets.csv(
            [H, ["news", "Close", "Body", f"{close:%Y-%m-%d %H:%M}"],
             ["news", "Far", "Body", f"{far:%Y-%m-%d %H:%M}"]]
        )
    )  # fmt: skip

    warned = run("schedule", path, "--tz", "Europe/Berlin", "--min-gap", "2h", *live.args)
    assert warned.exit_code == 0, warned.output
    warnings = [line for line in warned.output.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1
    assert "post " in warnings[0] and '("On the service", on the service)' in warnings[0]
    assert 'row 2 ("Close", Company News) are 1h 30m apart' in warnings[0]
    assert "--min-gap is 2h 00m" in warnings[0]

    strict = run(
        "schedule", path, "--tz", "Europe/Berlin", "--min-gap", "2h", "--strict", "--submit",
        *live.args,
    )  # fmt: skip
    assert strict.exit_code == 1
    assert "error: " in strict.output and "nothing was sent: posts too close" in strict.output
    assert [p.title for p in live.client.posts.list(channel_id=live.news.id)] == ["On the service"]

    bad = run("schedule", path, "--min-gap", "soon", *live.args)
    assert bad.exit_code == 2 and "'soon' is not a duration" in bad.output


@pytest.mark.calendar
def test_slots_best_from_the_command_line_falls_back_to_the_organisation(
    tmp_path: Path, sheets: SimpleNamespace, live: SimpleNamespace, small_warehouse: Path
) -> None:
    path = tmp_path / "posts.csv"
    path.write_bytes(sheets.csv([H, ["news", "One", "Body", ""], ["news", "Two", "Body", ""]]))

    result = run(
        "schedule", path, "--tz", "Europe/Berlin", "--slots", "best", "--db", small_warehouse,
        *live.args,
    )  # fmt: skip

    assert result.exit_code == 0, result.output
    # This channel is not in the warehouse yet: the organisation's best hours are used.
    assert (
        "best hours for Company News: the organisation's 6 posts: no reliable difference, "
        "so posts are spread over the usual hours (the weekday-hours with the "
        "most posts) (the channel has 0 posts old enough to judge, fewer than 20)"
    ) in result.output
    # chan_eng has 5 posts, fewer than 20: its slots are the organisation's too.
    organisation = set(BestTimes(small_warehouse, tz=BERLIN).slots("chan_eng"))
    filled = [line for line in result.output.splitlines() if "scheduled_at filled" in line]
    moments = [
        datetime.strptime(line.split("filled with ")[1][4:20], "%Y-%m-%d %H:%M") for line in filled
    ]
    assert len(set(moments)) == 2
    assert all((moment.weekday(), moment.time()) in organisation for moment in moments)
    without_db = run("schedule", path, "--slots", "best", *live.args)
    assert without_db.exit_code == 2 and "--slots best needs --db" in without_db.output
