"""Every instant a sheet can name, in every zone: planning, the duplicate search, slots and
the calendar answer with a row error or a result, never a traceback (issue 30.5)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo, available_timezones

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from channelkit.client.models import Post
from channelkit.errors import TimeError
from channelkit.publish.calendar.records import wall_text
from channelkit.publish.post.duplicates import likely_duplicates
from channelkit.publish.post.row_types import PlanRow
from channelkit.publish.post.times import parse_when
from channelkit.publish.post.validation import PostRequest, validate_post
from channelkit.publish.sheets.slots import next_free_slot, parse_slots

ZONES = [ZoneInfo(name) for name in sorted(available_timezones())]
NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
BODY = "Join the town hall on Thursday: questions welcome, in the room or online."
instants = st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59))


def _post(when: datetime) -> Post:
    return Post(
        id="post_1", channel_id="chan_1", title="Town hall", body=BODY, status="scheduled",
        scheduled_at=when, created_at=NOW,
    )  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(naive=instants, zone=st.sampled_from(ZONES))
@pytest.mark.calendar
def test_every_instant_in_every_zone_plans_or_gives_a_row_error(
    naive: datetime, zone: ZoneInfo
) -> None:
    text = f"{naive.year:04d}-{naive:%m-%d %H:%M}"
    fields = {"channel": "chan_1", "title": "Town hall", "body": BODY, "scheduled_at": text}
    checked = validate_post(fields, channels=None, tz=zone, now=NOW, require_time=True)
    if isinstance(checked, list):
        assert all("\n" not in str(error) for error in checked)
        return
    assert isinstance(checked, PostRequest) and checked.scheduled_at is not None
    at = checked.scheduled_at
    # the far end counts from this machine's clock too (a calendar checks its rows with no
    # "now" of its own): at most ten years past the later of the two
    assert NOW < at <= max(NOW, datetime.now(UTC)) + timedelta(days=3700)


@settings(max_examples=300, deadline=None)
@given(naive=instants, zone=st.sampled_from(ZONES), days=st.integers(-8, 8))
def test_the_duplicate_search_slots_and_calendar_take_any_instant(
    naive: datetime, zone: ZoneInfo, days: int
) -> None:
    try:
        at = parse_when(naive, tz=zone)
    except TimeError:
        return  # skipped or repeated wall times, and instants outside 0001..9999 in UTC
    request = PostRequest("chan_1", "Retitled", BODY, "normal", (), at, None)
    try:
        near = at + timedelta(days=days)
    except OverflowError:
        near = at
    found = likely_duplicates([PlanRow(2, request)], {"chan_1": [_post(near)]}, days=7)
    assert (2 in found) == (abs(near - at) <= timedelta(days=7))
    if 2 in found:
        assert found[2].strong  # the same long body, whatever the title
    slot = next_free_slot(
        parse_slots("daily 09:00"), zone, after=at, taken=[at], min_gap=timedelta(hours=1)
    )
    assert slot is None or slot >= at
    assert wall_text(at, zone)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("12/20/2026 09:00", datetime(2026, 12, 20, 9, tzinfo=UTC)),  # 20 cannot be a month
        ("20/12/2026 09:00", datetime(2026, 12, 20, 9, tzinfo=UTC)),
        ("20.12.2026 09:00", datetime(2026, 12, 20, 9, tzinfo=UTC)),
        ("05/05/2026 09:00", datetime(2026, 5, 5, 9, tzinfo=UTC)),  # both orders agree
    ],
)
def test_a_date_that_reads_only_one_way_is_read_that_way(text: str, expected: datetime) -> None:
    assert parse_when(text, tz=ZoneInfo("UTC")) == expected


def test_a_date_that_reads_two_ways_is_refused_naming_the_ambiguity() -> None:
    with pytest.raises(TimeError, match="day and month order is ambiguous"):
        parse_when("12/11/2026 09:00", tz=ZoneInfo("UTC"))
