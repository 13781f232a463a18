"""Files written for people get the permissions any new file of theirs would get.

Atomic writes go through `tempfile.mkstemp`, which creates files readable only by their
owner (0600); a template or a results file is meant for a team, so before the rename it
gets the mode `open()` would have given it: 0666 minus the user's umask.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

_lock = threading.Lock()


def user_umask() -> int:
    """The process's umask (read without changing it where the system allows)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    with _lock:  # os.umask can only be read by setting it
        mask = os.umask(0o022)
        os.umask(mask)
    return mask


def as_new_file(path: str | Path) -> None:
    """Give `path` the mode a file created with `open()` would have (0666 & ~umask)."""
    os.chmod(path, 0o666 & ~user_umask())
