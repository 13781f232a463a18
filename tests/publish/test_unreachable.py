"""Every command that talks to the service, with every kind of file, against a service that
is not there: one line naming the failure and its hint, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from publish.conftest import make_csv, make_xlsx

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
