"""Who holds a warehouse file locked: a running sync, a reader or a writer, by process id.

DuckDB locks the whole file with a POSIX record lock, shared by readers and exclusive for
a writer (https://duckdb.org/docs/current/connect/concurrency), and its lock error names
one process id, not what that process is doing. Linux lists every POSIX lock with its
kind, process and file in `/proc/locks` ("1: POSIX  ADVISORY  READ 25899 fe:00:2146803
0 EOF", proc(5), https://man7.org/linux/man-pages/man5/proc.5.html), read here without
opening the warehouse: probing it with a file descriptor of our own could drop this
process's own locks on it when that descriptor closes (fcntl(2)). A sync writes its
working copy (`warehouse.duckdb.sync`) while it runs, so a process holding both files is
a sync. Where `/proc/locks` does not exist (macOS, Windows) the holder is not named.

    holder(Path("warehouse.duckdb"))   # "a reader (process 4242: a notebook's or ...)"
"""

from __future__ import annotations

import os
from pathlib import Path

from channelkit._constants import WAREHOUSE_WORK_SUFFIX

_LOCKS = Path("/proc/locks")
_FIELDS = 5  # "1:", "POSIX", "ADVISORY", "READ"/"WRITE", pid, then MAJ:MIN:INODE


def holder(path: Path) -> str:
    """Who holds `path` locked, in words, as far as can be known (`another process`)."""
    locks = _locks_of(path)
    if not locks:
        return "another process"
    work = _locks_of(path.with_name(path.name + WAREHOUSE_WORK_SUFFIX))
    syncing = {pid for _, pid in work}
    writers = sorted(pid for kind, pid in locks if kind == "WRITE")
    readers = sorted(pid for kind, pid in locks if kind == "READ")
    for pid in writers + readers:
        if pid in syncing:
            return f"a running sync (process {pid}, putting its working copy in place)"
    if writers:
        return (
            f"a writer (process {writers[0]}: a writable DuckDB connection, or a sync or "
            "deliver of an older channelkit)"
        )
    shown = ", ".join(map(str, readers))
    many = "readers (processes" if len(readers) > 1 else "a reader (process"
    return (
        f"{many} {shown}: a notebook's or a script's read-only connection, a report, the Explorer)"
    )


def _locks_of(path: Path) -> list[tuple[str, int]]:
    """(kind, pid) of every POSIX lock held on `path`; none when unknown."""
    try:
        stat = path.stat()
        text = _LOCKS.read_text(encoding="ascii", errors="replace")
    except OSError:
        return []
    where = f"{os.major(stat.st_dev):02x}:{os.minor(stat.st_dev):02x}:{stat.st_ino}"
    found = []
    for line in text.splitlines():
        fields = line.split()
        # "->" marks a process waiting for the lock, not holding it
        if len(fields) <= _FIELDS or fields[1] != "POSIX" or fields[_FIELDS] != where:
            continue
        kind, pid = fields[3], fields[4]
        if kind in ("READ", "WRITE") and pid.isdigit():
            found.append((kind, int(pid)))
    return found
