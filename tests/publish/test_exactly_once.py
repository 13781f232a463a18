"""Exactly once with fractions of a second: a rerun by another key, after the service's
idempotency window has passed, finds every row already scheduled and creates nothing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.client import Client
from channelkit.publish import load_spreadsheet
from channelkit.service import LocalService
from publish.conftest import make_csv, make_xlsx

pytestmark = pytest.mark.calendar

HEADER = ["channel", "title", "body", "scheduled_at"]


def _start() -> datetime:
    # Three days ahead: still in the future after the service clock moves 25 hours.
    return (datetime.now(UTC) + timedelta(days=3)).replace(tzinfo=None, minute=0, second=0)


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
def test_rerun_by_another_key_after_25_hours_creates_nothing(
    kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    start = _start()
    if kind == "csv":
        times: list[object] = [
            f"{start + timedelta(hours=n):%Y-%m-%d %H:%M}:30.{n + 1}" for n in range(6)
        ]
    else:  # Excel datetimes with milliseconds, as pasted =NOW() values give
        times = [start + timedelta(hours=n, seconds=30, milliseconds=137 * n + 1) for n in range(6)]
    rows = [["all-hands", f"Post {n}", f"Body {n}", when] for n, when in enumerate(times)]
    build = make_csv if kind == "csv" else make_xlsx
    data = build([HEADER, *rows])
    with LocalService(admin=True) as service:
        first = service.create_key(user="ann", team="comms", plan="enterprise")
        second = service.create_key(user="bob", team="comms", plan="enterprise")
        with Client(service.base_url, first) as client:
            client.channels.create(name="All hands")
            plan = load_spreadsheet(data, filename=f"posts.{kind}", tz="UTC")
            assert plan.is_valid, plan.errors
            assert all(
                row.request and row.request.scheduled_at.microsecond == 0 for row in plan.rows
            )  # type: ignore[union-attr]
            done = plan.submit(client, progress=False)
            assert done.counts() == {"created": 6}
        service.advance_clock(25 * 3600)  # past the 24-hour idempotency window
        with Client(service.base_url, second) as client:
            again = load_spreadsheet(data, filename=f"posts.{kind}", tz="UTC").submit(
                client, progress=False
            )
            assert again.counts() == {"already_created": 6} and not again.duplicates
            # Another machine (its own, empty ledger) finds them scheduled as they are.
            monkeypatch.setenv("CHANNELKIT_LEDGER", str(tmp_path / "elsewhere.sqlite3"))
            elsewhere = load_spreadsheet(data, filename=f"posts.{kind}", tz="UTC").submit(
                client, progress=False
            )
            assert elsewhere.counts() == {"exists": 6} and not elsewhere.duplicates
            posts = list(client.posts.list())
        assert len(posts) == 6 and {p.status for p in posts} == {"scheduled"}
        assert sorted(p.id for p in posts) == sorted(r.post_id for r in again.rows)  # type: ignore[misc]
        assert sorted(p.id for p in posts) == sorted(r.post_id for r in elsewhere.rows)  # type: ignore[misc]


def test_rows_differing_below_a_second_are_one_row_error_not_a_409() -> None:
    start = _start()
    rows = [
        ["all-hands", "Town hall", "Body", f"{start:%Y-%m-%d %H:%M}:30.1"],
        ["all-hands", "Town hall", "Body", f"{start:%Y-%m-%d %H:%M}:30.9"],
    ]
    plan = load_spreadsheet(make_csv([HEADER, *rows]), filename="posts.csv", tz="UTC")
    assert [row.status for row in plan.rows] == ["ok", "error"]
    assert (
        plan.rows[1].message == "title: same channel, title and time as row 2; remove one of them"
    )
    assert (
        plan.rows[0].request.idempotency_key()
        == load_spreadsheet(  # type: ignore[union-attr]
            make_csv([HEADER, [*rows[0][:3], f"{start:%Y-%m-%d %H:%M}:30"]]),
            filename="posts.csv",
            tz="UTC",
        )
        .rows[0]
        .request.idempotency_key()
    )  # type: ignore[union-attr]


def test_a_second_ledger_after_calendar_edits_and_25_hours_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sheet sent again a day later from another machine, after two posts were
    retitled and one moved by a day: each row's body is still on the service nearby, so
    every row is refused as the same post, whatever its title (issue 30.3)."""
    start = _start()
    bodies = [f"Post {n}: the canteen menu for the holidays, soup and salad all week."
              for n in range(3)]  # fmt: skip
    rows = [["all-hands", f"Post {n}", bodies[n], f"{start + timedelta(hours=n):%Y-%m-%d %H:%M}"]
            for n in range(3)]  # fmt: skip
    path = tmp_path / "posts.csv"
    path.write_bytes(make_csv([HEADER, *rows]))
    with LocalService(admin=True) as service:
        key = service.create_key(user="ann", team="comms", plan="enterprise")
        with Client(service.base_url, key) as client:
            client.channels.create(name="All hands")
            sent = load_spreadsheet(path, tz="UTC").submit(client, progress=False)
            assert sent.counts() == {"created": 3}
            ids = [row.post_id for row in sent.rows]
            client.posts.update(str(ids[0]), title="Post 0 (new title)")
            client.posts.update(str(ids[1]), title="Post 1, retitled")
            moved = client.posts.retrieve(str(ids[2])).scheduled_at
            assert moved is not None
            client.posts.update(str(ids[2]), scheduled_at=moved + timedelta(days=1))
        service.advance_clock(25 * 3600)
        monkeypatch.setenv("CHANNELKIT_LEDGER", str(tmp_path / "laptop.sqlite3"))
        env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_TZ": "UTC"}
        dry = CliRunner().invoke(main, ["schedule", str(path), "--api-key", key], env=env)
        assert dry.output.count("would be refused: likely already on the service") == 3
        again = CliRunner().invoke(
            main, ["schedule", str(path), "--submit", "--api-key", key], env=env
        )
        assert again.exit_code == 1, again.output
        assert "posts.csv: 0 created" in again.output and "3 not sent" in again.output
        with Client(service.base_url, key) as client:
            assert len(list(client.posts.list())) == 3


def test_a_far_future_row_is_a_one_line_row_error(tmp_path: Path) -> None:
    path = tmp_path / "posts.csv"
    path.write_bytes(make_csv([HEADER, ["all-hands", "Town hall", "Body", "9999-12-30 10:00"]]))
    with LocalService(admin=True) as service:
        key = service.create_key(user="ann", team="comms", plan="enterprise")
        with Client(service.base_url, key) as client:
            client.channels.create(name="All hands")
        env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_TZ": "UTC"}
        for extra in ([], ["--submit"]):
            result = CliRunner().invoke(main, ["schedule", str(path), *extra, "--api-key", key],
                                        env=env)  # fmt: skip
            assert result.exit_code == 1 and "Traceback" not in result.output, result.output
            errors = [line for line in result.output.splitlines() if "9999-12-30" in line]
            assert errors == [
                'row 2 ("Town hall", all-hands): scheduled_at: 9999-12-30 10:00 UTC is more '
                "than 10 years ahead; check the year [scheduled_at = '9999-12-30 10:00']"
            ], result.output
