"""The Composer against a real service: set values, press Schedule, look at the service."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from ipywidgets.embed import dependency_state

from channelkit.client import Channel, Client
from channelkit.errors import AuthenticationError, PostValidationError
from channelkit.publish.post.origin import without_origin
from channelkit.service import LocalService
from channelkit.widgets import Composer

pytestmark = pytest.mark.calendar

BERLIN = ZoneInfo("Europe/Berlin")


def _fill(composer: Composer, channel: Channel, **values: object) -> None:
    composer.channel.value = channel.id
    composer.title.value = values.get("title", "Town hall")
    composer.body.value = values.get("body", "Join us **Thursday**.")
    for name in ("tags", "when", "timezone", "cover_image_url", "priority"):
        if name in values:
            getattr(composer, name).value = values[name]


def _posts(client: Client, channel: Channel) -> list[str]:
    return [post.id for post in client.posts.list(channel_id=channel.id)]


def _next_spring_forward_gap() -> datetime:
    """02:30 on the next last Sunday of March: a Berlin wall time that does not exist."""
    today = date.today()
    for year in (today.year, today.year + 1):
        last = date(year, 3, 31)
        sunday = last - timedelta(days=(last.weekday() + 1) % 7)
        if sunday > today + timedelta(days=1):
            return datetime(sunday.year, sunday.month, sunday.day, 2, 30)
    raise AssertionError("unreachable")


def test_schedules_a_post_in_the_chosen_time_zone(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    composer = Composer(client, tz="UTC")
    _fill(
        composer,
        channels["all-hands"],
        tags=["hr", "town-hall"],
        when=future_wall,
        timezone="Europe/Berlin",
        cover_image_url="https://example.com/cover.png",
        priority="high",
    )
    assert composer.schedule_button.description == "Schedule"
    utc = future_wall.replace(tzinfo=BERLIN).astimezone(UTC)
    assert f"{future_wall:%H:%M} Europe/Berlin ({utc:%H:%M} UTC)" in composer.preview.value

    composer.schedule_button.click()

    post = composer.last_post
    assert post is not None
    stored = client.posts.retrieve(post.id)
    assert stored.status == "scheduled"
    assert stored.channel_id == channels["all-hands"].id
    assert (stored.title, stored.body) == ("Town hall", "Join us **Thursday**.")
    assert stored.scheduled_at == utc
    assert sorted(without_origin(stored.tags)) == ["hr", "town-hall"]
    assert len(stored.tags) == 3  # and the post's origin (publish/post/origin.py)
    assert stored.priority == "high"
    assert stored.cover_image_url == "https://example.com/cover.png"
    assert post.id in composer.result.value
    assert f"{future_wall:%H:%M} Europe/Berlin" in composer.result.value
    assert all(label.value == "" for label in composer.errors.values())


def test_starts_with_no_channel_unless_one_is_passed(
    client: Client, channels: dict[str, Channel]
) -> None:
    composer = Composer(client)
    assert composer.channel.value is None
    composer.title.value, composer.body.value = "Hello", "Body"
    composer.confirm_now.value = True  # even a ticked box cannot send without a channel
    assert composer.schedule() is None
    assert "channel is required" in composer.errors["channel"].value

    assert Composer(client, channel="engineering").channel.value == channels["engineering"].id
    with pytest.raises(PostValidationError, match="no channel 'enginering'"):
        Composer(client, channel="enginering")


def test_without_a_time_nothing_is_published_until_confirmed(
    service: LocalService, client: Client, channels: dict[str, Channel]
) -> None:
    composer = Composer(client)
    _fill(composer, channels["all-hands"], title="Release 4.2 is out", tags=["hr"])
    assert composer.schedule_button.description == "Publish now"
    assert composer.confirm_now.layout.display == "none"

    composer.schedule_button.click()
    composer.schedule_button.click()  # pressing again without ticking still asks

    assert composer.last_post is None
    assert _posts(client, channels["all-hands"]) == []
    assert composer.confirm_now.layout.display is None
    audience = client.channels.retrieve(channels["all-hands"].id).subscriber_count
    assert audience is not None
    people = "person" if audience == 1 else "people"
    assert composer.confirm_now.description == f"Publish now to All Hands, {audience:,} {people}?"
    assert "no time is set" in composer.result.value

    composer.channel.value = channels["engineering"].id  # another channel: ask again
    assert composer.confirm_now.layout.display == "none"
    composer.channel.value = channels["all-hands"].id
    composer.schedule_button.click()
    composer.confirm_now.value = True
    composer.schedule_button.click()

    post = composer.last_post
    assert post is not None
    assert _posts(client, channels["all-hands"]) == [post.id]
    assert client.posts.retrieve(post.id).status == "published"
    # Cleared for the next post; where it goes stays.
    assert (composer.title.value, composer.body.value) == ("", "")
    assert (list(composer.tags.value), composer.cover_image_url.value) == ([], "")
    assert composer.channel.value == channels["all-hands"].id
    assert composer.confirm_now.value is False
    assert composer.confirm_now.layout.display == "none"  # the next publish-now asks again
    assert f'href="{service.base_url}/posts/{post.id}"' in composer.result.value
    assert "Release 4.2 is out" in composer.result.value

    composer.schedule_button.click()  # the emptied form cannot send a second copy
    assert _posts(client, channels["all-hands"]) == [post.id]


def test_pasted_tags_are_split_on_commas(client: Client, channels: dict[str, Channel]) -> None:
    composer = Composer(client)
    composer.tags.value = ["a, b, c"]
    assert list(composer.tags.value) == ["a", "b", "c"]
    composer.tags.value = [*composer.tags.value, "town-hall,hr, ,a"]
    assert list(composer.tags.value) == ["a", "b", "c", "town-hall", "hr"]


def test_errors_show_beside_their_fields_and_nothing_is_sent(
    client: Client, channels: dict[str, Channel]
) -> None:
    composer = Composer(client, tz="Europe/Berlin")
    yesterday = datetime.now(BERLIN).replace(tzinfo=None) - timedelta(days=1)
    _fill(
        composer,
        channels["all-hands"],
        title="",
        when=yesterday,
        cover_image_url="ftp://example.com/x.png",
        tags=["x" * 51],
    )

    composer.schedule_button.click()

    errors = {field: label.value for field, label in composer.errors.items() if label.value}
    assert set(errors) == {"title", "scheduled_at", "cover_image_url", "tags"}
    assert "title is required" in errors["title"]
    assert "is in the past" in errors["scheduled_at"]
    assert "not an absolute http(s) URL" in errors["cover_image_url"]
    assert "at most 50" in errors["tags"]
    assert "Not sent" in composer.result.value
    assert composer.last_post is None
    assert _posts(client, channels["all-hands"]) == []

    composer.title.value = "Fixed title"
    assert composer.errors["title"].value == ""  # editing a field clears its message
    assert composer.errors["cover_image_url"].value != ""


def test_a_wall_time_skipped_by_daylight_saving_is_refused(
    client: Client, channels: dict[str, Channel]
) -> None:
    composer = Composer(client, tz="Europe/Berlin")
    _fill(composer, channels["all-hands"], when=_next_spring_forward_gap())

    composer.schedule_button.click()

    assert "does not exist in Europe/Berlin" in composer.errors["scheduled_at"].value
    assert _posts(client, channels["all-hands"]) == []


def test_urgent_needs_the_confirmation_box(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    composer = Composer(client, tz="Europe/Berlin")
    assert composer.confirm_urgent.layout.display == "none"
    _fill(composer, channels["all-hands"], priority="urgent", when=future_wall)
    assert composer.confirm_urgent.layout.display is None

    composer.schedule_button.click()
    # Plain words: who gets notified, and that their settings do not stop it.
    message = composer.errors["priority"].value
    assert "in All Hands when it publishes, even those who turned notifications off" in message
    assert "confirm_urgent" not in message
    assert "in All Hands at its time, even with notifications off" in (
        composer.confirm_urgent.description
    )
    assert _posts(client, channels["all-hands"]) == []

    composer.confirm_urgent.value = True
    composer.schedule_button.click()
    assert composer.last_post is not None
    assert client.posts.retrieve(composer.last_post.id).priority == "urgent"


def test_pressing_schedule_twice_creates_one_post(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    composer = Composer(client, tz="Europe/Berlin")
    _fill(composer, channels["all-hands"], when=future_wall)

    composer.schedule_button.click()
    composer.schedule_button.click()

    assert _posts(client, channels["all-hands"]) == [composer.last_post.id]  # type: ignore[union-attr]


def test_a_refusal_by_the_service_is_shown_beside_the_field(
    client: Client, channels: dict[str, Channel], future_wall: datetime
) -> None:
    composer = Composer(client, tz="Europe/Berlin")
    _fill(composer, channels["engineering"], when=future_wall)
    # Archived after the form loaded its channels: only the service can say so now.
    client.channels.update(channels["engineering"].id, is_archived=True)

    composer.schedule_button.click()

    assert "channel_id" in composer.errors["channel"].value
    assert "refused" in composer.result.value
    assert composer.last_post is None
    assert composer.schedule_button.disabled is False


def test_channel_list_has_only_channels_one_can_publish_in(
    service: LocalService, client: Client, channels: dict[str, Channel]
) -> None:
    with Client(base_url=service.base_url, api_key=service.create_key(user="bo", team="ops")) as bo:
        bo.channels.create(name="Ops Private", slug="ops-private", visibility="private")
        bo_composer = Composer(bo)
    composer = Composer(client)

    assert [label for label, _ in composer.channel.options] == [
        "All Hands (all-hands)",
        "Engineering (engineering)",
    ]
    assert "Ops Private (ops-private)" in [label for label, _ in bo_composer.channel.options]


def test_preview_is_live_and_sanitised(client: Client, channels: dict[str, Channel]) -> None:
    composer = Composer(client)
    composer.body.value = "# Hello\n\n<script>alert(1)</script> [x](javascript:alert(2))"
    preview = composer.preview.value
    assert "<h1>Hello</h1>" in preview
    assert "<script>" not in preview
    assert "<a " not in preview  # the javascript: link stays text, never a link

    composer.title.value = "<img src=x onerror=alert(3)>"
    assert "<img src=x" not in composer.preview.value
    assert "&lt;img src=x" in composer.preview.value


def test_api_key_never_enters_widget_state(
    service: LocalService,
    admin_key: str,
    client: Client,
    channels: dict[str, Channel],
    future_wall: datetime,
) -> None:
    composer = Composer(client, tz="Europe/Berlin")
    _fill(composer, channels["all-hands"], when=future_wall)
    composer.schedule_button.click()
    states = [json.dumps(dependency_state(composer), default=repr)]
    _fill(composer, channels["all-hands"], title="")
    composer.schedule_button.click()
    states.append(json.dumps(dependency_state(composer), default=repr))
    with Client(base_url=service.base_url, api_key=admin_key + "x") as wrong:
        with pytest.raises(AuthenticationError) as refused:
            Composer(wrong)

    assert composer.last_post is not None and composer.last_post.id in states[0]
    assert "title is required" in states[1]
    assert not any(admin_key in state for state in states)
    assert admin_key not in repr(composer)
    assert admin_key not in str(refused.value)


def test_an_unknown_time_zone_is_a_clear_error(client: Client) -> None:
    with pytest.raises(PostValidationError, match="'Mars/Olympus' is not a time zone"):
        Composer(client, tz="Mars/Olympus")


def test_an_unreachable_service_is_reported_and_the_form_kept(
    service: LocalService, admin_key: str, channels: dict[str, Channel], future_wall: datetime
) -> None:
    with Client(base_url=service.base_url, api_key=admin_key, max_retries=0) as client:
        composer = Composer(client, tz="Europe/Berlin")
        _fill(composer, channels["all-hands"], when=future_wall)
        service.stop()

        assert composer.schedule() is None

    assert composer.result.value.startswith('<div class="ck-not-sent ck-error"')
    assert "Not sent:" in composer.result.value
    assert composer.title.value == "Town hall"  # nothing typed is lost
    assert composer.schedule_button.disabled is False
    assert composer.schedule_button.description == "Schedule"
