"""ck.schedule_file against the real local service: a posts file, another tool's file with
the command's choices as keywords, and a tool channelkit does not ship by its layout file."""

from __future__ import annotations

from pathlib import Path

import pytest

import channelkit as ck
from channelkit.client import Client
from channelkit.errors import InvalidParameterError, PlanNotValidError, SpreadsheetError
from channelkit.publish import Plan, SubmitResult
from fixtures.layout_corpus import SCHEDULIN_FILE, SCHEDULIN_LAYOUT, as_csv

# The tests against the service are dated 2031: ahead of any instant the calendar run picks.


def _scheduled(client: Client) -> list[tuple[str, str, str]]:
    slugs = {channel.id: channel.slug for channel in client.channels.list()}
    posts = sorted(client.posts.list(), key=lambda post: str(post.scheduled_at))
    return [(str(slugs[p.channel_id]), p.title, str(p.scheduled_at)) for p in posts]


@pytest.fixture
def schedulin(tmp_path: Path) -> tuple[Path, Path]:
    data, layout = tmp_path / "schedulin.csv", tmp_path / "schedulin.toml"
    data.write_bytes(as_csv(SCHEDULIN_FILE))
    layout.write_text(SCHEDULIN_LAYOUT, encoding="utf-8")
    return data, layout


@pytest.mark.calendar
def test_a_layout_file_schedules_a_tool_channelkit_does_not_ship_from_a_cell(
    client: Client, schedulin: tuple[Path, Path]
) -> None:
    data, layout = schedulin
    with pytest.raises(SpreadsheetError, match="declare a layout"):
        ck.schedule_file(data, tz="Europe/Berlin", client=client)

    plan = ck.schedule_file(
        data, layout_file=layout, tz="Europe/Berlin", dry_run=True, client=client
    )
    assert isinstance(plan, Plan) and plan.checked and plan.is_valid
    assert plan.sheet.layout == "schedulin" and plan.counts()["ok"] == 2
    assert "read as a Schedulin bulk file" in (plan.sheet.reading or "")
    assert _scheduled(client) == []  # a dry run sends nothing

    result = ck.schedule_file(data, layout_file=str(layout), tz="Europe/Berlin", client=client)
    assert isinstance(result, SubmitResult) and result.counts() == {"created": 2}
    expected = [
        ("all-hands", "Town hall on Thursday.", "2031-03-04 08:00:00+00:00"),
        ("engineering", "Release 4.2 is out!", "2031-03-05 14:30:00+00:00"),
    ]
    assert _scheduled(client) == expected

    again = ck.schedule_file(data, layout_file=layout, tz="Europe/Berlin", client=client)
    assert again.ok and "created" not in again.counts()  # the cell run twice: nothing new
    assert _scheduled(client) == expected


@pytest.mark.calendar
def test_another_tools_file_takes_the_channel_and_date_order_as_keywords(
    client: Client, tmp_path: Path
) -> None:
    # Hootsuite: no header row; date-time (its order picked at upload), message, link.
    data = tmp_path / "hootsuite.csv"
    data.write_bytes(
        as_csv(
            [
                ["04/03/2031 09:00", "Town hall on Thursday. Bring questions.", ""],
                ["05/03/2031 14:30", "Release 4.2 is out!", "https://example.com/4.2"],
            ]
        )
    )
    with pytest.raises(SpreadsheetError, match="--channel"):
        ck.schedule_file(data, tz="Europe/Berlin", client=client)
    result = ck.schedule_file(
        data, channel="all-hands", date_order="dmy", tz="Europe/Berlin", client=client
    )
    assert result.counts() == {"created": 2}
    assert _scheduled(client) == [
        ("all-hands", "Town hall on Thursday.", "2031-03-04 08:00:00+00:00"),
        ("all-hands", "Release 4.2 is out!", "2031-03-05 13:30:00+00:00"),
    ]


@pytest.mark.calendar
def test_the_names_of_a_file_go_to_the_channels_given_for_them(
    client: Client, tmp_path: Path
) -> None:
    data = tmp_path / "sprout.csv"
    rows = [
        ["date", "time_24hr", "message_text", "profile"],  # Sprout Social's columns
        ["2031-03-04", "09:00", "Town hall.", "Facebook"],
        ["2031-03-04", "10:00", "Ship it.", "Team"],
    ]
    data.write_bytes(as_csv(rows))
    names = {"Facebook": "all-hands", "Team": "engineering"}
    result = ck.schedule_file(data, names=names, tz="Europe/Berlin", client=client)
    assert result.counts() == {"created": 2}
    assert [(slug, title) for slug, title, _ in _scheduled(client)] == [
        ("all-hands", "Town hall."),
        ("engineering", "Ship it."),
    ]


@pytest.mark.calendar
def test_a_plan_with_errors_sends_nothing_unless_partial(client: Client, tmp_path: Path) -> None:
    data = tmp_path / "posts.csv"
    rows = [
        ["channel", "title", "body", "scheduled_at"],
        ["all-hands", "Town hall", "Thursday", "2031-03-04 09:00"],
        ["nowhere", "Lost", "No such channel", "2031-03-04 10:00"],
    ]
    data.write_bytes(as_csv(rows))
    with pytest.raises(PlanNotValidError, match="1 of 2 rows have errors"):
        ck.schedule_file(data, tz="Europe/Berlin", client=client)
    assert _scheduled(client) == []
    result = ck.schedule_file(data, tz="Europe/Berlin", allow_partial=True, client=client)
    assert result.counts() == {"created": 1, "invalid": 1}


@pytest.mark.parametrize(
    ("keywords", "said"),
    [
        ({"date_order": "ymd"}, "date_order: 'ymd' is not one of dmy (day first), mdy"),
        ({"layout_file": "nope.toml"}, "layout_file: nope.toml: no such file"),
        ({"tz": "Mars/Olympus"}, "Mars/Olympus"),
    ],
)
def test_a_choice_that_cannot_be_used_is_refused_before_any_request(
    schedulin: tuple[Path, Path], keywords: dict[str, str], said: str
) -> None:
    data, _ = schedulin
    # No client and no service: a refusal comes before one would be made.
    with pytest.raises(InvalidParameterError) as caught:
        ck.schedule_file(data, **keywords)  # type: ignore[arg-type]
    assert said in str(caught.value) and "\n" not in str(caught.value)
