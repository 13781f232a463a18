"""Progress bars: one per resource, rate-limit waits shown, nothing when disabled."""

from __future__ import annotations

import io
import sys

import pytest

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


def test_not_visible_without_a_terminal_or_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # a pipe or file, as under cron
    assert not visible()
