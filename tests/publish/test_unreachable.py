"""Every command that talks to the service, with every kind of file, against a service that
is not there: one line naming the failure and its hint, never a traceback."""

from __future__ import annotations

import socket
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from channelkit._cli import ServiceConfig, reach
from channelkit.cli import main
from channelkit.client import Client
from channelkit.errors import APIConnectionError
from channelkit.service import LocalService
from publish.conftest import make_csv, make_xlsx

pytestmark = pytest.mark.calendar

UNREACHABLE = "http://127.0.0.1:9/v1"  # the discard port: nothing listens there
SECRET = "ck_secret_value_never_shown"
ROWS = [
    ["channel", "title", "body", "scheduled_at", "timezone"],
    ["all-hands", "Town hall", "Thursday 10:00", "2030-12-02 09:00", "Europe/Berlin"],
]


@pytest.fixture(autouse=True)
def _short_connection_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CHANNELKIT_CONNECT_RETRY_SECONDS", "1")
    for name in ("CHANNELKIT_API_KEY", "CHANNELKIT_BASE_URL", "CHANNELKIT_TZ"):
        monkeypatch.delenv(name, raising=False)


CALENDAR = [
    [
        "id", "updated_at", "channel", "title", "body", "tags", "priority",
        "scheduled_at (Europe/Berlin)", "status", "action", "exported",
    ],
    [
        "post_0000000000000000000001", "2030-11-01T08:00:00Z", "all-hands", "Town hall",
        "Thursday 10:00", "", "normal", "2030-12-02 09:00", "scheduled", "",
        "2030-11-01T08:00:00Z",
    ],
]  # fmt: skip


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    """A posts CSV, a posts XLSX and a calendar file (it has an id column)."""
    (tmp_path / "posts.csv").write_bytes(make_csv(ROWS))
    (tmp_path / "posts.xlsx").write_bytes(make_xlsx(ROWS))
    (tmp_path / "calendar.csv").write_bytes(make_csv(CALENDAR))
    return {
        "csv": tmp_path / "posts.csv",
        "xlsx": tmp_path / "posts.xlsx",
        "calendar": tmp_path / "calendar.csv",
    }


_SERVICE = ["--base-url", UNREACHABLE, "--api-key", SECRET]


def _commands(path: Path, out: Path) -> dict[str, list[str]]:
    return {
        "schedule (dry run)": ["schedule", str(path), *_SERVICE],
        "schedule --submit": ["schedule", str(path), "--submit", *_SERVICE],
        "schedule --results": [
            "schedule", str(path), "--submit", "--results", str(out / "results.csv"), *_SERVICE,
        ],
        "schedule --slots": [
            "schedule", str(path), "--slots", "mon-fri 09:00", "--tz", "UTC", *_SERVICE,
        ],
    }  # fmt: skip


@pytest.mark.parametrize("kind", ["csv", "xlsx", "calendar"])
@pytest.mark.parametrize(
    "command", ["schedule (dry run)", "schedule --submit", "schedule --results", "schedule --slots"]
)
def test_every_file_kind_against_an_unreachable_service(
    kind: str, command: str, files: dict[str, Path], tmp_path: Path
) -> None:
    args = _commands(files[kind], tmp_path)[command]
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert result.exit_code == 1, result.output
    error = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert len(error) == 1, result.output
    assert "connect" in error[0].lower() or "refused" in error[0].lower(), result.output
    assert "hint: is the service running?" in result.output
    assert "Traceback" not in result.output and SECRET not in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["calendar", "export", "{out}/cal.xlsx", "--from", "2030-12-01", "--to", "2030-12-31"],
        ["sync", "--db", "{out}/wh.duckdb"],
        ["report", "--sync", "--db", "{out}/wh.duckdb", "--out", "{out}/r.html"],
    ],
    ids=["calendar export", "sync", "report --sync"],
)
def test_every_other_command_against_an_unreachable_service(
    args: list[str], tmp_path: Path
) -> None:
    result = CliRunner().invoke(main, [a.format(out=tmp_path) for a in args] + _SERVICE)
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    assert "is the service running?" in result.output
    assert "Traceback" not in result.output and SECRET not in result.output
    assert not any(path.suffix in {".xlsx", ".html"} for path in tmp_path.iterdir())


def _closed_port() -> str:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = int(sock.getsockname()[1])
    sock.close()
    return f"http://127.0.0.1:{port}/v1"


@pytest.mark.parametrize("command", [["sync", "--db", "{out}/wh.duckdb"], ["schedule", "{csv}",
                                     "--submit"]], ids=["sync", "schedule --submit"])  # fmt: skip
def test_a_refused_first_request_fails_within_3_s_naming_the_address(
    command: list[str], files: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing listens there: a wrong --base-url or no service, which the minute of
    connection retries (kept for a service that restarts mid-run) would only hide."""
    monkeypatch.delenv("CHANNELKIT_CONNECT_RETRY_SECONDS")
    url = _closed_port()
    args = [a.format(out=tmp_path, csv=files["csv"]) for a in command]
    started = time.monotonic()
    result = CliRunner().invoke(main, [*args, "--base-url", url, "--api-key", SECRET])
    assert time.monotonic() - started <= 3.0
    assert result.exit_code == 1, result.output
    assert f"the service could not be reached at {url}: " in result.output
    assert "check --base-url" in result.output
    assert "Connection refused" in result.output and SECRET not in result.output


@pytest.mark.parametrize("command", [["sync", "--db", "{out}/wh.duckdb"], ["schedule", "{csv}",
                                     "--submit"]], ids=["sync", "schedule --submit"])  # fmt: skip
def test_a_port_that_never_answers_is_said_at_once_then_fails_after_the_read_timeout(
    command: list[str], files: dict[str, Path], tmp_path: Path
) -> None:
    with socket.socket() as listening:  # accepts connections (the backlog), answers nothing
        listening.bind(("127.0.0.1", 0))
        listening.listen(8)
        url = f"http://127.0.0.1:{listening.getsockname()[1]}/v1"
        args = [a.format(out=tmp_path, csv=files["csv"]) for a in command]
        result = CliRunner().invoke(
            main, [*args, "--base-url", url, "--api-key", SECRET, "--read-timeout", "1.5"]
        )
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    waiting = "no answer yet; waiting up to 1.5 s (the read timeout, --read-timeout)"
    assert lines[0].endswith(f"cannot reach {url}: {waiting}"), result.output
    assert f"no answer from {url} within 1.5 s (the read timeout)" in result.output
    assert "--read-timeout" in lines[-1] or "--read-timeout" in result.output


def test_a_connection_refused_later_prints_one_line_when_the_first_retry_starts() -> None:
    said: list[str] = []
    service = LocalService().start()
    key = service.create_key(user="ann", team="comms", plan="enterprise")
    with Client(service.base_url, key, connection_retry_budget=1.0) as client:
        reach(client, ServiceConfig(service.base_url, key), said.append)
        assert said == []
        service.stop()  # a restart that does not come back within the budget
        with pytest.raises(APIConnectionError, match="connection_retry_budget is 1 s"):
            client.posts.list(limit=1).first_page()
    assert said == [f"cannot reach {client.base_url}: retrying for up to 1 s"]
