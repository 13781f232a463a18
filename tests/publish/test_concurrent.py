"""Two colleagues submitting one file at once, each with their own key: each post is
created once. Copies made otherwise are reported, and resolving them leaves one."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.client import Client
from channelkit.publish import SubmitResult, load_spreadsheet
from channelkit.service import LocalService
from publish.conftest import make_csv

ROWS = 200


def _file() -> bytes:
    header = ["channel", "title", "body", "scheduled_at"]
    rows = [
        ["all-hands", f"Post {n}", f"Body {n}", f"2030-03-{1 + n // 24:02d} {n % 24:02d}:00:00.5"]
        for n in range(ROWS)
    ]
    return make_csv([header, *rows])


def _scheduled(client: Client) -> Counter[tuple[str, str]]:
    return Counter(
        (post.title, f"{post.scheduled_at}")
        for post in client.posts.list()
        if post.status == "scheduled"
    )


@pytest.mark.slow
def test_two_concurrent_submitters_with_two_keys_create_each_post_once() -> None:
    """Idempotency keys derive from the row and the service, and the service scopes them
    to the workspace: the second submitter's creates are replays, never copies."""
    data = _file()
    with LocalService() as service:
        ann = service.create_key(user="ann", team="comms", plan="enterprise")
        bob = service.create_key(user="bob", team="comms", plan="enterprise")
        with Client(service.base_url, ann) as client:
            client.channels.create(name="All hands")
        start = threading.Barrier(2)
        outcomes: dict[str, SubmitResult] = {}

        def submit(name: str, key: str) -> None:
            plan = load_spreadsheet(data, filename="posts.csv", tz="UTC")
            with Client(service.base_url, key) as client:
                start.wait()
                outcomes[name] = plan.submit(client, progress=False)

        threads = [
            threading.Thread(target=submit, args=pair) for pair in (("ann", ann), ("bob", bob))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with Client(service.base_url, ann) as client:
            scheduled = _scheduled(client)
    assert len(scheduled) == ROWS and set(scheduled.values()) == {1}
    for outcome in outcomes.values():
        assert outcome.ok and not outcome.duplicates, outcome.counts()
    # Every row's post is the same post in both summaries.
    ids = [{row.number: row.post_id for row in outcome.rows} for outcome in outcomes.values()]
    assert ids[0] == ids[1]


def test_copies_made_by_hand_are_named_and_resolved(tmp_path: Path) -> None:
    """Copies the keys cannot prevent (created with other idempotency keys, as an old
    client would): a re-run names them and exits 1, --resolve-duplicates keeps one each."""
    header = ["channel", "title", "body", "scheduled_at"]
    rows = [["all-hands", f"Post {n}", f"Body {n}", f"2030-03-0{n + 1} 09:00"] for n in range(3)]
    path = tmp_path / "posts.csv"
    path.write_bytes(make_csv([header, *rows]))
    with LocalService() as service:
        ann = service.create_key(user="ann", team="comms", plan="enterprise")
        with Client(service.base_url, ann) as client:
            channel = client.channels.create(name="All hands")
            for n in range(3):
                for copy in range(2):
                    client.posts.create(
                        channel_id=channel.id,
                        title=f"Post {n}",
                        body=f"Body {n}",
                        scheduled_at=f"2030-03-0{n + 1}T09:00:00Z",
                        idempotency_key=f"old-client-{n}-{copy}",
                    )
        env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_TZ": "UTC"}
        rerun = CliRunner().invoke(
            main, ["schedule", str(path), "--submit", "--api-key", ann], env=env
        )
        assert rerun.exit_code == 1, rerun.output
        assert "0 created" in rerun.output and rerun.output.count("duplicate: row ") == 3
        assert "--resolve-duplicates" in rerun.output
        resolved = CliRunner().invoke(
            main,
            ["schedule", str(path), "--submit", "--resolve-duplicates", "--api-key", ann],
            env=env,
        )
        assert resolved.exit_code == 0, resolved.output
        assert "moved" in resolved.output and "back to draft" in resolved.output
        with Client(service.base_url, ann) as client:
            after = _scheduled(client)
            drafts = sum(1 for post in client.posts.list() if post.status == "draft")
    assert len(after) == 3 and set(after.values()) == {1} and drafts == 3


def test_dry_run_warns_when_copies_are_already_scheduled(tmp_path: Path) -> None:
    header = ["channel", "title", "body", "scheduled_at"]
    row = ["all-hands", "Town hall", "Body", "2030-03-01 09:00"]
    path = tmp_path / "posts.csv"
    path.write_bytes(make_csv([header, row]))
    with LocalService() as service:
        key = service.create_key(user="ann", team="comms", plan="enterprise")
        with Client(service.base_url, key) as client:
            channel = client.channels.create(name="All hands")
            for n in range(2):  # two copies, as two submitters would leave them
                client.posts.create(
                    channel_id=channel.id,
                    title="Town hall",
                    body="Body",
                    scheduled_at="2030-03-01T09:00:00Z",
                    idempotency_key=f"copy-{n}",
                )
        env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_TZ": "UTC"}
        dry = CliRunner().invoke(main, ["schedule", str(path), "--api-key", key], env=env)
    assert dry.exit_code == 0, dry.output
    assert 'warning: row 2 ("Town hall", ' in dry.output and "2 copies scheduled" in dry.output
    assert "--resolve-duplicates keeps one" in dry.output


@pytest.mark.slow
def test_two_concurrent_command_lines_on_two_machines_create_each_post_once(
    tmp_path: Path,
) -> None:
    """`channelkit schedule --submit` twice at once, in two processes with their own
    ledgers (two machines) and Starter keys: each needs several rate-limit windows to send
    200 rows, so both pass the duplicate check before either is done; the workspace-scoped
    idempotency keys make the second create of each row a replay."""
    path = tmp_path / "posts.csv"
    path.write_bytes(_file())
    with LocalService(rate_window=2.0) as service:
        keys = [
            service.create_key(user=user, team="comms", plan="starter") for user in ("ann", "bob")
        ]
        with Client(service.base_url, keys[0]) as client:
            client.channels.create(name="All hands")
        env = {
            **os.environ,
            "CHANNELKIT_BASE_URL": service.base_url,
            "CHANNELKIT_TZ": "UTC",
            "PYTHONPATH": os.pathsep.join(sys.path),
        }
        command = [sys.executable, "-m", "channelkit", "schedule", str(path), "--submit"]
        runs = [
            subprocess.Popen(
                [*command, "--api-key", key],
                env={**env, "CHANNELKIT_LEDGER": str(tmp_path / f"ledger-{number}.sqlite3")},
                stdout=subprocess.PIPE,
                text=True,
            )
            for number, key in enumerate(keys)
        ]
        finished = [(run.communicate(timeout=240)[0], run.returncode) for run in runs]
        with Client(service.base_url, keys[0]) as client:
            scheduled = _scheduled(client)
    assert all(code == 0 for _, code in finished), finished
    assert not any("duplicate: row " in output for output, _ in finished)
    assert len(scheduled) == ROWS and set(scheduled.values()) == {1}


@pytest.mark.parametrize("runs", [2, 3])
def test_the_created_counts_of_simultaneous_runs_add_up_to_the_posts_created(runs: int) -> None:
    """Each run counts a row another run created meanwhile as "already created" (the
    service marks the replay), so the "created" counts sum to the posts on the service."""
    header = ["channel", "title", "body", "scheduled_at"]
    rows = [["all-hands", f"Post {n}", f"Body {n}", f"2030-04-01 {n % 24:02d}:{n:02d}"]
            for n in range(60)]  # fmt: skip
    data = make_csv([header, *rows])
    with LocalService() as service:
        keys = [service.create_key(user=f"u{n}", team="comms", plan="enterprise")
                for n in range(runs)]  # fmt: skip
        with Client(service.base_url, keys[0]) as client:
            client.channels.create(name="All hands")
        start = threading.Barrier(runs)
        outcomes: list[SubmitResult] = []

        def submit(key: str) -> None:
            plan = load_spreadsheet(data, filename="posts.csv", tz="UTC")
            with Client(service.base_url, key) as client:
                start.wait()
                outcomes.append(plan.submit(client, progress=False))

        threads = [threading.Thread(target=submit, args=(key,)) for key in keys]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        with Client(service.base_url, keys[0]) as client:
            posts = len(list(client.posts.list()))
    assert posts == 60 and len(outcomes) == runs
    counts = [outcome.counts() for outcome in outcomes]
    assert sum(c.get("created", 0) for c in counts) == posts, counts
    assert all(c.get("created", 0) + c.get("already_created", 0) == 60 for c in counts), counts
