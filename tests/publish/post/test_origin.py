"""A row is sent once whatever colleagues edit (issue 45.4): every post carries its row's
origin tag, so the same sheet from a colleague's fresh ledger, a day or a month later,
finds each post however retitled, rewritten, moved or published, over real HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import time_machine
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.client import Client
from channelkit.publish import load_spreadsheet
from channelkit.publish.cell import schedule
from channelkit.publish.post.origin import origin_tag, origins
from channelkit.service import LocalService
from publish.conftest import make_csv

HEADER = ["channel", "title", "body", "scheduled_at"]
START = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)  # the first submit; the rows are 40 days on
DAY = timedelta(days=1)


def _at(days: int, hour: int) -> str:
    return f"{(START + days * DAY).replace(hour=hour):%Y-%m-%d %H:%M}"


ROWS = [
    ["all-hands", "Parking closed", "Level -2.", _at(40, 8)],  # retitled and moved an hour
    ["all-hands", "Canteen menu", "Soup.", _at(40, 12)],  # rewritten
    ["all-hands", "Quiz night", "Bring a team.", _at(40, 18)],  # published at once
]


@pytest.fixture
def clock() -> Iterator[time_machine.Coordinates]:
    """This process and the in-process service at START, ticking."""
    with time_machine.travel(START, tick=True) as travel:
        yield travel


def _fresh_ledger(monkeypatch: pytest.MonkeyPatch, folder: Path, name: str) -> None:
    monkeypatch.setenv("CHANNELKIT_LEDGER", str(folder / f"{name}.sqlite3"))


def test_the_same_row_is_its_channel_title_body_and_time() -> None:
    """What "the same row" means (docs/publishing.md): spacing and case aside; nothing of
    priority, tags, cover or who sends it; another channel, text or time is another row."""
    at = START + 40 * DAY
    tag = origin_tag("chan_1", "Parking closed", "Level -2.", at)
    assert tag.startswith("sent-by-channelkit:") and len(tag) == 31  # 50 a tag may have
    assert origin_tag("chan_1", "  parking  CLOSED ", "Level\n-2.", at) == tag
    others = [
        origin_tag("chan_2", "Parking closed", "Level -2.", at),
        origin_tag("chan_1", "Parking open", "Level -2.", at),
        origin_tag("chan_1", "Parking closed", "Level -1.", at),
        origin_tag("chan_1", "Parking closed", "Level -2.", at + timedelta(seconds=1)),
        origin_tag("chan_1", "Parking closed", "Level -2.", None),
    ]
    assert tag not in others and len(set(others)) == len(others)


def test_a_colleagues_fresh_ledger_a_day_and_a_month_later_creates_nothing(
    clock: time_machine.Coordinates, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "posts.csv"
    path.write_bytes(make_csv([HEADER, *ROWS]))
    with LocalService(admin=True) as service:
        ann = service.create_key(user="ann", team="comms", plan="enterprise")
        bob = service.create_key(user="bob", team="comms", plan="enterprise")
        with Client(service.base_url, ann) as client:
            client.channels.create(name="All hands")
            sent = load_spreadsheet(path, tz="UTC").submit(client, progress=False)
            assert sent.counts() == {"created": 3}
            parking, canteen, quiz = (str(row.post_id) for row in sent.rows)
            moved = client.posts.retrieve(parking).scheduled_at
            assert moved is not None
            client.posts.update(
                parking, title="Garage level -2 closed", scheduled_at=moved + timedelta(hours=1)
            )
            client.posts.update(canteen, body="Soup and salad, all week.")
            client.posts.update(quiz, status="published")

        clock.shift(DAY)  # a day later, on bob's laptop: his key, his own empty ledger
        _fresh_ledger(monkeypatch, tmp_path, "bob")
        env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_TZ": "UTC"}
        dry = CliRunner().invoke(main, ["schedule", str(path), "--api-key", bob], env=env)
        assert dry.exit_code == 0, dry.output
        said = [line for line in dry.output.splitlines() if "already sent as" in line]
        assert said == [
            f'row 2: "Parking closed" already sent as {parking} (changed since: title, time): '
            "not sent again",
            f'row 3: "Canteen menu" already sent as {canteen} (changed since: body): '
            "not sent again",
            f'row 4: "Quiz night" already sent as {quiz} (changed since: time, published): '
            "not sent again",
        ], dry.output
        assert "would be refused" not in dry.output and "check it is not" not in dry.output
        again = CliRunner().invoke(
            main, ["schedule", str(path), "--submit", "--api-key", bob], env=env
        )
        assert again.exit_code == 0, again.output
        assert "posts.csv: 0 created" in again.output, again.output

        clock.shift(30 * DAY)  # a month later, a third machine, from a cell
        _fresh_ledger(monkeypatch, tmp_path, "carol")
        with Client(service.base_url, bob) as client:
            plan = load_spreadsheet(path, tz="UTC").check_against(client)
            assert plan.counts()["sent"] == 3
            cell = schedule(
                channel="all-hands", title="Parking closed", body="Level -2.",
                at=ROWS[0][3], tz="UTC", client=client,
            )  # fmt: skip
            assert cell.id == parking and cell.title == "Garage level -2 closed"
            assert cell.sent_before == f"already sent as {parking} (changed since: title, time)"
            posts = list(client.posts.list())
        assert len(posts) == 3
        assert all(len(origins(post.tags)) == 1 for post in posts)


def test_the_duplicate_guard_still_warns_of_rows_that_are_not_the_same_row(
    clock: time_machine.Coordinates, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A colleague's own row that only looks like a post on the service (its retitled
    title, another body, a day away) is no row of the sheet: warned of, not 'already sent'."""
    path = tmp_path / "posts.csv"
    path.write_bytes(make_csv([HEADER, ROWS[0]]))
    theirs = tmp_path / "theirs.csv"
    theirs.write_bytes(
        make_csv([HEADER, ["all-hands", "Garage level -2 closed", "Use level -1.", _at(41, 9)]])
    )
    with LocalService(admin=True) as service:
        ann = service.create_key(user="ann", team="comms", plan="enterprise")
        with Client(service.base_url, ann) as client:
            client.channels.create(name="All hands")
            post = load_spreadsheet(path, tz="UTC").submit(client, progress=False).rows[0]
            client.posts.update(str(post.post_id), title="Garage level -2 closed")
        clock.shift(DAY)
        _fresh_ledger(monkeypatch, tmp_path, "bob")
        env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_TZ": "UTC"}
        dry = CliRunner().invoke(main, ["schedule", str(theirs), "--api-key", ann], env=env)
        assert dry.exit_code == 0, dry.output
        assert "already sent" not in dry.output
        assert f"row 2: likely already on the service as {post.post_id}" in dry.output
        assert "check it is not the same post" in dry.output


@pytest.mark.calendar
def test_channelkits_marks_are_refused_as_typed_tags(tmp_path: Path) -> None:
    path = tmp_path / "posts.csv"
    path.write_bytes(
        make_csv(
            [
                [*HEADER, "tags"],
                ["all-hands", "A", "B", _at(40, 9), "sent-by-channelkit:abcdefabcdef"],
                ["all-hands", "C", "D", _at(40, 10), "held:20261209T120000Z:abcdef:ann"],
            ]
        )
    )
    plan = load_spreadsheet(path, tz="UTC")
    assert [row.status for row in plan.rows] == ["error", "error"]
    assert all("is channelkit's own mark" in row.message for row in plan.rows)
