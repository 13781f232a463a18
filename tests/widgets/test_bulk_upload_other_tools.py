"""BulkUpload with other tools' files: the choices of `channelkit schedule`'s flags (channel,
channel names, date order, layout file) made in the widget, shown with the reading before
Submit."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from channelkit.client import Channel, Client
from channelkit.errors import InvalidParameterError
from channelkit.widgets import BulkUpload
from channelkit.widgets.bulk_upload import in_widget_words
from fixtures.layout_corpus import SCHEDULIN_FILE, SCHEDULIN_LAYOUT, as_csv

BERLIN = ZoneInfo("Europe/Berlin")


def _csv(rows: list[list[object]]) -> bytes:
    buffer = io.StringIO(newline="")
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue().encode()


def _hootsuite(first: datetime) -> tuple[bytes, list[datetime]]:
    """A Hootsuite bulk file: no header row; date and time day first, message, link.
    Its days are at most 12 apart from the first: the day/month order is for the user to
    say (as Hootsuite's upload form asks)."""
    walls = [first, first + timedelta(days=1, hours=2)]
    rows: list[list[object]] = [
        [f"{walls[0]:%d/%m/%Y %H:%M}", "Town hall on Thursday. Bring questions.", ""],
        [f"{walls[1]:%d/%m/%Y %H:%M}", "Release 4.2 is out!", "https://example.com/4.2"],
    ]
    return _csv(rows), walls


def _titles(client: Client, channel: Channel) -> list[str]:
    return sorted(post.title for post in client.posts.list(channel_id=channel.id))


@pytest.mark.calendar
def test_a_hootsuite_file_is_scheduled_with_a_channel_chosen_in_the_widget(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    data, walls = _hootsuite(future_wall)
    widget = BulkUpload(client, tz="Europe/Berlin")
    widget.load(data, "hootsuite.csv")

    # No channel in the file: the widget says which of its controls to use, no flag.
    assert widget.plan is None and widget.submit_button.disabled
    assert "give the channel for the whole file with a Channel" in widget.status.value
    assert "--channel" not in widget.status.value

    widget.channel.value = "all-hands"  # read again at once with the choice
    widget.date_order.value = "dmy"
    assert widget.plan is not None, widget.status.value
    assert "read as a Hootsuite bulk file: date-time, message, link; no header row" in (
        widget.reading.value
    )
    assert "channel all-hands for every row (Channel)" in widget.reading.value
    assert "dates read day first (Date order day first)" in widget.reading.value
    assert "Ready to submit" in widget.status.value
    assert not widget.submit_button.disabled

    widget.submit_button.click()

    titles = ["Release 4.2 is out!", "Town hall on Thursday."]
    assert _titles(client, channels["all-hands"]) == titles
    assert _titles(client, channels["engineering"]) == []
    posts = sorted(client.posts.list(channel_id=channels["all-hands"].id), key=lambda p: p.title)
    assert [post.scheduled_at for post in posts] == [
        wall.replace(tzinfo=BERLIN).astimezone(UTC) for wall in reversed(walls)
    ]
    assert posts[0].body == "Release 4.2 is out!\n\n<https://example.com/4.2>"


@pytest.mark.calendar
def test_names_in_a_file_go_to_the_channels_given_for_them(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    header = ["date", "time_24hr", "message_text", "profile"]  # Sprout Social's columns
    day = f"{future_wall:%Y-%m-%d}"
    rows = [header, [day, "09:00", "Town hall.", "Facebook"], [day, "10:00", "Ship it.", "Team"]]
    widget = BulkUpload(client, tz="Europe/Berlin", names={"Facebook": "all-hands"})
    widget.load(_csv(rows), "sprout.csv")
    assert widget.plan is None
    assert "no channel for Team; map each name to a channel (Team=CHANNEL in Names)" in (
        widget.status.value
    )

    widget.names.value = "Facebook=all-hands\nTeam=engineering"
    assert widget.plan is not None and widget.plan.is_valid, widget.status.value
    assert "channels by name: Facebook → all-hands, Team → engineering" in widget.reading.value
    widget.submit()
    assert _titles(client, channels["all-hands"]) == ["Town hall."]
    assert _titles(client, channels["engineering"]) == ["Ship it."]


@pytest.mark.calendar
def test_a_names_line_that_is_not_name_equals_channel_is_refused_in_the_widget(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    data, _ = _hootsuite(future_wall)
    widget = BulkUpload(client, tz="Europe/Berlin")
    widget.names.value = "Facebook all-hands"
    widget.load(data, "hootsuite.csv")
    assert widget.plan is None and widget.submit_button.disabled
    assert "Names: 'Facebook all-hands' is not NAME=CHANNEL" in widget.status.value


@pytest.mark.calendar
def test_an_unknown_channel_given_to_the_widget_is_refused(
    client: Client, channels: dict[str, Channel]
) -> None:
    with pytest.raises(InvalidParameterError, match="channel: 'nope'"):
        BulkUpload(client, channel="nope")


@pytest.mark.parametrize(
    ("message", "said"),
    [
        ("say which with --date-order dmy or --date-order mdy", "say which with Date order"),
        ("dates read month first (--date-order mdy)", "(Date order month first)"),
        ("(--map 'Our Page'=CHANNEL)", "('Our Page'=CHANNEL in Names)"),
        ("give either --channel (one channel for the file) or --map", "either Channel (one"),
    ],
)
def test_the_flags_in_messages_are_said_as_the_widgets_controls(message: str, said: str) -> None:
    assert said in in_widget_words(message)
    assert "--" not in in_widget_words(message)


@pytest.mark.calendar
def test_a_channelkit_file_says_the_choices_are_for_other_tools_files(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    native = [
        ["channel", "title", "body", "scheduled_at"],
        ["all-hands", "Town hall", "Thursday", f"{future_wall:%Y-%m-%d %H:%M}"],
    ]
    widget = BulkUpload(client, tz="Europe/Berlin", channel="engineering")
    widget.load(_csv(native), "posts.csv")
    assert widget.plan is None
    assert "Channel and Names are for files from other tools" in widget.status.value
    widget.channel.value = None  # "as the file says"
    assert widget.plan is not None and widget.plan.is_valid, widget.status.value
    assert widget.reading.value == ""  # a channelkit file: nothing to say about its reading


def _scheduled(client: Client) -> list[tuple[str, str, str]]:
    slugs = {channel.id: channel.slug for channel in client.channels.list()}
    posts = sorted(client.posts.list(), key=lambda post: post.scheduled_at or post.created_at)
    return [(str(slugs[p.channel_id]), p.title, str(p.scheduled_at)) for p in posts]


@pytest.mark.calendar
def test_a_layout_file_uploaded_in_the_widget_schedules_a_tool_channelkit_does_not_ship(
    client: Client, channels: dict[str, Channel]
) -> None:
    widget = BulkUpload(client, tz="Europe/Berlin")
    assert widget.drop_layout.disabled and "no layout file" in widget.layout_used.value
    widget.load(as_csv(SCHEDULIN_FILE), "schedulin.csv")
    assert widget.plan is None and widget.submit_button.disabled
    assert "declare a layout" in widget.status.value
    assert "--layout-file" not in widget.status.value  # the draft says the widget's control
    assert "give it with Layout file" in widget.status.value

    # A browser names a second download "schedulin (1).toml": still a layout's name.
    layout = widget.use_layout(SCHEDULIN_LAYOUT.encode(), "schedulin (1).toml")
    assert layout is not None and layout.key == "schedulin-1"
    assert "schedulin (1).toml: reads Schedulin files" in widget.layout_used.value
    assert widget.plan is not None and widget.plan.is_valid, widget.status.value
    assert "read as a Schedulin bulk file: channel → channel, caption → body" in (
        widget.reading.value
    )
    assert "Ready to submit" in widget.status.value
    widget.submit_button.click()

    assert _scheduled(client) == [
        ("all-hands", "Town hall on Thursday.", "2031-03-04 08:00:00+00:00"),
        ("engineering", "Release 4.2 is out!", "2031-03-05 14:30:00+00:00"),
    ]
    assert widget.last_result is not None and widget.last_result.ok

    widget.drop_layout.click()  # back to the layouts channelkit knows: refused again
    assert widget.plan is None and "declare a layout" in widget.status.value


@pytest.mark.calendar
def test_a_layout_file_given_by_its_path_is_used_from_the_start(
    client: Client, channels: dict[str, Channel], tmp_path: Path
) -> None:
    path = tmp_path / "schedulin.toml"
    path.write_text(SCHEDULIN_LAYOUT, encoding="utf-8")
    widget = BulkUpload(client, tz="Europe/Berlin", layout_file=path)
    assert not widget.drop_layout.disabled
    plan = widget.load(as_csv(SCHEDULIN_FILE), "schedulin.csv")
    assert plan is not None and plan.is_valid and plan.sheet.layout == "schedulin"


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (
            SCHEDULIN_LAYOUT.replace('role = "message"', 'role = "caption"'),
            "Layout file: schedulin.toml: columns[1].role: 'caption' is not a role; use one of",
        ),
        (b"name = ", "Layout file: schedulin.toml: not TOML ("),
        ("name = 'Schedulin'".encode("utf-16"), "Layout file: schedulin.toml is not UTF-8 text"),
    ],
)
@pytest.mark.calendar
def test_a_layout_file_that_cannot_be_used_is_refused_in_the_widgets_words(
    client: Client, channels: dict[str, Channel], content: str | bytes, said: str
) -> None:
    widget = BulkUpload(client, tz="Europe/Berlin")
    widget.load(as_csv(SCHEDULIN_FILE), "schedulin.csv")
    data = content.encode() if isinstance(content, str) else content
    assert widget.use_layout(data, "schedulin.toml") is None
    assert said in widget.status.value, widget.status.value
    assert "--" not in widget.status.value and "\n" not in widget.status.value
    assert widget.plan is None and widget.submit_button.disabled
    assert widget.drop_layout.disabled  # no layout file in use


@pytest.mark.calendar
def test_a_layout_file_path_that_does_not_exist_is_refused_naming_it(
    client: Client, channels: dict[str, Channel], tmp_path: Path
) -> None:
    with pytest.raises(InvalidParameterError, match="layout_file: .*nope.toml: no such file"):
        BulkUpload(client, layout_file=tmp_path / "nope.toml")
