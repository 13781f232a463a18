"""Shared fixtures live in tests/fixtures/, one module per part that provides them."""

import os

import pytest

pytest_plugins = [
    "fixtures.browser",
    "fixtures.clock",
    "fixtures.receivers",
    "fixtures.service",
    "fixtures.warehouse",
]


@pytest.fixture(autouse=True)
def _own_ledger(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test its own sent-posts ledger: never the user's, never another test's."""
    folder = tmp_path_factory.mktemp("ledger")
    monkeypatch.setenv("CHANNELKIT_LEDGER", str(folder / "sent-posts.sqlite3"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the calendar run (tests/calendar_run.py) Python travels but Chromium keeps the
    real time: the browser tests are left out there."""
    if not os.environ.get("CHANNELKIT_TRAVEL"):
        return
    skip = pytest.mark.skip(reason="the calendar run: Chromium keeps the real time")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)
