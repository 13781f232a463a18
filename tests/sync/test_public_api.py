"""`ck.sync` stays the function users call, whichever of its modules was imported first."""

from __future__ import annotations

import subprocess
import sys


def test_ck_sync_is_callable_after_its_package_was_imported() -> None:
    code = (
        "import channelkit.sync.runner, channelkit as ck, inspect\n"
        "assert callable(ck.sync)\n"
        "print(inspect.signature(ck.sync.sync))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "client" in result.stdout
