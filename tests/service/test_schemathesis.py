"""schemathesis against the live service: every check, on every operation and statefully.

The service answers 400 to schema-valid data that breaks a rule a schema cannot state (an
unknown channel, a time not in the future, a blank title), so 400 counts as an accepted
answer for `positive_data_acceptance`; every other check runs with its defaults.
"""

from __future__ import annotations

import atexit
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from channelkit.service import LocalService
from channelkit.service.db import Database
from channelkit.service.openapi import openapi_document
from channelkit.service.workspace import create_key

MAX_EXAMPLES = 25


def _workspace_with_key() -> tuple[Path, str]:
    # schemathesis builds its coverage cases, auth included, when tests are collected: the
    # key must exist then, so it is made in a file the live service opens later
    folder = tempfile.mkdtemp(prefix="channelkit-fuzz-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    path = Path(folder) / "service.sqlite"
    db = Database.open(path)
    with db.transaction() as con:
        key = create_key(
            con, user="fuzzer", team="qa", scopes=("posts:read", "posts:write", "channels:read",
            "channels:write", "analytics:read"), plan="enterprise", now=db.now(),
        )  # fmt: skip
    db.close()
    return path, key


DB_PATH, KEY = _workspace_with_key()

schema = schemathesis.openapi.from_dict(
    openapi_document(),
    config=schemathesis.Config.from_dict(
        {
            "auth": {"openapi": {"bearerAuth": {"bearer": KEY}}},
            "generation": {"max-examples": MAX_EXAMPLES},
            "checks": {
                "positive_data_acceptance": {"expected-statuses": ["2xx", "400", "404", "409"]}
            },
        }
    ),
)


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    # a short rate window: the fuzzers send far more than 1000 requests a minute
    with LocalService(db=str(DB_PATH), rate_window=0.05) as service:
        yield service.base_url


@schema.parametrize()
@settings(deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation(case: schemathesis.Case, base_url: str) -> None:
    # the service's port is known only now, after collection
    case.call_and_validate(base_url=base_url)


def _empty_workspace() -> None:
    """Remove every channel, post and idempotency record (keys and users stay)."""
    con = sqlite3.connect(DB_PATH, isolation_level=None)
    con.executescript(
        "BEGIN IMMEDIATE; DELETE FROM post_daily; DELETE FROM post_tags; DELETE FROM posts;"
        " DELETE FROM channel_members; DELETE FROM channels;"
        " DELETE FROM workspace_idempotency; COMMIT;"
    )
    con.close()


def test_stateful(base_url: str) -> None:
    schema.config.update(base_url=base_url)

    class Machine(schema.as_state_machine()):  # type: ignore[misc]
        def setup(self) -> None:
            # Hypothesis replays shared beginnings of scenarios and needs them to unfold
            # the same way again: so every scenario starts from the same empty workspace
            _empty_workspace()

    Machine.run(
        settings=settings(
            max_examples=MAX_EXAMPLES,
            stateful_step_count=6,
            deadline=None,
            suppress_health_check=list(HealthCheck),
        )
    )
