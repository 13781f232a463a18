"""Publishing on clock-change days (issue 35), and flags at their far ends.

Europe/Berlin skips 02:00-03:00 on Sunday 28 March 2027 and repeats it on Sunday
31 October 2027. A post for a wall time that does not exist, or exists twice, is refused
with one sentence naming the two choices, by the one time parser (`publish/post/times.py`)
every entry point goes through; `release --shift 1d` moves a post to the same local time
a day later, across the change. The process (and the in-process service) travels to those
days with time-machine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
import time_machine
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from channelkit.cli import main
from channelkit.client import Client
from channelkit.errors import InvalidParameterError, TimeError
from channelkit.publish.calendar.records import wall_text
from channelkit.publish.post.times import combine_date_time, localize, parse_when, shifted
from channelkit.publish.post.window import window_bounds
from channelkit.reports.upcoming import UpcomingPost
from channelkit.service import LocalService

BERLIN = "Europe/Berlin"
BERLIN_ZONE = ZoneInfo(BERLIN)
SKIPPED = ("2027-03-28 02:30", "choose 01:30 (before the change) or 03:30 (after it)")
TWICE = (
    "2027-10-31 02:30",
    "add the offset to say which, 2027-10-31 02:30+02:00 (first) or 2027-10-31 02:30+01:00 "
    "(second)",
)


@pytest.mark.parametrize(("wall", "choices"), [SKIPPED, TWICE])
def test_every_entry_point_refuses_a_skipped_or_repeated_time_naming_both(
    wall: str, choices: str
) -> None:
    day, clock = wall.split()
    refusals = []
    for read in (
        lambda: parse_when(wall, tz=BERLIN_ZONE),  # cells, spreadsheets, the calendar
        lambda: combine_date_time(day, clock, tz=BERLIN_ZONE),  # date and time columns
        lambda: localize(datetime.fromisoformat(wall), BERLIN_ZONE),  # slots
    ):
        with pytest.raises(TimeError) as refused:
            read()
        refusals.append(str(refused.value))
    with pytest.raises(InvalidParameterError) as window:  # hold --from/--to, calendar export
        window_bounds(wall, None, BERLIN_ZONE)
    refusals.append(window.value.message)
    for said in refusals:
        assert said.startswith(wall) and said.endswith(choices), said
        assert said.count(". ") == 0  # one sentence
    # With the offset the user picks one of the two: both are accepted.
    for offset in ("+01:00", "+02:00"):
        assert parse_when(wall + offset, tz=BERLIN_ZONE).tzinfo is UTC


def test_a_shift_of_whole_days_keeps_the_local_time_across_the_change() -> None:
    nine = datetime(2027, 10, 30, 7, tzinfo=UTC)  # 09:00 in Berlin, summer time
    assert shifted(nine, timedelta(days=1), BERLIN_ZONE) == datetime(2027, 10, 31, 8, tzinfo=UTC)
    assert shifted(nine, timedelta(days=1, hours=2), BERLIN_ZONE) == datetime(
        2027, 10, 31, 10, tzinfo=UTC
    )
    assert shifted(nine, timedelta(hours=3), BERLIN_ZONE) == nine + timedelta(hours=3)
    early = datetime(2027, 3, 27, 1, 30, tzinfo=UTC)  # 02:30 in Berlin, winter time
    with pytest.raises(TimeError, match=f"^{SKIPPED[0]} does not exist .*{re.escape(SKIPPED[1])}$"):
        shifted(early, timedelta(days=1), BERLIN_ZONE)
    assert shifted(early, timedelta(days=2), BERLIN_ZONE) == datetime(
        2027, 3, 29, 0, 30, tzinfo=UTC
    )


@settings(max_examples=300, deadline=None)
@given(
    wall=st.datetimes(min_value=datetime(2026, 1, 1), max_value=datetime(2029, 12, 31)),
    days=st.integers(min_value=0, max_value=400),
    zone=st.sampled_from([BERLIN, "America/New_York", "Australia/Lord_Howe"]).map(ZoneInfo),
)
def test_a_shift_keeps_the_wall_time_or_refuses(wall: datetime, days: int, zone: ZoneInfo) -> None:
    try:
        start = localize(wall, zone)
    except TimeError:
        return
    try:
        moved = shifted(start, timedelta(days=days), zone)
    except TimeError as exc:
        assert "does not exist" in str(exc) or "happens twice" in str(exc)
        return
    assert moved.tzinfo is UTC
    local = moved.astimezone(zone).replace(tzinfo=None)
    assert local == wall.replace(microsecond=0) + timedelta(days=days)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["release", "--shift", "100000000000000000000d"], "--shift: '100000000000000000000d'"),
        (["release", "--shift", "99999999999h"], "--shift: '99999999999h' is longer than"),
        (["report", "--upcoming", "100000000000000000000d"], "'--upcoming': '1000000000000"),
        (["report", "--max-age", "99999999999999w"], "is longer than 3,660 days"),
        (["schedule", "x.xlsx", "--min-gap", "9999999999999d"], "--min-gap: '9999999999999d'"),
    ],
)
def test_far_end_durations_are_refused_in_one_line(args: list[str], says: str) -> None:
    result = CliRunner().invoke(main, args, env={"CHANNELKIT_TZ": "UTC"})
    assert result.exit_code == 2, result.output
    assert says in result.output and "Traceback" not in result.output
    assert not isinstance(result.exception, OverflowError)
    assert len([line for line in result.output.splitlines() if line.startswith("Error")]) == 1


@pytest.fixture
def service() -> Iterator[LocalService]:
    with LocalService(admin=True) as svc:
        yield svc


@pytest.fixture
def clock() -> Iterator[Callable[[datetime], None]]:
    """Travel (this process, the in-process service with it) to an instant, ticking."""
    travels: list[time_machine.travel] = []

    def travel(moment: datetime) -> None:
        travels.append(time_machine.travel(moment, tick=True))
        travels[-1].start()

    yield travel
    for one in reversed(travels):
        one.stop()


def _held_one(
    service: LocalService, clock: Callable[[datetime], None], at: datetime
) -> tuple[dict[str, str], str]:
    """A post scheduled `at`, held, then missed (the service's clock 2 hours past it)."""
    clock(at - timedelta(hours=1))
    key = service.create_key(user="ann", team="comms", plan="enterprise")
    with Client(service.base_url, key) as client:
        channel = client.channels.create(name="All hands")
        post = client.posts.create(
            channel_id=channel.id, title="Weekly", body="Body", scheduled_at=at
        )
    env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_API_KEY": key}
    assert CliRunner().invoke(main, ["hold", "--tz", BERLIN], env=env).exit_code == 0
    service.advance_clock(3 * 3600)
    return env, post.id


def test_release_shift_keeps_nine_o_clock_across_the_autumn_change(
    service: LocalService, clock: Callable[[datetime], None]
) -> None:
    env, post_id = _held_one(service, clock, datetime(2027, 10, 30, 7, tzinfo=UTC))  # 09:00 CEST
    result = CliRunner().invoke(main, ["release", "--shift", "1d", "--tz", BERLIN], env=env)
    assert result.exit_code == 0, result.output
    assert "moved to 2027-10-31 09:00" in result.output
    with Client(service.base_url, env["CHANNELKIT_API_KEY"]) as client:
        post = client.posts.retrieve(post_id)
    assert post.scheduled_at == datetime(2027, 10, 31, 8, tzinfo=UTC)  # 09:00 CET


def test_release_shift_into_the_skipped_hour_is_refused_and_stays_held(
    service: LocalService, clock: Callable[[datetime], None]
) -> None:
    env, post_id = _held_one(service, clock, datetime(2027, 3, 27, 1, 30, tzinfo=UTC))  # 02:30 CET
    runner = CliRunner()
    refused = runner.invoke(main, ["release", "--shift", "1d", "--tz", BERLIN], env=env)
    assert refused.exit_code == 1, refused.output
    assert f"{SKIPPED[0]} does not exist in {BERLIN}" in refused.output
    assert SKIPPED[1] in refused.output and "Traceback" not in refused.output
    with Client(service.base_url, env["CHANNELKIT_API_KEY"]) as client:
        assert client.posts.retrieve(post_id).status == "draft"  # still held
    moved = runner.invoke(main, ["release", "--shift", "2d", "--tz", BERLIN], env=env)
    assert moved.exit_code == 0 and "moved to 2027-03-29 02:30" in moved.output, moved.output


@pytest.mark.calendar
def test_hold_refuses_a_skipped_time_and_a_reversed_window(service: LocalService) -> None:
    key = service.create_key(user="ann", team="comms", plan="enterprise")
    env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_API_KEY": key}
    runner = CliRunner()
    skipped = runner.invoke(
        main, ["hold", "--from", SKIPPED[0], "--tz", BERLIN], env=env, catch_exceptions=False
    )
    assert skipped.exit_code == 2 and SKIPPED[1] in skipped.output, skipped.output
    reversed_ = runner.invoke(
        main, ["hold", "--from", "2027-03-30", "--to", "2027-03-28", "--tz", BERLIN], env=env
    )
    assert reversed_.exit_code == 2, reversed_.output
    assert "2027-03-28 00:00 is not after the start 2027-03-30 00:00" in reversed_.output


def test_a_repeated_wall_time_is_shown_with_its_offset() -> None:
    # The upcoming digest and the calendar file show 02:30 on 31 October twice: which is
    # which needs the offset; other times do not get one.
    zone = BERLIN_ZONE
    shown = [
        UpcomingPost("p", datetime(2027, 10, 31, h, 30, tzinfo=UTC).astimezone(zone), "c", "t", "a")
        for h in (0, 1, 2)
    ]
    assert [post.local for post in shown] == [
        "Sun 2027-10-31 02:30+02:00",
        "Sun 2027-10-31 02:30+01:00",
        "Sun 2027-10-31 03:30",
    ]
    first = datetime(2027, 10, 31, 0, 30, tzinfo=UTC)
    assert wall_text(first, BERLIN_ZONE) == "2027-10-31 02:30+02:00"
    assert parse_when(wall_text(first, BERLIN_ZONE), tz=BERLIN_ZONE) == first  # read back
