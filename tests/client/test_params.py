"""Arguments to query strings and bodies: timestamps, naive datetimes, IDs, limits."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from channelkit.client._params import (
    check_limit,
    format_timestamp,
    json_body,
    path_id,
    query_params,
)
from channelkit.errors import ChannelkitError, InvalidParameterError


def test_aware_datetimes_go_out_in_utc_with_z() -> None:
    berlin = timezone(timedelta(hours=1))
    assert format_timestamp("x", datetime(2026, 11, 21, 10, 30, tzinfo=berlin)) == (
        "2026-11-21T09:30:00Z"
    )
    assert format_timestamp("x", datetime(2026, 1, 1, 0, 0, 0, 5, tzinfo=UTC)) == (
        "2026-01-01T00:00:00.000005Z"
    )


def test_naive_datetime_is_refused_naming_the_parameter() -> None:
    with pytest.raises(InvalidParameterError, match=r"^scheduled_at: naive datetime"):
        format_timestamp("scheduled_at", datetime(2026, 11, 21, 9, 30))


def test_dates_and_rfc3339_strings() -> None:
    assert format_timestamp("x", date(2026, 11, 21)) == "2026-11-21"
    assert format_timestamp("x", "2026-11-21") == "2026-11-21"
    assert format_timestamp("x", "2026-11-21T09:30:00+01:00") == "2026-11-21T09:30:00+01:00"
    assert format_timestamp("x", "2026-11-21T09:30:00.5Z") == "2026-11-21T09:30:00.5Z"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2026-11-21T09:30:00", "has no UTC offset"),
        ("21/11/2026", "not an RFC 3339"),
        ("2026-13-01", "not a valid date/time"),
        ("tomorrow", "not an RFC 3339"),
    ],
)
def test_bad_strings_are_refused(value: str, message: str) -> None:
    with pytest.raises(InvalidParameterError, match=f"^published_after: .*{message}"):
        format_timestamp("published_after", value)


def test_invalid_parameter_error_is_both_a_channelkit_and_a_value_error() -> None:
    with pytest.raises(ChannelkitError):
        format_timestamp("end", 12)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        format_timestamp("end", 12)  # type: ignore[arg-type]


def test_query_params_drop_none_and_format_values() -> None:
    params = query_params(
        {"a": None, "b": True, "c": 3, "d": date(2026, 1, 2), "e": "x y", "f": False}
    )
    assert params == {"b": "true", "c": "3", "d": "2026-01-02", "e": "x y", "f": "false"}
    with pytest.raises(InvalidParameterError, match="^tags: expected"):
        query_params({"tags": ["a"]})


def test_json_body_keeps_lists_and_formats_datetimes() -> None:
    when = datetime(2026, 11, 21, 9, 30, tzinfo=UTC)
    assert json_body({"tags": ("a", "b"), "scheduled_at": when, "cover_image_url": None}) == {
        "tags": ["a", "b"],
        "scheduled_at": "2026-11-21T09:30:00Z",
    }


def test_limit_bounds() -> None:
    assert check_limit(100, 100) == 100
    for bad in (0, 101, -1, True, 2.5):
        with pytest.raises(InvalidParameterError, match="^limit: must be an integer from 1 to 100"):
            check_limit(bad, 100)  # type: ignore[arg-type]


def test_ids_cannot_escape_their_path_segment() -> None:
    assert path_id("post_id", "../channels/chan_1") == "..%2Fchannels%2Fchan_1"
    with pytest.raises(InvalidParameterError, match="^post_id: expected a non-empty ID"):
        path_id("post_id", " ")
