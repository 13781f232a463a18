"""What is about to go out (`report --upcoming`, a `deliver` entry with `upcoming`), against
the local service and its clock, delivered once a day to a real HTTP receiver."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.client import Client
from channelkit.reports.deliver.config import load_config
from channelkit.reports.deliver.run import deliver
from channelkit.service import LocalService
from channelkit.storage.connection import open_warehouse

pytestmark = pytest.mark.calendar


@pytest.fixture
def planned() -> Iterator[tuple[LocalService, str]]:
    """A service with posts scheduled 1, 20 and 40 hours ahead and a draft."""
    with LocalService(admin=True) as service:
        key = service.create_key(user="ann", team="comms", plan="enterprise")
        now = service.now()
        with Client(service.base_url, key) as client:
            channel = client.channels.create(name="All hands")
            for hours, title in ((1, "Town hall <today>"), (20, "Menu"), (40, "Quiz night")):
                client.posts.create(
                    channel_id=channel.id,
                    title=title,
                    body="Body",
                    scheduled_at=now + timedelta(hours=hours),
                )
            draft = client.posts.create(
                channel_id=channel.id,
                title="Draft",
                body="Body",
                scheduled_at=now + timedelta(hours=2),
            )
            client.posts.update(draft.id, status="draft")
        yield service, key


def _report(service: LocalService, key: str, out: Path) -> Any:
    env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_API_KEY": key}
    args = ["report", "--upcoming", "36h", "--tz", "Europe/Berlin", "--out", str(out)]
    return CliRunner().invoke(main, args, env=env)


def test_the_next_36_hours_in_local_time_with_channel_audience_and_author(
    planned: tuple[LocalService, str], tmp_path: Path
) -> None:
    service, key = planned
    result = _report(service, key, tmp_path / "upcoming.html")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "2 posts scheduled in the next 36 hours"
    assert lines[1].endswith("Europe/Berlin")
    assert "all-hands (organisation, " in lines[2] and "Town hall <today>  (by ann" in lines[2]
    assert "Menu" in lines[3] and len(lines) == 4
    page = (tmp_path / "upcoming.html").read_text(encoding="utf-8")
    assert "Town hall &lt;today&gt;" in page and "Quiz night" not in page
    service.advance_clock(24 * 3600)  # a day later: the first two are out, the third is due
    later = _report(service, key, tmp_path / "upcoming.html")
    assert later.output.splitlines()[0] == "1 post scheduled in the next 36 hours"
    assert "Quiz night" in later.output


def test_upcoming_takes_no_period(planned: tuple[LocalService, str], tmp_path: Path) -> None:
    service, key = planned
    env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_API_KEY": key}
    args = ["report", "--upcoming", "36h", "--period", "week", "--out", str(tmp_path / "u.html")]
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code == 2 and "--upcoming takes --tz, --channel and --out, not --period" in (
        result.output
    )


@pytest.fixture
def received() -> Iterator[tuple[str, list[Any]]]:
    bodies: list[Any] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            bodies.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/hook", bodies
    server.shutdown()
    server.server_close()


def test_the_digest_is_delivered_once_a_day(
    planned: tuple[LocalService, str],
    received: tuple[str, list[Any]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    service, key = planned
    url, bodies = received
    monkeypatch.setenv("CHANNELKIT_BASE_URL", service.base_url)
    monkeypatch.setenv("CHANNELKIT_API_KEY", key)
    config_file = tmp_path / "deliver.toml"
    config_file.write_text(
        '[[reports]]\nname = "morning"\nupcoming = "36h"\ntz = "Europe/Berlin"\n'
        f'webhooks = [{{ url = "{url}", kind = "json" }}]\n',
        encoding="utf-8",
    )
    db = tmp_path / "warehouse.duckdb"
    open_warehouse(db, read_only=False).close()  # it keeps the delivery ledger
    env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_API_KEY": key}
    runs = [
        CliRunner().invoke(main, ["deliver", str(config_file), "--db", str(db)], env=env)
        for _ in range(2)
    ]
    assert [r.exit_code for r in runs] == [0, 0], [r.output for r in runs]
    assert ": sent: upcoming " in runs[0].output and ": already sent: upcoming " in runs[1].output
    assert len(bodies) == 1
    assert [p["title"] for p in bodies[0]["posts"]] == ["Town hall <today>", "Menu"]
    assert bodies[0]["posts"][0]["author"] == "ann"
    tomorrow = service.now() + timedelta(days=1)
    outcomes = deliver(load_config(config_file), db, now=tomorrow)
    assert [o.status for o in outcomes] == ["sent"] and len(bodies) == 2
    assert [p["title"] for p in bodies[1]["posts"]] == ["Quiz night"]
