"""Holds among colleagues and across an upgrade (issue 45.5), over real HTTP with a pinned
clock: the calendar cannot give a held post a time without naming the holder (or taking it
out of the hold when asked, which the hold record then shows), marks written by the
previous version (`held:<time>:<since>:<by>`) are held, listed and released like current
ones, and `channelkit hold/release` refuse a naive --from/--to without a zone. That no
post ever leaves draft with a mark is checked after every test (fixtures/service.py)."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.client import Client
from channelkit.client.models import Post
from channelkit.publish.calendar.round_trip import calendar_export
from channelkit.publish.hold.holding import held_posts, hold, release
from channelkit.publish.hold.mark import HoldMark
from channelkit.publish.hold.record import HoldBook
from channelkit.publish.post.ledger import service_address
from channelkit.service import LocalService
from fixtures.service import marked_out_of_draft

NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
AT = NOW + timedelta(days=2, hours=3)  # the post's time: 2026-12-09 12:00 UTC


Live = tuple[LocalService, Client, Post, list[str]]


@pytest.fixture
def live() -> Iterator[Live]:
    """A pinned clock, the local service, a client, one post scheduled at AT in All hands
    and the service flags of the commands."""
    with time_machine.travel(NOW, tick=True), LocalService(admin=True) as service:
        key = service.create_key(user="ann", plan="enterprise")
        flags = ["--base-url", service.base_url, "--api-key", key]
        client = Client(service.base_url, key)
        channel = client.channels.create(name="All hands")
        post = client.posts.create(
            channel_id=channel.id, title="Parking closed", body="Level -2.", tags=["facilities"],
            scheduled_at=AT,
        )  # fmt: skip
        with client:
            yield service, client, post, flags


def _calendar_with_a_new_time(client: Client, path: Path, when: datetime) -> None:
    """The calendar exported now, its one row given `when` as someone would in a sheet."""
    calendar_export(path, start=NOW, end=NOW + timedelta(days=10), tz="UTC", client=client)
    with path.open(newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 1 and rows[0]["tags"] == "facilities"  # no mark shown or typed back
    rows[0]["scheduled_at (UTC)"] = f"{when:%Y-%m-%d %H:%M}"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_a_held_post_given_a_time_in_the_calendar_is_refused_naming_the_holder(
    live: Live, tmp_path: Path
) -> None:
    service, client, post, flags = live
    assert [p.post_id for p in hold(client, by="ann").held] == [post.id]
    path = tmp_path / "cal.csv"
    _calendar_with_a_new_time(client, path, AT + timedelta(hours=1))
    args = ["schedule", str(path), *flags]
    refused = CliRunner().invoke(main, [*args, "--submit"])
    assert refused.exit_code == 1, refused.output
    assert "held by ann (channelkit hold; its time 2026-12-09 12:00 UTC)" in refused.output
    assert "--take-out-of-hold" in refused.output and "nothing was sent" in refused.output
    assert [p.post_id for p in held_posts(client)] == [post.id]  # still held, still a draft

    taken = CliRunner().invoke(main, [*args, "--submit", "--take-out-of-hold"])
    assert taken.exit_code == 0, taken.output
    assert "taken out of the hold: held by ann" in taken.output
    now = client.posts.retrieve(post.id)
    assert now.status == "scheduled" and now.scheduled_at == AT + timedelta(hours=1)
    assert now.tags == ["facilities"]  # the mark went in the same request
    assert held_posts(client) == []
    with HoldBook.open() as book:
        record = book.record(service_address(service.base_url), post.id)
    assert record is not None and record.state == "released"
    assert record.note is not None
    assert record.note.startswith("taken out of the hold from the calendar cal.csv by ")
    done = release(client)  # the holder's release finds nothing left to put back
    assert (done.released, done.left, done.missed) == ((), (), ())


def test_publish_now_of_a_held_post_is_refused_too(live: Live, tmp_path: Path) -> None:
    service, client, post, flags = live
    hold(client, by="bob")
    path = tmp_path / "cal.csv"
    calendar_export(path, start=NOW, end=NOW + timedelta(days=10), tz="UTC", client=client)
    text = path.read_text(encoding="utf-8-sig").splitlines()
    header = text[0].split(",")
    cells = next(csv.reader([text[1]]))
    cells[header.index("action")] = "publish-now"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([header, cells])
    args = ["schedule", str(path), *flags]
    result = CliRunner().invoke(main, [*args, "--submit", "--yes"])
    assert result.exit_code == 1 and "held by bob" in result.output, result.output
    assert client.posts.retrieve(post.id).status == "draft"


def test_a_mark_of_the_previous_version_is_held_listed_and_released(
    live: Live,
) -> None:
    """What the version before the check wrote (git log -p hold.py, issue 30.1):
    `held:<scheduled time>:<held since>:<by>`, the post moved to draft."""
    service, client, post, flags = live
    old = "held:20261209T120000Z:20261207T090000Z:ann"
    client.posts.update(post.id, status="draft", tags=["facilities", old])
    mark = HoldMark.current(client.posts.retrieve(post.id))
    assert mark is not None and (mark.scheduled_at, mark.by) == (AT, "ann")
    assert mark.since == NOW  # the held-since the old mark carries
    listed = held_posts(client)
    assert [(p.post_id, p.scheduled_at, p.by, p.since) for p in listed] == [
        (post.id, AT, "ann", NOW)
    ]
    status = CliRunner().invoke(
        main,
        ["hold", "--status", *flags],
    )
    assert status.exit_code == 0 and "1 post held" in status.output, status.output
    assert "by ann since 2026-12-07 09:00" in status.output
    again = hold(client, by="bob")  # held already: not held twice, not re-marked
    assert [p.post_id for p in again.already] == [post.id] and again.held == ()
    done = release(client)
    assert [(p.post_id, when) for p, when in done.released] == [(post.id, AT)]
    back = client.posts.retrieve(post.id)
    assert (back.status, back.scheduled_at, back.tags) == ("scheduled", AT, ["facilities"])


def test_an_old_mark_among_others_or_on_a_moved_draft_is_no_hold() -> None:
    """Without a check, an old mark counts only as a draft's only mark at its time."""
    old = "held:20261209T120000Z:20261207T090000Z:ann"
    draft = Post(id="post_1", channel_id="chan_1", title="T", body="B", status="draft",
                 tags=[old])  # fmt: skip
    assert HoldMark.current(draft) is not None
    two = draft.model_copy(update={"tags": [old, old.replace("ann", "bob")]})
    moved = draft.model_copy(update={"scheduled_at": AT + timedelta(hours=1)})
    scheduled = draft.model_copy(update={"status": "scheduled", "scheduled_at": AT})
    assert [HoldMark.current(p) for p in (two, moved, scheduled)] == [None, None, None]


@pytest.mark.parametrize("command", ["hold", "release"])
def test_the_cli_refuses_a_naive_from_or_to_without_a_zone(
    command: str, live: Live, monkeypatch: pytest.MonkeyPatch
) -> None:
    service, client, post, flags = live
    monkeypatch.delenv("CHANNELKIT_TZ", raising=False)
    args = [command, *flags]
    for flag in ("--from", "--to"):
        result = CliRunner().invoke(main, [*args, flag, "2026-12-09 09:00"])
        assert result.exit_code == 2, result.output
        assert "has no time zone" in result.output and "Traceback" not in result.output
    assert client.posts.retrieve(post.id).status == "scheduled"  # nothing held
    zoned = CliRunner().invoke(main, [*args, "--from", "2026-12-09 09:00", "--tz", "UTC"])
    assert zoned.exit_code == 0, zoned.output


def test_the_check_after_every_test_finds_a_mark_out_of_draft(
    live: Live,
) -> None:
    """The teardown check (fixtures/service.py) can fail: a mark put on a scheduled post
    through the bare API is found; removed again so that this test passes."""
    service, client, post, flags = live
    client.posts.update(post.id, tags=["held:20261209T120000Z:abcdef:ann"])
    assert marked_out_of_draft(service) == [
        (post.id, "scheduled", "held:20261209T120000Z:abcdef:ann")
    ]
    client.posts.update(post.id, tags=[])
    assert marked_out_of_draft(service) == []
