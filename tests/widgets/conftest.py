"""Fixtures of the widget tests: an admin client on a fresh service, with a few channels."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from channelkit.client import Channel, Client
from channelkit.service import LocalService

BERLIN = "Europe/Berlin"


@pytest.fixture
def client(service: LocalService, admin_key: str) -> Iterator[Client]:
    with Client(base_url=service.base_url, api_key=admin_key) as own:
        yield own


@pytest.fixture
def channels(client: Client) -> dict[str, Channel]:
    """`all-hands` and `engineering` (open), `old-news` (archived), by slug."""
    made = {
        slug: client.channels.create(name=name, slug=slug)
        for slug, name in (
            ("all-hands", "All Hands"),
            ("engineering", "Engineering"),
            ("old-news", "Old News"),
        )
    }
    made["old-news"] = client.channels.update(made["old-news"].id, is_archived=True)
    return made


@pytest.fixture
def future_wall() -> datetime:
    """A naive wall time three days from now at 09:00, meant to be read in Berlin."""
    today = datetime.now(ZoneInfo(BERLIN)).replace(tzinfo=None)
    return (today + timedelta(days=3)).replace(hour=9, minute=0, second=0, microsecond=0)
