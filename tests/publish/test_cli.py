"""`channelkit template` and `channelkit schedule`: exit codes and messages."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from channelkit.cli import main
from channelkit.client import Client
from channelkit.service import LocalService


@pytest.fixture(autouse=True)
def _short_connection_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    # A refused connection is retried for a minute by default (a deploy may take that long);
    # the "service not running" cases here need the message, not the minute.
    monkeypatch.setenv("CHANNELKIT_CONNECT_RETRY_SECONDS", "1")


H = ["channel", "title", "body", "scheduled_at", "timezone", "priority"]


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CHANNELKIT_API_KEY", "CHANNELKIT_BASE_URL", "CHANNELKIT_TZ"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def live(service: LocalService, admin_key: str) -> Iterator[SimpleNamespace]:
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        client.channels.create(name="All hands")
        client.channels.create(name="Engineering")
        yield SimpleNamespace(
            client=client, args=["--base-url", service.base_url, "--api-key", admin_key]
        )


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(arg) for arg in args])


def _file(tmp_path: Path, sheets: SimpleNamespace, rows: list[list[object]]) -> Path:
    path = tmp_path / "posts.csv"
    path.write_bytes(sheets.csv([H, *rows]))
    return path


GOOD = [
    ["all-hands", "One", "Body", "2030-12-02 09:00", "Europe/Berlin", ""],
    ["engineering", "Two", "Body", "2030-12-02 10:00", "Europe/Berlin", "high"],
]


@pytest.mark.calendar
def test_template_then_dry_run(tmp_path: Path) -> None:
    # The template's example rows are refused as they are: sent unchanged, nothing goes out.
    for name in ("posts.xlsx", "posts.csv"):
        path = tmp_path / name
        result = run("template", path)
        assert result.exit_code == 0, result.output
        assert result.output == (
            f"wrote {path}; replace the example rows with your posts, then: "
            f"channelkit schedule {path}\n"
        )
        assert path.stat().st_mode & 0o044  # for the team, not 0600
        checked = run("schedule", path)
        assert checked.exit_code == 1, checked.output
        example = (
            "title: this is an example row of the template ([EXAMPLE]); replace it with your "
            "own post or delete the row"
        )
        town_hall, release = "[EXAMPLE] Town hall on Thursday", "[EXAMPLE] Release 4.2 is out"
        assert checked.output.splitlines() == [
            f'row 2 ("{town_hall}", all-hands): {example} [title = {town_hall!r}]',
            f'row 3 ("{release}", company-news): {example} [title = {release!r}]',
            f"{name}: 2 rows: 0 ok, 2 with errors, 0 already scheduled",
            "channels and duplicates were not checked: no API key (CHANNELKIT_API_KEY/--api-key)",
        ]
    again = run("template", tmp_path / "posts.xlsx")
    assert again.exit_code == 2
    assert again.output == (
        f"Error: {tmp_path / 'posts.xlsx'} already exists; choose another name or overwrite "
        "it (--force)\n"
    )
    assert run("template", tmp_path / "posts.xlsx", "--force").exit_code == 0
    wrong = run("template", tmp_path / "posts.json")
    assert (wrong.exit_code, wrong.output) == (
        2,
        "Error: posts.json: the template is written as .xlsx or .csv\n",
    )


def test_bad_file_exits_2_with_message(tmp_path: Path) -> None:
    empty = tmp_path / "posts.csv"
    empty.write_bytes(b"")
    result = run("schedule", empty)
    assert result.exit_code == 2
    assert (
        result.output == "Error: posts.csv is empty; start from `channelkit template posts.xlsx`\n"
    )
    missing = run("schedule", tmp_path / "nope.xlsx")
    assert missing.exit_code == 2 and "nope.xlsx: no such file" in missing.output
    assert "Traceback" not in result.output + missing.output


def test_bad_options_exit_2(tmp_path: Path, sheets: SimpleNamespace) -> None:
    path = _file(tmp_path, sheets, GOOD)
    bad_tz = run("schedule", path, "--tz", "Europe/Berlyn")
    assert bad_tz.exit_code == 2
    assert "'Europe/Berlyn' is not a time zone; use an IANA name" in bad_tz.output
    assert "did you mean 'Europe/Berlin'?" in bad_tz.output
    no_key = run("schedule", path, "--submit", "--base-url", "http://127.0.0.1:8000/v1")
    assert no_key.exit_code == 2
    assert "--api-key: no API key given to --submit; set CHANNELKIT_API_KEY" in no_key.output
    no_url = run("schedule", path, "--submit", "--api-key", "k")
    assert no_url.exit_code == 2
    assert "--base-url: no service URL given to --submit" in no_url.output
    partial = run("schedule", path, "--allow-partial")
    assert partial.exit_code == 2 and "--allow-partial only applies with --submit" in partial.output
    results = run("schedule", path, "--results", tmp_path / "out.json")
    assert results.exit_code == 2 and "Invalid value for --results" in results.output
    assert "must end in .xlsx or .csv, e.g. " in results.output


@pytest.mark.calendar
def test_invalid_rows_exit_1_with_row_numbers(
    tmp_path: Path, sheets: SimpleNamespace, live: SimpleNamespace
) -> None:
    rows = [
        GOOD[0],
        ["all-hands", "", "Body", "2030-12-02 09:00", "Europe/Berlin", ""],
        ["all-handz", "Three", "Body", "2030-12-02 11:00", "Europe/Berlin", "urgent"],
    ]
    path = _file(tmp_path, sheets, rows)
    result = run("schedule", path, *live.args)
    assert result.exit_code == 1
    readers = live.client.channels.retrieve(
        next(c.id for c in live.client.channels.list() if c.slug == "all-hands")
    ).subscriber_count
    assert result.output.splitlines() == [
        # Every post it would send: channel with its audience, local time and UTC, title.
        f'row 2: "One" to all-hands (organisation, {readers:,} readers) at 2030-12-02 09:00 '
        "Europe/Berlin (08:00 UTC)",
        # The row's title and channel beside the message, and the offending cell.
        "row 3 (all-hands): title: title is required [title = (blank)]",
        "row 4 (\"Three\", all-handz): channel: no channel 'all-handz' (id, slug or name) "
        "visible to this API key; did you mean 'all-hands'? choices: all-hands, engineering "
        "[channel = 'all-handz']",
        'row 4 ("Three", all-handz): priority: urgent bypasses readers\' notification '
        "preferences; confirm it explicitly (confirm_urgent=True, or --confirm-urgent on the "
        "command line) [priority = 'urgent']",
        "posts.csv: 3 rows: 1 ok, 2 with errors, 0 already scheduled",
    ]
    checked = tmp_path / "check.csv"
    dry = run("schedule", path, "--results", checked, *live.args)
    assert dry.exit_code == 1 and f"results: {checked}" in dry.output
    assert pd.read_csv(checked)["status"].tolist() == ["ok", "error", "error"]
    submitted = run("schedule", path, "--submit", *live.args)
    assert submitted.exit_code == 1
    assert submitted.output.splitlines()[-1] == (
        "Error: nothing was sent: fix the rows above, or send only the valid rows with "
        "--allow-partial"
    )
    assert list(live.client.posts.list()) == []

    failed = tmp_path / "failed.csv"
    partial = run(
        "schedule", path, "--submit", "--allow-partial", "--failed-rows", failed, *live.args
    )
    assert partial.exit_code == 1
    assert "posts.csv: 1 created, 0 already scheduled, 2 invalid (not sent)" in partial.output
    assert f"rows to fix and re-run: {failed}" in partial.output
    assert pd.read_csv(failed)["title"].fillna("").tolist() == ["", "Three"]
    assert len(list(live.client.posts.list())) == 1


@pytest.mark.calendar
def test_submit_then_submit_again(
    tmp_path: Path, sheets: SimpleNamespace, live: SimpleNamespace
) -> None:
    path = _file(tmp_path, sheets, GOOD)
    results = tmp_path / "results.xlsx"
    first = run("schedule", path, "--submit", "--results", results, *live.args)
    assert first.exit_code == 0, first.output
    assert "posts.csv: 2 created, 0 already scheduled" in first.output
    frame = pd.read_excel(results)
    assert frame["status"].tolist() == ["created", "created"]
    again = run("schedule", path, "--submit", *live.args)
    assert again.exit_code == 0
    # Nothing created, and never counted as created: the ledger knows both rows.
    assert "posts.csv: 0 created, 2 already created, 0 already scheduled" in again.output
    ids = frame["post_id"].tolist()
    assert f'row 2 ("One", All hands): already sent as {ids[0]}\n' in again.output
    dry = run("schedule", path, *live.args)
    assert f'row 2: "One" already sent as {ids[0]}: not sent again' in dry.output
    assert "posts.csv: 2 rows: 0 ok, 0 with errors, 0 already scheduled, 2 sent before" in (
        dry.output
    )
    assert len(list(live.client.posts.list())) == 2
    assert live.args[-1] not in first.output + again.output + dry.output


@pytest.mark.calendar
def test_urgent_needs_the_flag(
    tmp_path: Path, sheets: SimpleNamespace, live: SimpleNamespace
) -> None:
    path = _file(
        tmp_path, sheets, [["all-hands", "Alert", "Now", "2030-12-02 09:00", "UTC", "urgent"]]
    )
    assert run("schedule", path, "--submit", *live.args).exit_code == 1
    confirmed = run("schedule", path, "--submit", "--confirm-urgent", *live.args)
    assert confirmed.exit_code == 0, confirmed.output
    assert [post.priority for post in live.client.posts.list()] == ["urgent"]


@pytest.mark.calendar
def test_unreachable_service_is_a_clear_error(tmp_path: Path, sheets: SimpleNamespace) -> None:
    path = _file(tmp_path, sheets, GOOD)
    result = run(
        "schedule", path, "--base-url", "http://127.0.0.1:9/v1", "--api-key", "ck_secret_value"
    )
    assert result.exit_code == 1
    assert result.output.startswith("Error: ")
    assert "ck_secret_value" not in result.output and "Traceback" not in result.output
