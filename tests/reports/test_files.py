"""Report files are written whole or not at all."""

from __future__ import annotations

from pathlib import Path

import pytest

from channelkit.errors import ReportError
from channelkit.reports.files import write_atomic


def test_replaces_the_file_and_leaves_no_temporary_behind(tmp_path: Path) -> None:
    target = tmp_path / "nested" / "weekly.html"
    write_atomic(target, "first")
    write_atomic(target, "second \u2014 caf\u00e9")
    assert target.read_text(encoding="utf-8") == "second \u2014 caf\u00e9"
    assert sorted(p.name for p in target.parent.iterdir()) == ["weekly.html"]
    assert target.stat().st_mode & 0o777 == 0o644


def test_a_directory_as_target_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="is a directory"):
        write_atomic(tmp_path, "x")


def test_a_failure_midway_keeps_the_old_file(tmp_path: Path) -> None:
    target = tmp_path / "r.html"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(UnicodeEncodeError):
        write_atomic(target, "bad \udcff surrogate")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]
