"""Alerts are recorded before they are sent: a refused one is tried again, a watcher killed
with -9 while alerting sends on its next run what had not been taken, once."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import time_machine

from channelkit._job_runs import record, runs_path
from channelkit.watch.config import load_watch
from channelkit.watch.state import load
from channelkit.watch.watcher import watch_once
from fixtures.receivers import Receiver, SmtpServer

ROOT = Path(__file__).resolve().parents[2]
FAILED_AT = datetime(2027, 3, 29, 6, 2, tzinfo=UTC)  # a Monday's 06:00 sync, failed


def _watch_file(tmp_path: Path, smtp: SmtpServer, receiver: Receiver) -> Path:
    path = tmp_path / "watch.toml"
    path.write_text(
        '[watch]\ndb = "warehouse.duckdb"\nevery = "5m"\n'
        f'alert = {{ email = ["ops@example.com"], webhooks = [{{ url = "{receiver.url}/h", '
        'kind = "json" }] }\n'
        f'[smtp]\nurl = "smtp://127.0.0.1:{smtp.mailbox.port}"\nfrom = "watch@example.com"\n'
        '[[jobs]]\nname = "sync"\ncron = "0 * * * *"\ntz = "Europe/Berlin"\n',
        encoding="utf-8",
    )
    runs = runs_path(tmp_path / "warehouse.duckdb")
    started = FAILED_AT - timedelta(minutes=2)
    record(runs, {"event": "start", "run": "r1", "job": "sync", "at": started.isoformat()})
    end = {"event": "end", "run": "r1", "job": "sync", "at": FAILED_AT.isoformat()}
    record(runs, end | {"outcome": "failed", "reason": "the service answered 503"})
    return path


def test_an_alert_a_receiver_refused_is_sent_on_the_next_run_once(
    tmp_path: Path, smtp: SmtpServer, receiver: Receiver
) -> None:
    config = load_watch(_watch_file(tmp_path, smtp, receiver))
    receiver.status = 500
    with time_machine.travel(FAILED_AT + timedelta(minutes=3), tick=False) as clock:
        first = watch_once(config)
        assert "sync: failed" in first
        assert any("answered HTTP 500; tried again on the next run" in line for line in first)
        assert len(smtp.mailbox.messages) == 1 and receiver.posts == []
        assert [a.pending for a in load(config.state).outbox] == [[config.jobs[0].targets[1].key]]
        receiver.status = 200
        for minutes in (8, 13, 18):  # the next runs: the webhook once, then nothing new
            clock.move_to(FAILED_AT + timedelta(minutes=minutes))
            watch_once(config)
    assert len(smtp.mailbox.messages) == 1
    assert [body["kind"] for _, body in receiver.posts] == ["failed"]
    assert "the service answered 503" in receiver.posts[0][1]["text"]
    assert load(config.state).outbox == []


def test_a_watcher_killed_while_alerting_sends_the_rest_on_its_next_run(
    tmp_path: Path, smtp: SmtpServer, receiver: Receiver
) -> None:
    watch = _watch_file(tmp_path, smtp, receiver)
    receiver.hold = threading.Event()  # the webhook takes the POST and never answers
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "tests" / "travel"), str(ROOT / "src")]),
        "CHANNELKIT_TRAVEL": (FAILED_AT + timedelta(minutes=3)).isoformat(),
    }
    command = [sys.executable, "-m", "channelkit", "watch", str(watch), "--once"]
    watcher = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while not receiver.held and time.monotonic() < deadline and watcher.poll() is None:
        time.sleep(0.05)
    assert receiver.held, watcher.communicate()
    watcher.send_signal(signal.SIGKILL)  # mid-alert: the email taken, the webhook not
    watcher.wait()
    receiver.hold.set()
    config = load_watch(watch)
    (pending,) = load(config.state).outbox
    assert pending.kind == "failed" and pending.pending == [config.jobs[0].targets[1].key]
    assert len(smtp.mailbox.messages) == 1

    for _ in range(2):  # the next run sends the webhook; the one after has nothing to send
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    assert len(smtp.mailbox.messages) == 1
    assert [body["alert_id"] for _, body in receiver.posts] == [receiver.held[0]["alert_id"]]
    assert load(config.state).outbox == []
    assert "sync" in load(config.state).incidents  # still failed: no second alert for it
