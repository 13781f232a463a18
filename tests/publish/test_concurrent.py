"""Two colleagues submitting one file at once, each with their own key: the copies are
reported, and resolving them leaves exactly one scheduled post per row."""

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
def test_two_concurrent_submitters_end_with_one_post_per_row(tmp_path: Path) -> None:
    data = _file()
    with LocalService() as service:
        ann = service.create_key(user="ann", team="comms", plan="enterprise")
        bob = service.create_key(user="bob", team="comms", plan="enterprise")
        with Client(service.base_url, ann) as client:
            client.channels.create(name="All hands")
        start = threading.Barrier(2)
        outcomes: dict[str, SubmitResult] = {}
        finished: list[str] = []

        def submit(name: str, key: str) -> None:
            plan = load_spreadsheet(data, filename="posts.csv", tz="UTC")
            with Client(service.base_url, key) as client:
                start.wait()
                outcomes[name] = plan.submit(client, progress=False)
            finished.append(name)

        threads = [
            threading.Thread(target=submit, args=pair) for pair in (("ann", ann), ("bob", bob))
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

        with Client(service.base_url, ann) as client:
            before = _scheduled(client)
        assert len(before) == ROWS and sum(before.values()) > ROWS  # the race did happen
        twice = sum(before.values()) - ROWS
        second = outcomes[finished[1]]
        assert all(row.status in ("created", "exists") for row in second.rows)
        # The second submitter's summary names every copy, with its row.
        assert sum(len(group.copies) for group in second.duplicates) == twice
        assert all(not group.resolved for group in second.duplicates)
        assert second.duplicates[0].describe().startswith(f"row {second.duplicates[0].rows[0]} (")

        # A plain re-run (any key) creates nothing, names the copies and exits 1 ...
        path = tmp_path / "posts.csv"
        path.write_bytes(data)
        env = {"CHANNELKIT_BASE_URL": service.base_url, "CHANNELKIT_TZ": "UTC"}
        rerun = CliRunner().invoke(
            main, ["schedule", str(path), "--submit", "--api-key", bob], env=env
        )
        assert rerun.exit_code == 1, rerun.output
        assert f"0 created, {ROWS} already scheduled" in rerun.output
        assert rerun.output.count("duplicate: row ") == len(second.duplicates)
        assert "--resolve-duplicates" in rerun.output
        # ... and --resolve-duplicates keeps exactly one copy of each.
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
        assert len(after) == ROWS and set(after.values()) == {1} and drafts == twice


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
def test_two_concurrent_command_lines_and_the_second_summary_names_the_copies(
    tmp_path: Path,
) -> None:
    """`channelkit schedule --submit` twice at once, in two processes, with Starter keys:
    each needs several rate-limit windows to send 200 rows, so both check for duplicates
    before either is done and the copies are real."""
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
                [*command, "--api-key", key], env=env, stdout=subprocess.PIPE, text=True
            )
            for key in keys
        ]
        finished: list[tuple[int, str]] = []
        for run in runs:
            output, _ = run.communicate(timeout=240)
            finished.append((run.returncode, output))
        with Client(service.base_url, keys[0]) as client:
            copies = sum(_scheduled(client).values()) - ROWS
        assert copies > 0, "the two submissions did not overlap"
        # Both runs report the copies they saw; the later one sees all of them.
        outputs = [output for _, output in finished]
        assert all(code == 1 for code, _ in finished), outputs
        assert max(output.count("duplicate: row ") for output in outputs) == copies
        resolved = subprocess.run(
            [*command, "--resolve-duplicates", "--api-key", keys[1]],
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
            check=False,
        )
        assert resolved.returncode == 0, resolved.stdout + resolved.stderr
        with Client(service.base_url, keys[0]) as client:
            assert set(_scheduled(client).values()) == {1} and len(_scheduled(client)) == ROWS
