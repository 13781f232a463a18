"""Shared fixtures live in tests/fixtures/, one module per part that provides them."""

import os
from collections.abc import Iterator
from pathlib import Path

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


CHECKOUT = Path(__file__).resolve().parents[1]
# The tools' caches in the working folder: ruff's and mypy's (tests/test_quality.py runs
# them there), Hypothesis's example database, pytest's; each ignored by git
TOOL_CACHES = frozenset({".mypy_cache", ".ruff_cache", ".hypothesis", ".pytest_cache"})


@pytest.fixture(autouse=True)
def _leaves_no_file_in_the_checkout() -> Iterator[None]:
    """A test writes under its tmp_path, never beside the sources: a file it leaves in the
    checkout's folder (a command run with its default --db in the working folder, say)
    fails it, named. The root alone is watched: what a run writes by default lands there."""
    if os.environ.get("CHANNELKIT_TRAVEL"):
        # The calendar run shares the checkout with the suite running beside it (.ci/run):
        # a file one of them has open for a moment would be blamed on the other's test.
        # The suite checks every test; the calendar run repeats some of them.
        yield
        return
    before = set(os.listdir(CHECKOUT))
    yield
    left = sorted(set(os.listdir(CHECKOUT)) - before - TOOL_CACHES)
    if left:
        pytest.fail(f"the test left {', '.join(left)} in {CHECKOUT}", pytrace=False)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """In the calendar run (tests/calendar_run.py) Python travels but Chromium keeps the
    real time: the browser tests are left out there."""
    if not os.environ.get("CHANNELKIT_TRAVEL"):
        return
    skip = pytest.mark.skip(reason="the calendar run: Chromium keeps the real time")
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)
