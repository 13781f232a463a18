"""`calendar export --layout` resolves its --tz once, at the command line's edge."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from channelkit import _tz
from channelkit.cli import main
from channelkit.client import Client
from channelkit.service import LocalService

pytestmark = pytest.mark.calendar


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every name `_tz` resolves from now on: `load_zone` (the one resolver every entry and
    every `time_zone` goes through) asks `_tz._zone` for each name it is given."""
    asked: list[str] = []
    resolve: Callable[[str], ZoneInfo | None] = _tz._zone

    def counted(name: str) -> ZoneInfo | None:
        asked.append(name)
        return resolve(name)

    monkeypatch.setattr(_tz, "_zone", counted)
    return asked


def test_layout_export_resolves_its_zone_once(
    service: LocalService, admin_key: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in ("CHANNELKIT_API_KEY", "CHANNELKIT_BASE_URL", "CHANNELKIT_TZ"):
        monkeypatch.delenv(name, raising=False)
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        news = client.channels.create(name="Company News", slug="news")
        for day in ("2031-03-02", "2031-03-03"):
            client.posts.create(
                channel_id=news.id, title="Hi", body="Body", scheduled_at=f"{day}T09:00:00Z"
            )
    path = tmp_path / "hootsuite.csv"
    args = ["calendar", "export", str(path), "--from", "2031-03-01", "--to", "2031-04-01"]
    args += ["--tz", "Europe/Berlin", "--layout", "hootsuite", "--date-order", "dmy"]
    asked = _counting(monkeypatch)
    done = CliRunner().invoke(main, [*args, "--base-url", service.base_url, "--api-key", admin_key])
    assert done.exit_code == 0, done.output
    assert "wrote 2 posts" in done.output  # the zone was used, not skipped
    assert asked == ["Europe/Berlin"]
