"""Shared fixtures live in tests/fixtures/, one module per part that provides them."""

import pytest

pytest_plugins = [
    "fixtures.browser",
    "fixtures.service",
    "fixtures.warehouse",
]


@pytest.fixture(autouse=True)
def _own_ledger(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test its own sent-posts ledger: never the user's, never another test's."""
    folder = tmp_path_factory.mktemp("ledger")
    monkeypatch.setenv("CHANNELKIT_LEDGER", str(folder / "sent-posts.sqlite3"))
