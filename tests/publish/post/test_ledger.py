"""The sent-posts ledger, the word diff, likely duplicates on the service and the calendar
dry run that lists changes only."""

from __future__ import annotations

import csv
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.client import Client
from channelkit.errors import ChannelkitError
from channelkit.publish.post.ledger import Ledger, default_path, service_address
from channelkit.publish.post.validation import PostRequest
from channelkit.publish.post.word_diff import word_diff
from channelkit.service import LocalService


def _request(title: str = "Town hall", when: str = "2030-01-07T09:00:00") -> PostRequest:
    return PostRequest(
        channel_id="chan_1",
        title=title,
        body="Join us.",
        priority="normal",
        tags=("hr",),
        scheduled_at=datetime.fromisoformat(when).replace(tzinfo=UTC),
        cover_image_url=None,
    )


def test_service_address_ignores_case_credentials_and_a_trailing_slash() -> None:
    assert service_address("HTTPS://user:secret@API.Example.com:8443/v1/") == (
        "https://api.example.com:8443/v1"
    )
    assert service_address("http://127.0.0.1:8000/v1") != service_address(
        "http://127.0.0.1:8001/v1"
    )


@pytest.mark.calendar
def test_pending_then_created_per_service_never_per_key(tmp_path: Path) -> None:
    request = _request()
    one, two = "http://a.example/v1", "http://b.example/v1"
    with Ledger.open(tmp_path / "ledger.sqlite3") as ledger:
        ledger.pending(one, [(request, "posts.csv row 2")])
        entry = ledger.lookup(one, [request.fingerprint()])[request.fingerprint()]
        assert (entry.state, entry.post_id, entry.source) == ("pending", None, "posts.csv row 2")
        assert entry.idempotency_key == request.idempotency_key(one)
        assert entry.sent["title"] == "Town hall" and entry.sent["scheduled_at"].endswith("Z")
        ledger.created(one, [(request.fingerprint(), "post_1")])
        ledger.pending(one, [(request, "again.csv row 9")])  # a second pending keeps the first
        assert ledger.lookup(one, [request.fingerprint()])[request.fingerprint()].post_id == (
            "post_1"
        )
        assert ledger.lookup(two, [request.fingerprint()]) == {}  # another service
    # Durable: another process (here: another connection) finds it.
    with Ledger.open(tmp_path / "ledger.sqlite3") as again:
        assert again.lookup(one, [request.fingerprint()])[request.fingerprint()].state == "created"


def test_keys_derive_from_content_and_service_only() -> None:
    request, moved = _request(), _request(when="2030-01-07T10:00:00")
    assert request.idempotency_key("http://a/v1") == _request().idempotency_key("http://a/v1")
    assert request.idempotency_key("http://a/v1") != request.idempotency_key("http://b/v1")
    assert request.fingerprint() != moved.fingerprint()


def test_an_unusable_ledger_file_is_one_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("CHANNELKIT_LEDGER", str(blocker / "ledger.sqlite3"))
    assert default_path() == blocker / "ledger.sqlite3"
    with pytest.raises(
        ChannelkitError, match="cannot open the sent-posts ledger .*CHANNELKIT_LEDGER"
    ):
        Ledger.open()


@pytest.mark.parametrize(
    ("old", "new", "shown"),
    [
        (
            "Reminder: update your emergency contact details",
            "Reminder: update your emergency contact details by Friday",
            "… your emergency contact details {+by Friday+}",
        ),
        ("Town hall", "Town hall online", "Town hall {+online+}"),
        ("Old title", "New title", "[-Old-] {+New+} title"),
        ("a  b", "a b", "only spaces or line breaks changed"),
        (
            " ".join(f"w{n}" for n in range(100)),
            " ".join(f"w{n}" if n != 50 else "CHANGED" for n in range(100)),
            "… w46 w47 w48 w49 [-w50-] {+CHANGED+} w51 w52 w53 w54 …",
        ),
    ],
)
def test_word_diff_shows_the_words_that_changed(old: str, new: str, shown: str) -> None:
    assert word_diff(old, new) == shown


def _csv(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["channel", "title", "body", "scheduled_at"], *rows])
    return path


@pytest.mark.calendar
def test_a_likely_duplicate_from_another_machine_is_warned_then_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    when = datetime.now(UTC) + timedelta(days=3)
    sheet = _csv(
        tmp_path / "posts.csv",
        [
            ["all-hands", "Town hall", "Join us.", f"{when:%Y-%m-%d} 09:00"],
            ["all-hands", "Quiz night", "Bring a team.", f"{when:%Y-%m-%d} 18:00"],
        ],
    )
    with LocalService() as service:
        key = service.create_key(user="ann", team="comms", plan="enterprise")
        args = ["--base-url", service.base_url, "--api-key", key, "--tz", "UTC"]
        with Client(service.base_url, key) as client:
            channel = client.channels.create(name="All hands")
            # A colleague on another machine sent the same posts; then one was moved by a day
            # and the other retitled and moved by two hours: neither is "the same post at the
            # same place" any more (retitled at the same minute, it would be refused).
            moved = client.posts.create(
                channel_id=channel.id,
                title="Town hall",
                body="Join us.",
                scheduled_at=when.replace(hour=9, minute=0, second=0, microsecond=0)
                + timedelta(days=1),
            )
            renamed = client.posts.create(
                channel_id=channel.id,
                title="Quiz night at 6",
                body="Bring a team.",
                scheduled_at=when.replace(hour=20, minute=0, second=0, microsecond=0),
            )
        monkeypatch.setenv("CHANNELKIT_LEDGER", str(tmp_path / "this-machine.sqlite3"))
        dry = CliRunner().invoke(main, ["schedule", str(sheet), *args])
        assert dry.exit_code == 0, dry.output
        assert (
            "warning: row 2: would be refused: likely already on the service as "
            f'{moved.id} ("Town hall", '
            f"{moved.scheduled_at:%Y-%m-%d %H:%M} UTC): same title and body; --submit sends it "
            "only with --allow-duplicates"
        ) in dry.output
        assert f"row 3: likely already on the service as {renamed.id}" in dry.output
        assert "same body; check it is not the same post" in dry.output
        refused = CliRunner().invoke(main, ["schedule", str(sheet), "--submit", *args])
        assert refused.exit_code == 1, refused.output
        assert "posts.csv: 1 created, 0 already scheduled, 1 not sent" in refused.output
        assert "--allow-duplicates sends it" in refused.output
        allowed = CliRunner().invoke(
            main, ["schedule", str(sheet), "--submit", "--allow-duplicates", *args]
        )
        assert allowed.exit_code == 0, allowed.output
        assert "posts.csv: 1 created, 1 already created, 0 already scheduled" in allowed.output
        with Client(service.base_url, key) as client:
            assert len(list(client.posts.list())) == 4


@pytest.mark.calendar
def test_the_calendar_dry_run_lists_changes_only(tmp_path: Path) -> None:
    start = datetime.now(UTC) + timedelta(days=3)
    long_body = " ".join(f"word{n}" for n in range(80))
    with LocalService() as service:
        key = service.create_key(user="ann", team="comms", plan="enterprise")
        args = ["--base-url", service.base_url, "--api-key", key, "--tz", "UTC"]
        with Client(service.base_url, key) as client:
            channel = client.channels.create(name="All hands")
            for number in range(6):
                client.posts.create(
                    channel_id=channel.id,
                    title=f"Reminder: update your emergency contact details, part {number}",
                    body=long_body,
                    scheduled_at=start + timedelta(days=number),
                )
        cal = tmp_path / "cal.csv"
        span = [f"{start:%Y-%m-%d}", f"{start + timedelta(days=10):%Y-%m-%d}"]
        exported = CliRunner().invoke(
            main, ["calendar", "export", str(cal), "--from", span[0], "--to", span[1], *args]
        )
        assert exported.exit_code == 0, exported.output
        with cal.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.reader(handle))
        body = rows[0].index("body")
        rows[2][body] = long_body.replace("word40", "WORD40")
        with cal.open("w", encoding="utf-8", newline="") as handle:
            csv.writer(handle).writerows(rows)
        dry = CliRunner().invoke(main, ["schedule", str(cal), *args])
        assert dry.exit_code == 0, dry.output
        lines = dry.output.splitlines()
        changed = [line for line in lines if line.startswith("row ")]
        assert len(changed) == 1, dry.output
        assert changed[0].endswith(
            "update: body: … word36 word37 word38 word39 [-word40-] {+WORD40+} word41 word42 "
            "word43 word44 …"
        )
        assert "5 rows unchanged (--verbose lists them)" in lines
        verbose = CliRunner().invoke(main, ["schedule", str(cal), "--verbose", *args])
        assert sum(1 for line in verbose.output.splitlines() if ": unchanged" in line) == 5
