"""validate_post and ChannelIndex: the rules shared by ck.schedule, spreadsheets and widgets."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import httpx
import pytest

from channelkit._constants import ENV_TZ
from channelkit._tz import unknown_zone
from channelkit.client import Client
from channelkit.errors import FieldError, UnknownZoneError
from channelkit.publish.post.validation import ChannelIndex, ChannelInfo, PostRequest, validate_post

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
INDEX = ChannelIndex.from_channels(
    [
        {"id": "chan_1", "name": "All hands", "slug": "all-hands", "visibility": "organization"},
        {"id": "chan_2", "name": "News", "slug": "news-uk"},
        {"id": "chan_3", "name": "News", "slug": "news-eu"},
        {"id": "chan_4", "name": "Old", "slug": "old", "is_archived": True},
    ]
)

BERLIN = ZoneInfo("Europe/Berlin")
BASE: dict[str, object] = {"channel": "all-hands", "title": "Hello", "body": "**hi**"}


def ok(**fields: object) -> PostRequest:
    result = validate_post({**BASE, **fields}, channels=INDEX, tz=BERLIN, now=NOW)
    assert isinstance(result, PostRequest), result
    return result


def errors(tz: str | None = "Europe/Berlin", **fields: object) -> list[str]:
    zone = None if tz is None else ZoneInfo(tz)
    result = validate_post({**BASE, **fields}, channels=INDEX, tz=zone, now=NOW)
    assert isinstance(result, list), result
    return [str(error) for error in result]


@pytest.mark.calendar
def test_valid_post_resolves_channel_and_reads_local_time_in_tz() -> None:
    request = ok(scheduled_at="2026-12-01 09:00", tags="hr, news ,hr", priority="High")
    assert request.channel_id == "chan_1"
    assert request.channel_name == "All hands"
    assert request.scheduled_at == datetime(2026, 12, 1, 8, 0, tzinfo=UTC)
    assert request.priority == "high"
    assert request.tags == ("hr", "news")
    assert request.to_create_kwargs() == {
        "channel_id": "chan_1",
        "title": "Hello",
        "body": "**hi**",
        "priority": "high",
        "tags": ["hr", "news", request.origin_tag],  # the row's origin: publish/post/origin.py
        "scheduled_at": datetime(2026, 12, 1, 8, 0, tzinfo=UTC),
    }
    local = request.local_time()
    assert local is not None and (local.hour, str(local.tzinfo)) == (9, "Europe/Berlin")


def test_no_time_means_publish_now_and_omits_scheduled_at() -> None:
    request = ok()
    assert request.scheduled_at is None
    assert "scheduled_at" not in request.to_create_kwargs()


@pytest.mark.parametrize(
    ("value", "expected_utc"),
    [
        ("2026-12-01T09:00:00Z", datetime(2026, 12, 1, 9, 0, tzinfo=UTC)),
        ("2026-12-01 09:00+01:00", datetime(2026, 12, 1, 8, 0, tzinfo=UTC)),
        ("2026-12-01 9:05", datetime(2026, 12, 1, 8, 5, tzinfo=UTC)),
        (datetime(2026, 12, 1, 9, 0), datetime(2026, 12, 1, 8, 0, tzinfo=UTC)),
        (datetime(2026, 12, 1, 9, 0, tzinfo=UTC), datetime(2026, 12, 1, 9, 0, tzinfo=UTC)),
        (46357.375, datetime(2026, 12, 1, 8, 0, tzinfo=UTC)),  # Excel serial, 09:00 Berlin
        ("46357.375", datetime(2026, 12, 1, 8, 0, tzinfo=UTC)),
        ("2027-07-01 09:00", datetime(2027, 7, 1, 7, 0, tzinfo=UTC)),  # summer time
    ],
)
@pytest.mark.calendar
def test_time_forms(value: object, expected_utc: datetime) -> None:
    assert ok(scheduled_at=value).scheduled_at == expected_utc


@pytest.mark.calendar
def test_date_and_time_columns_combine() -> None:
    request = ok(date="2026-12-01", time="09:30")
    assert request.scheduled_at == datetime(2026, 12, 1, 8, 30, tzinfo=UTC)
    assert ok(date=46357, time=0.375).scheduled_at == datetime(2026, 12, 1, 8, 0, tzinfo=UTC)


@pytest.mark.calendar
def test_row_timezone_wins_over_default() -> None:
    request = ok(scheduled_at="2026-12-01 09:00", timezone="America/New_York")
    assert request.scheduled_at == datetime(2026, 12, 1, 14, 0, tzinfo=UTC)
    assert request.tz == ZoneInfo("America/New_York")


@pytest.mark.parametrize(
    ("fields", "tz", "expected"),
    [
        (
            {"scheduled_at": "2026-03-29 02:30"},
            "Europe/Berlin",
            "scheduled_at: 2026-03-29 02:30 does not exist in Europe/Berlin: the clocks skip "
            "forward that night (daylight saving time); choose 01:30 (before the change) or "
            "03:30 (after it)",
        ),
        (
            {"scheduled_at": "2027-10-31 02:30"},
            "Europe/Berlin",
            "scheduled_at: 2027-10-31 02:30 happens twice in Europe/Berlin: the clocks go back "
            "that night; add the offset to say which, 2027-10-31 02:30+02:00 (first) or "
            "2027-10-31 02:30+01:00 (second)",
        ),
        (
            {"scheduled_at": "2026-12-01 09:00"},
            None,
            "scheduled_at: '2026-12-01 09:00' has no time zone: give a time zone (tz, or a "
            "timezone column) or write the offset, for example 2026-12-01 09:00+01:00",
        ),
        (
            {"scheduled_at": "2026-11-21 12:03"},
            "UTC",
            "scheduled_at: 2026-11-21 12:03 UTC is less than 5 minutes ahead; schedule at "
            "least 5 minutes after now (2026-11-21 12:00 UTC)",
        ),
        (
            {"scheduled_at": "2026-11-21 09:00"},
            "Europe/Berlin",
            "scheduled_at: 2026-11-21 09:00 Europe/Berlin is in the past; schedule at least "
            "5 minutes after now (2026-11-21 13:00 Europe/Berlin)",
        ),
        (
            {"scheduled_at": "01/12/2026 09:00"},
            "UTC",
            "scheduled_at: cannot read '01/12/2026 09:00' as a date and time; day and month "
            "order is ambiguous; use YYYY-MM-DD HH:MM, for example 2026-12-01 09:00",
        ),
        (
            {"scheduled_at": "2026-12-01"},
            "UTC",
            "scheduled_at: '2026-12-01' has no time of day; add one, e.g. 2026-12-01 09:00",
        ),
        (
            {"scheduled_at": "2026-02-30 09:00"},
            "UTC",
            "scheduled_at: '2026-02-30 09:00' is not a valid date and time (day is out of "
            "range for month)",
        ),
        (
            {"scheduled_at": 12.5},
            "UTC",
            "scheduled_at: 12.5 is not a date between 2000 and 2099 (as an Excel date "
            "number); use YYYY-MM-DD HH:MM, for example 2026-12-01 09:00",
        ),
        (
            {"date": "2026-12-01"},
            "UTC",
            "scheduled_at: time is missing (date and time go together)",
        ),
        (
            {"date": "2026-12-01", "time": "25:00"},
            "UTC",
            "scheduled_at: '25:00' is not a valid time (hour must be in 0..23)",
        ),
        (
            {"scheduled_at": "2026-12-01 09:00", "date": "2026-12-01", "time": "09:00"},
            "UTC",
            "scheduled_at: give either scheduled_at or date and time, not both",
        ),
        (
            {"scheduled_at": "2026-12-01 09:00", "timezone": "Mars/Base"},
            "UTC",
            "timezone: 'Mars/Base' is not a time zone; use an IANA name such as 'Europe/Berlin' "
            "or 'UTC'",
        ),
    ],
)
def test_time_errors(fields: dict[str, object], tz: str | None, expected: str) -> None:
    assert errors(tz=tz, **fields) == [expected]


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"channel": ""}, "channel: channel is required (id, slug or name)"),
        (
            {"channel": "News"},
            "channel: 'News' names 2 channels: News [chan_2, slug news-uk], News [chan_3, slug "
            "news-eu]; use the id or the slug",
        ),
        (
            {"channel": "old"},
            "channel: channel Old (old) is archived; choose another channel or unarchive it",
        ),
        (
            {"channel": "all-hand"},
            "channel: no channel 'all-hand' (id, slug or name) visible to this API key; did you "
            "mean 'all-hands'? "
            "choices: all-hands, news-eu, news-uk, old",
        ),
        (
            {"channel": "nothing-like-it"},
            "channel: no channel 'nothing-like-it' (id, slug or name) visible to this API key; "
            "choices: all-hands, news-eu, news-uk, old",
        ),
        ({"title": "   "}, "title: title is required"),
        ({"title": "x" * 201}, "title: title is 201 characters; at most 200"),
        ({"body": None}, "body: body is required"),
        ({"body": "x" * 50_001}, "body: body is 50,001 characters; at most 50,000"),
        ({"priority": "hgh"}, "priority: 'hgh' is not one of normal, high, urgent"),
        (
            {"priority": "urgent"},
            "priority: urgent bypasses readers' notification preferences; confirm it "
            "explicitly (confirm_urgent=True, or --confirm-urgent on the command line)",
        ),
        ({"tags": ",".join(f"t{i}" for i in range(21))}, "tags: 21 tags; at most 20"),
        (
            {"tags": ["ok", "y" * 51]},
            "tags: tag 'yyyyyyyyyyyyyyyyyyyy…' is 51 characters; at most 50",
        ),
        (
            {"cover_image_url": "ftp://example.com/a.png"},
            "cover_image_url: 'ftp://example.com/a.png' is not an absolute http(s) URL (like "
            "https://example.com/cover.png)",
        ),
        (
            {"cover_image_url": "/images/a.png"},
            "cover_image_url: '/images/a.png' is not an absolute http(s) URL (like "
            "https://example.com/cover.png)",
        ),
    ],
)
def test_field_errors(fields: dict[str, object], expected: str) -> None:
    assert errors(**fields) == [expected]


def test_all_errors_are_reported_at_once() -> None:
    result = validate_post(
        {"channel": "", "title": "", "body": "", "priority": "x"}, channels=INDEX, tz=None, now=NOW
    )
    assert isinstance(result, list)
    assert [error.field for error in result] == ["channel", "title", "body", "priority"]


def test_urgent_with_confirmation_and_limits_at_the_edge() -> None:
    base = {"channel": "chan_2", "title": "x" * 200, "body": "y" * 50_000, "priority": "urgent"}
    fields = {**base, "tags": [f"t{i:02d}" + "z" * 47 for i in range(20)]}
    result = validate_post(fields, channels=INDEX, tz=None, now=NOW, confirm_urgent=True)
    assert isinstance(result, PostRequest)
    assert result.priority == "urgent" and len(result.tags) == 20


@pytest.mark.calendar
def test_require_time_and_custom_lead_time() -> None:
    base = {"channel": "chan_1", "title": "t", "body": "b"}
    missing = validate_post(base, channels=INDEX, tz=None, now=NOW, require_time=True)
    assert missing == [FieldError("scheduled_at", "scheduled_at is required")]
    soon = {**base, "scheduled_at": NOW + timedelta(minutes=2)}
    assert isinstance(
        validate_post(soon, channels=INDEX, tz=None, now=NOW, lead_time=timedelta(minutes=1)),
        PostRequest,
    )


def test_without_channel_index_the_reference_is_kept() -> None:
    result = validate_post(
        {"channel": "anything", "title": "t", "body": "b"}, channels=None, tz=None, now=NOW
    )
    assert isinstance(result, PostRequest) and result.channel_id == "anything"


@pytest.mark.calendar
def test_a_zone_given_by_name_is_resolved_once_at_the_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV_TZ, "Asia/Tokyo")  # None is "no zone" here: the callers read it
    fields = {**BASE, "scheduled_at": "2026-12-01 09:00"}
    by_name = validate_post(fields, channels=INDEX, tz=" europe/berlin ", now=NOW)
    assert by_name == validate_post(fields, channels=INDEX, tz=BERLIN, now=NOW)
    assert isinstance(by_name, PostRequest) and by_name.tz == BERLIN
    assert by_name.scheduled_at == datetime(2026, 12, 1, 8, 0, tzinfo=UTC)  # 09:00 in Berlin
    (naive,) = errors(None, scheduled_at="2026-12-01 09:00")  # not CHANNELKIT_TZ's zone
    assert naive.startswith("scheduled_at: ") and "has no time zone" in naive


def test_an_unknown_zone_is_the_one_error_not_a_row_error() -> None:
    fields = {**BASE, "scheduled_at": "2026-12-01 09:00"}
    for bad in ("Europ/Berlin", "../etc/passwd", 5):
        with pytest.raises(UnknownZoneError) as raised:
            validate_post(fields, channels=INDEX, tz=bad, now=NOW)  # type: ignore[arg-type]
        assert (raised.value.param, raised.value.message) == ("tz", unknown_zone(bad))


def test_unknown_field_names_and_naive_now_are_programming_errors() -> None:
    with pytest.raises(ValueError, match="unknown post fields \\['titel'\\]"):
        validate_post({"titel": "x"}, channels=INDEX, tz=None, now=NOW)
    with pytest.raises(ValueError, match="aware"):
        validate_post({}, channels=INDEX, tz=None, now=datetime(2026, 1, 1))


@pytest.mark.calendar
def test_idempotency_key_follows_content() -> None:
    first = ok(scheduled_at="2026-12-01 09:00")
    again = ok(scheduled_at="2026-12-01T08:00:00Z")  # the same instant, written differently
    other = ok(scheduled_at="2026-12-01 09:00", body="changed")
    assert first.idempotency_key() == again.idempotency_key()
    assert first.idempotency_key() != other.idempotency_key()
    assert len(first.idempotency_key()) <= 255


@pytest.mark.calendar
def test_idempotency_key_hashes_the_canonical_form_of_the_body_sent() -> None:
    """Sorted keys, no insignificant whitespace, whole seconds: the service's comparison."""
    request = ok(
        scheduled_at="2026-12-01 09:00:30.9", tags="b, a", cover_image_url="https://e.com/x"
    )
    bodies: list[bytes] = []

    def handler(sent: httpx.Request) -> httpx.Response:
        bodies.append(sent.content)
        post = {"id": "post_1", "channel_id": "chan_1", "title": "t", "status": "scheduled"}
        return httpx.Response(201, json=post)

    with Client("http://svc.test/v1", "k", transport=httpx.MockTransport(handler)) as client:
        client.posts.create(**request.to_create_kwargs(), idempotency_key=request.idempotency_key())
    body = json.loads(bodies[0])
    assert body["scheduled_at"] == "2026-12-01T08:00:30Z"
    canonical = json.dumps(body, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    assert request.idempotency_key().endswith(digest)


def test_channel_index_from_models_lists_publishable_channels_sorted() -> None:
    models = [
        SimpleNamespace(
            id="chan_b", name="beta", slug="beta", visibility="team", is_archived=False
        ),
        SimpleNamespace(
            id="chan_a", name="Alpha", slug="alpha", visibility="private", is_archived=False
        ),
        SimpleNamespace(id="chan_z", name="Gone", slug="gone", visibility="team", is_archived=True),
    ]
    index = ChannelIndex.from_channels(models)
    assert [channel.id for channel in index.channels] == ["chan_a", "chan_b"]
    assert index.get("chan_z") == ChannelInfo("chan_z", "Gone", "gone", "team", True)
    assert index.resolve("chan_b") == ChannelInfo("chan_b", "beta", "beta", "team", False)
    assert index.get("beta") is None


def test_channels_match_as_every_command_matches_them() -> None:
    # One matcher (`_channels.match_channel`) for sheets, cells and the composer: any case,
    # trimmed, a name shared by two channels refused with both.
    index = ChannelIndex.from_channels(
        [
            {"id": "chan_1", "name": "Company News", "slug": "company-news"},
            {"id": "chan_2", "name": "Team", "slug": "team-de"},
            {"id": "chan_3", "name": "Team", "slug": "team-fr"},
        ]
    )
    for ref in ("COMPANY NEWS", "  company   news ", "Company-News", "CHAN_1"):
        assert index.resolve(ref) == index.get("chan_1"), ref
    ambiguous = index.resolve(" TEAM ")
    assert isinstance(ambiguous, FieldError)
    assert "chan_2" in ambiguous.message and "chan_3" in ambiguous.message
