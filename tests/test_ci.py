"""`.ci/run`: the optional browser never stops CI from running the tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_failed_chromium_install_does_not_abort(tmp_path: Path) -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    setup, _, _ = script.partition("# The calendar run")  # the browser part, before the tests
    fake = tmp_path / "bin"
    fake.mkdir()
    for name, body in (("apt-get", "echo 'E: no network' >&2; exit 100"), ("id", "echo 0")):
        (fake / name).write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        (fake / name).chmod(0o755)
    done = subprocess.run(
        ["/bin/bash", "-c", setup.replace('cd "$(dirname "$0")/.."', "") + "\necho REACHED"],
        env={**os.environ, "PATH": str(fake)},  # no chromium on it
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "REACHED" in done.stdout
    assert "browser test will be skipped" in done.stderr
