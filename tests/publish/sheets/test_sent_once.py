"""Sent once, whatever happened since: the issue's scenario over the real command line and
the local service with its movable clock, then the same from `ck.schedule` and the composer.

sheet → submit → calendar edit of two posts (a title, a time) → +25 h (past the service's
idempotency window) → the sheet again, by the same key and by another: nothing is created,
and the dry run names both edited rows as sent before, with what changed.
"""

from __future__ import annotations

import csv
import os
import signal
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner, Result
from openpyxl import load_workbook

from channelkit.cli import main
from channelkit.client import Client
from channelkit.publish import load_spreadsheet, schedule
from channelkit.publish.post.ledger import default_path, service_address
from channelkit.service import LocalService

pytestmark = pytest.mark.calendar

BERLIN = ZoneInfo("Europe/Berlin")
TITLES = ("Town hall", "Release 4.3 is out", "Canteen menu", "Parking works", "Quiz night")


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(arg) for arg in args])


def _day(offset: int) -> datetime:
    today = datetime.now(BERLIN).replace(hour=9, minute=0, second=0, microsecond=0)
    return (today + timedelta(days=offset)).replace(tzinfo=None)


def _sheet(path: Path) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["channel", "title", "body", "scheduled_at"])
        for number, title in enumerate(TITLES):
            writer.writerow(
                ["all-hands", title, f"About {title}.", f"{_day(3 + number):%Y-%m-%d %H:%M}"]
            )
    return path


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CHANNELKIT_API_KEY", "CHANNELKIT_BASE_URL", "CHANNELKIT_TZ"):
        monkeypatch.delenv(name, raising=False)


def test_sheet_submit_calendar_edit_then_the_sheet_again_a_day_later(tmp_path: Path) -> None:
    sheet = _sheet(tmp_path / "posts.csv")
    with LocalService(admin=True) as service:
        ann = service.create_key(user="ann", team="comms", plan="enterprise")
        bob = service.create_key(user="bob", team="comms", plan="enterprise")
        with Client(service.base_url, ann) as client:
            client.channels.create(name="All hands")
        base = ["--base-url", service.base_url, "--tz", "Europe/Berlin"]

        results = tmp_path / "results.csv"
        first = run("schedule", sheet, "--submit", "--results", results, "--api-key", ann, *base)
        assert first.exit_code == 0, first.output
        assert "posts.csv: 5 created, 0 already scheduled" in first.output
        with results.open(encoding="utf-8") as handle:
            written = list(csv.DictReader(handle))
        ids = [row["post_id"] for row in written]
        # The local time in a column named with its zone, beside UTC.
        assert written[0]["scheduled_at (Europe/Berlin)"] == f"{_day(3):%Y-%m-%d %H:%M}"
        assert written[0]["scheduled_at_utc"].endswith("Z")

        # The calendar: a new title for the first post, a new time for the second.
        cal = tmp_path / "cal.xlsx"
        span = ["--from", f"{_day(0):%Y-%m-%d}", "--to", f"{_day(20):%Y-%m-%d}"]
        assert run("calendar", "export", cal, *span, "--api-key", ann, *base).exit_code == 0
        workbook = load_workbook(cal)
        table = workbook.active
        assert table is not None
        headers = [cell.value for cell in table[1]]
        by_id = {table.cell(r, 1).value: r for r in range(2, table.max_row + 1)}
        table.cell(by_id[ids[0]], headers.index("title") + 1, "Town hall, new room")
        table.cell(
            by_id[ids[1]],
            headers.index("scheduled_at (Europe/Berlin)") + 1,
            f"{_day(4):%Y-%m-%d} 15:30",
        )
        workbook.save(cal)
        dry_cal = run("schedule", cal, "--api-key", ann, *base)
        assert "3 rows unchanged (--verbose lists them)" in dry_cal.output, dry_cal.output
        assert "title: Town [-hall-] {+hall, new room+}" in dry_cal.output, dry_cal.output
        applied = run("schedule", cal, "--submit", "--api-key", ann, *base)
        assert applied.exit_code == 0, applied.output

        service.advance_clock(25 * 3600)  # past the service's 24-hour idempotency window
        for key in (ann, bob):  # the same machine, any key
            dry = run("schedule", sheet, "--api-key", key, *base)
            assert dry.exit_code == 0, dry.output
            assert (
                f'row 2: "Town hall" already sent as {ids[0]} (changed since: title): '
                "not sent again"
            ) in dry.output
            assert (
                f'row 3: "Release 4.3 is out" already sent as {ids[1]} (changed since: time): '
                "not sent again"
            ) in dry.output
            assert "posts.csv: 5 rows: 0 ok, 0 with errors, 0 already scheduled, 5 sent before" in (
                dry.output
            )
            again = run(
                "schedule", sheet, "--submit", "--results", results, "--api-key", key, *base
            )
            assert again.exit_code == 0, again.output
            assert "posts.csv: 0 created, 5 already created, 0 already scheduled" in again.output
            with results.open(encoding="utf-8") as handle:
                now = list(csv.DictReader(handle))
            # The results show each post as it is now, not as the sheet says.
            assert now[0]["title"] == "Town hall, new room"
            assert now[1]["scheduled_at (Europe/Berlin)"] == f"{_day(4):%Y-%m-%d} 15:30"
            assert [row["status"] for row in now] == ["already_created"] * 5
        with Client(service.base_url, ann) as client:
            assert sorted(post.id for post in client.posts.list()) == sorted(ids)


def test_the_same_cell_and_the_same_form_a_day_after_an_edit_create_nothing(
    tmp_path: Path,
) -> None:
    from channelkit.widgets import Composer

    with LocalService(admin=True) as service:
        ann = service.create_key(user="ann", team="comms", plan="enterprise")
        bob = service.create_key(user="bob", team="comms", plan="enterprise")
        with Client(service.base_url, ann) as client:
            channel = client.channels.create(name="All hands")
            cell = {
                "channel": "all-hands",
                "title": "Town hall",
                "body": "Join us.",
                "at": f"{_day(3):%Y-%m-%d %H:%M}",
                "tz": "Europe/Berlin",
            }
            post = schedule(**cell, client=client)  # type: ignore[arg-type]
            assert post.sent_before is None
            composer = Composer(client, tz="Europe/Berlin")
            composer.channel.value = channel.id
            composer.title.value, composer.body.value = "Quiz night", "Bring a team."
            composer.when.value = _day(4)
            made = composer.schedule()
            assert made is not None
            client.posts.update(post.id, title="Town hall, moved")
            client.posts.update(made.id, scheduled_at=_day(5).replace(tzinfo=BERLIN))
        service.advance_clock(25 * 3600)
        for key in (ann, bob):
            with Client(service.base_url, key) as client:
                again = schedule(**cell, client=client)  # type: ignore[arg-type]
                assert again.id == post.id and again.title == "Town hall, moved"
                assert again.sent_before == f"already sent as {post.id} (changed since: title)"
                assert "Nothing created: already sent as" in again._repr_html_()
                form = Composer(client, tz="Europe/Berlin")
                form.channel.value = channel.id
                form.title.value, form.body.value = "Quiz night", "Bring a team."
                form.when.value = _day(4)
                assert form.schedule() is None
                assert f"already sent as {made.id} (changed since: time)" in form.result.value
                assert len(list(client.posts.list())) == 2


def test_a_kill_between_send_and_record_never_creates_twice(tmp_path: Path) -> None:
    """The ledger holds every row as pending before its request leaves: a process killed
    with SIGKILL mid-submission, re-run after the idempotency window, creates the rest."""
    rows = [
        ["all-hands", f"Post {n}", f"Body {n}", f"{_day(3):%Y-%m-%d} {n % 24:02d}:{n // 24:02d}"]
        for n in range(40)
    ]
    path = tmp_path / "posts.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["channel", "title", "body", "scheduled_at"], *rows])
    script = (
        "import os, signal, sys\n"
        "from channelkit.client import Client\n"
        "from channelkit.publish import load_spreadsheet\n"
        "def stop(done, total):\n"
        "    if done == 10:\n"
        "        os.kill(os.getpid(), signal.SIGKILL)\n"
        "with Client(sys.argv[1], sys.argv[2]) as client:\n"
        "    load_spreadsheet(sys.argv[3], tz='Europe/Berlin').submit(client, progress=stop)\n"
    )
    with LocalService(admin=True) as service:
        key = service.create_key(user="ann", team="comms", plan="enterprise")
        with Client(service.base_url, key) as client:
            client.channels.create(name="All hands")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        killed = subprocess.run(
            [sys.executable, "-c", script, service.base_url, key, str(path)],
            env=env,
            timeout=120,
            check=False,
        )
        assert killed.returncode == -signal.SIGKILL
        with Client(service.base_url, key) as client:
            created_before = len(list(client.posts.list()))
        with sqlite3.connect(default_path()) as ledger:  # the file, as the next run finds it
            states = [
                state
                for (state,) in ledger.execute(
                    "SELECT state FROM sent WHERE service = ?", [service_address(service.base_url)]
                )
            ]
        # Every row was recorded before anything was sent; none recorded as created yet.
        assert len(states) == 40 and set(states) == {"pending"}
        assert created_before >= 10
        service.advance_clock(25 * 3600)  # no idempotency key helps any more
        with Client(service.base_url, key) as client:
            result = load_spreadsheet(path, tz="Europe/Berlin").submit(client, progress=False)
            counts = result.counts()
            assert counts.get("created", 0) == 40 - created_before, counts
            # the posts the killed run made carry their rows' origin tags: found, not resent
            assert counts.get("already_created", 0) == created_before
            assert len(list(client.posts.list())) == 40
