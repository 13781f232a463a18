"""A key that may read but not write: the dry run names the missing scope, and `--submit`
sends nothing, for posts files and calendar files, against the local service."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.client import Client
from channelkit.service import LocalService
from publish.conftest import make_csv

READ_ONLY = ("posts:read", "channels:read", "analytics:read")  # the demo's analyst
CALENDAR_HEADER = [
    "id", "updated_at", "channel", "title", "body", "tags", "priority", "scheduled_at (UTC)",
    "status", "action", "exported",
]  # fmt: skip


@pytest.fixture(autouse=True)
def _no_ambient_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CHANNELKIT_API_KEY", "CHANNELKIT_BASE_URL", "CHANNELKIT_TZ"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("kind", ["posts", "calendar"])
def test_a_key_without_posts_write_is_named_and_nothing_is_sent(
    kind: str, service: LocalService, admin_key: str, tmp_path: Path
) -> None:
    with Client(base_url=service.base_url, api_key=admin_key) as admin:
        admin.channels.create(name="All hands")
        reader = service.create_key(user="ana", team="comms", scopes=READ_ONLY)
        row = ["all-hands", "Town hall", "Thursday", "2030-12-02 09:00"]
        if kind == "posts":
            rows = [["channel", "title", "body", "scheduled_at", "timezone"], [*row, "UTC"]]
        else:  # a new row (no id) in a calendar file: a create
            rows = [CALENDAR_HEADER, ["", "", *row[:3], "", "normal", row[3], "", "", ""]]
        path = tmp_path / f"{kind}.csv"
        path.write_bytes(make_csv(rows))
        flags = ["--base-url", service.base_url, "--api-key", reader]

        dry = CliRunner().invoke(main, ["schedule", str(path), *flags])
        assert dry.exit_code == 1, dry.output
        assert "lacks the posts:write scope" in dry.output
        assert "add --submit" not in dry.output

        sent = CliRunner().invoke(main, ["schedule", str(path), "--submit", *flags])
        assert sent.exit_code == 1, sent.output
        assert "Error: nothing was sent: this API key lacks the posts:write scope" in sent.output
        assert "403" not in sent.output  # refused before any row was tried
        assert list(admin.posts.list()) == []

        writer = CliRunner().invoke(
            main, ["schedule", str(path), *flags[:2], "--api-key", admin_key]
        )
        assert writer.exit_code == 0, writer.output
        assert "posts:write" not in writer.output
