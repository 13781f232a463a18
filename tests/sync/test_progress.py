"""Progress bars: one per resource, rate-limit waits shown, nothing when disabled."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from channelkit._constants import SYNC_PROGRESS_LINE_SECONDS
from channelkit.sync.progress import Progress, visible


def test_bars_show_rows_and_waits(capsys: pytest.CaptureFixture[str]) -> None:
    progress = Progress(enabled=True)
    progress.advance("posts", 100)
    progress.waiting("/posts", 2.5, "pacing")
    progress.waiting("/analytics/posts", 1.0, "backoff")
    progress.waiting("/posts/post_1", 0.01, "pacing")  # too short to be worth showing
    progress.advance("post_daily", 7)
    progress.close()
    err = capsys.readouterr().err
    assert "posts        : 100 rows" in err
    assert "rate limit: waiting 2.5 s" in err
    assert "retrying: waiting 1.0 s" in err
    assert "waiting 0.0" not in err
    assert "post_daily   : 7 rows" in err


def test_disabled_bars_print_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    progress = Progress(enabled=False)
    progress.advance("posts", 100)
    progress.waiting("/posts", 2.5, "pacing")
    progress.close()
    assert capsys.readouterr().err == ""


def test_lines_say_progress_now_and_then_and_every_wait_at_once(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    progress = Progress(enabled=False, lines=True)
    progress.waiting("/posts", 12.0, "retry_after")
    progress.waiting("/analytics/posts", 1.0, "backoff")
    progress.advance("posts", 100)  # just said something: no line yet
    assert capsys.readouterr().err.splitlines() == [
        "sync: posts: waiting 12.0 s for the rate limit",
        "sync: post_daily: waiting 1.0 s before retrying",
    ]
    monkeypatch.setattr(progress, "_said", progress._said - SYNC_PROGRESS_LINE_SECONDS)
    progress.advance("channels", 3)
    progress.close()
    assert capsys.readouterr().err == "sync: posts 100 rows, channels 3 rows\n"


def test_a_plain_interactive_prompt_gets_lines() -> None:
    # `python -i` reading a pipe: a prompt (sys.ps1) whose stderr is no terminal.
    code = "from channelkit.sync.progress import shown\nprint(shown(True), shown(False))\n"
    done = subprocess.run(
        [sys.executable, "-i"], input=code, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "lines None"
    script = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert script.stdout.strip() == "None None"


def test_not_visible_without_a_terminal_or_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a pipe or file, as under cron
    assert not visible()


def test_one_line_says_what_changed_and_what_it_cost() -> None:
    from channelkit.sync.progress import one_line
    from channelkit.sync.report import SyncReport

    report = SyncReport("run_1", "incremental", "http://127.0.0.1:8000/v1", "w.duckdb")
    report.counts["posts"].new, report.counts["posts"].updated = 1200, 34
    report.counts["post_daily"].new = 5
    report.requests, report.rate_limit_waits, report.wait_seconds = 41, 3, 12.25
    report.duration_seconds, report.completed = 20.04, True
    assert one_line(report) == (
        "sync completed in 20.0 s: 1,239 rows new or updated (posts 1,234, post_daily 5), "
        "41 requests, 3 rate-limit waits (12.2 s)"
    )
    report.completed, report.error = False, "stopped by a 401"
    assert "NOT completed" in one_line(report) and one_line(report).endswith("a 401")


def test_ck_sync_shows_bars_and_a_summary_where_seen_and_is_quiet_in_scripts(
    service: object,
    admin_key: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import channelkit as ck
    from channelkit.client import Client
    from channelkit.sync import progress

    # A script has no prompt: an IPython shell made by an earlier test of this process
    # leaves sys.ps1 set, which reads as a plain interactive prompt (progress lines).
    monkeypatch.delattr(sys, "ps1", raising=False)
    with Client(base_url=service.base_url, api_key=admin_key) as client:  # type: ignore[attr-defined]
        client.channels.create(name="All Hands")
        ck.sync(client, tmp_path / "quiet.duckdb")  # pytest's stderr: no terminal, no kernel
        assert capsys.readouterr().err == ""
        # As on a terminal (the one thing a test cannot give a process for real here).
        monkeypatch.setattr(progress, "visible", lambda: True)
        ck.sync(client, tmp_path / "seen.duckdb")
        err = capsys.readouterr().err
        assert "channels     : 1 rows" in err
        assert err.rstrip().splitlines()[-1].startswith("sync completed in ")
        assert admin_key not in err
        ck.sync(client, tmp_path / "off.duckdb", progress=False)
        assert capsys.readouterr().err == ""
