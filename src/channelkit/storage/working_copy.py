"""The sync writes a working copy; readers read the last committed warehouse meanwhile.

DuckDB lets one process write a file or several processes read it, never both at once. A
sync that held the warehouse for its whole run (minutes, most of them waiting for the rate
limit) would lock every reader out; so the sync never opens the warehouse to write while it
runs. It writes `warehouse.duckdb.sync`, a copy of the warehouse made when the run starts
(or the one a killed run left, which it continues: its checkpoints are in it), one batch per
transaction as before, and when the run ends (completed or not: what it committed is kept)
`switch` puts it in the warehouse's place with one rename. A reader opening the warehouse
sees the file before the run or the file after it, never a half-written one, and a reader
left open (a notebook's `duckdb.connect(..., read_only=True)`) keeps its file and blocks
nothing (see `connection` for what a new connection in its process reads).

The copy is a copy-on-write clone where the file system shares extents (XFS, Btrfs: the
FICLONE ioctl, milliseconds whatever the size), a plain copy elsewhere; `WorkingCopy.how`
says which, and the run records it. It is made under one fixed name,
`warehouse.duckdb.sync.part`, locked against another sync copying at the same moment and
renamed to `.sync` once whole and marked with the file it was copied from: a run killed
while copying leaves only that spare, which the next run copies over. A `.sync` whose mark
is not the warehouse now in place (deleted, or restored from a backup, since the killed run
began) is set aside under `warehouse.duckdb.sync.aside-<8 hex>`, never switched in.

Nothing else writes the warehouse meanwhile (`deliver` keeps its record in a file of its
own), so the rename carries nothing over.

    work = working_copy(Path("warehouse.duckdb")).path     # warehouse.duckdb.sync
    ... write through open_warehouse(work, read_only=False) ...
    switch(work, Path("warehouse.duckdb"))
"""

from __future__ import annotations

import contextlib
import errno
import glob
import os
import re
import shutil
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import duckdb

from channelkit._constants import (
    WAREHOUSE_ASIDE_SUFFIX,
    WAREHOUSE_SPARE_SUFFIX,
    WAREHOUSE_WORK_SUFFIX,
)
from channelkit.errors import WarehouseError
from channelkit.storage.connection import check_format, connect, locked_message, wait_unlocked

if sys.platform != "win32":
    import fcntl

# Where a working copy names the file it was copied from (`_identity`): an extended
# attribute in the "user" namespace (xattr(7), man7.org/linux/man-pages/man7/xattr.7.html;
# ext4, XFS and Btrfs keep them), else a key of its schema_meta.
_MARK_ATTRIBUTE = "user.channelkit.copied_from"
_COPIED_FROM = "copied_from"
# Linux's FICLONE ioctl, _IOW(0x94, 9, int) in linux/fs.h; Python names it fcntl.FICLONE from
# 3.12. ioctl_ficlone(2) (manpages.ubuntu.com, ioctl_ficlonerange.2): it makes the data of
# src_fd "appear in the dest_fd file by sharing the underlying storage" (copy on write), and
# fails with EBADF or EOPNOTSUPP where the file system cannot, EXDEV across file systems
# and EINVAL for what it cannot share: then the file is copied.
_FICLONE = 0x40049409
_CANNOT_CLONE = {
    errno.EBADF,
    errno.EOPNOTSUPP,
    errno.ENOTTY,
    errno.EXDEV,
    errno.EINVAL,
    errno.ENOSYS,
}
# Before the spare had one fixed name each copy went to `<warehouse>.<uuid4 hex>.tmp`, and a
# run killed while copying left it for good: the next run sweeps them.
_OLD_SPARE = re.compile(r"\.[0-9a-f]{32}\.tmp")

How = Literal["clone", "copy", "continued", "new"]


@dataclass(frozen=True)
class WorkingCopy:
    """The file a sync writes, and how it came to be.

        copy = working_copy(Path("warehouse.duckdb"))
        copy.path, copy.how, copy.seconds     # warehouse.duckdb.sync, "clone", 0.004

    `how` is "clone" (copy-on-write), "copy" (a plain copy: the file system cannot clone),
    "continued" (the working copy a killed run left) or "new" (no warehouse yet);
    `seconds` the copy's time; `set_aside` where a `.sync` that was not copied from the
    warehouse now in place was put instead of being switched in.
    """

    path: Path
    how: How
    seconds: float = 0.0
    set_aside: Path | None = None


def work_path(path: Path) -> Path:
    return path.with_name(path.name + WAREHOUSE_WORK_SUFFIX)


def working_copy(path: Path) -> WorkingCopy:
    """The file a sync into `path` writes: the one a killed run left, if it was copied from
    the warehouse now at `path` (it continues it), else a fresh clone or copy of `path`
    (none when `path` does not exist yet: the run creates it)."""
    work = work_path(path)
    _sweep_old_spares(path)
    aside = None
    if work.exists():
        made_from = _copied_from(work)
        if made_from is None or made_from == _identity(path):  # None: in use by a sync now
            return WorkingCopy(work, "continued")
        aside = _set_aside(work)
    if not path.exists():
        return WorkingCopy(work, "new", set_aside=aside)
    check_format(path)
    if path.with_name(path.name + ".wal").exists():
        # a writer killed before its checkpoint (an older channelkit): replay it first
        try:
            wait_unlocked(path, lambda: connect(path, read_only=False)).close()
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise WarehouseError(f"{path}: cannot open warehouse: {exc}") from None
            raise WarehouseError(locked_message(path)) from None
    how, seconds = _copy(path, work)
    return WorkingCopy(work, how, seconds, aside)


def _identity(path: Path) -> str:
    """Which file is at `path`: a sync's switch, a restore or a new file each change it."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return "none"  # also the mark of a working copy made without a warehouse
    return f"{stat.st_dev}:{stat.st_ino}:{stat.st_size}:{stat.st_mtime_ns}"


def _copied_from(work: Path) -> str | None:
    """The mark of the file `work` was copied from ("none": none, or made by an older
    channelkit); None when another sync is writing it now."""
    if sys.platform == "linux":
        try:
            return os.getxattr(work, _MARK_ATTRIBUTE).decode()
        except OSError as exc:
            if exc.errno not in (errno.ENODATA, errno.EOPNOTSUPP):
                raise
    try:
        con = connect(work, read_only=True)
    except duckdb.IOException as exc:
        if "lock" in str(exc).lower():
            return None
        return "unreadable"
    except duckdb.Error:
        return "unreadable"
    try:
        row = con.execute("SELECT value FROM schema_meta WHERE key = ?", [_COPIED_FROM]).fetchone()
    except duckdb.Error:
        row = None
    finally:
        con.close()
    return "none" if row is None else str(row[0])


def _set_aside(work: Path) -> Path:
    aside = work.with_name(f"{work.name}{WAREHOUSE_ASIDE_SUFFIX}{uuid.uuid4().hex[:8]}")
    try:
        os.replace(work, aside)
        wal = work.with_name(work.name + ".wal")  # its uncommitted tail goes with it
        if wal.exists():
            os.replace(wal, aside.with_name(aside.name + ".wal"))
    except OSError as exc:
        raise WarehouseError(f"cannot set {work} aside: {exc.strerror or exc}") from None
    return aside


def _sweep_old_spares(path: Path) -> None:
    for leftover in path.parent.glob(glob.escape(path.name) + ".*.tmp"):
        if _OLD_SPARE.fullmatch(leftover.name[len(path.name) :]):
            leftover.unlink(missing_ok=True)


def _copy(path: Path, work: Path) -> tuple[How, float]:
    """Clone or copy `path` into the spare, mark it, and rename it to `work`."""
    spare = work.with_name(work.name + WAREHOUSE_SPARE_SUFFIX)
    started = time.monotonic()
    try:
        with _locked(spare) as fd:
            if work.exists():  # another sync made it while this one waited for the lock
                return "continued", 0.0
            # a DuckDB log of a run killed while marking the spare: not of this copy
            spare.with_name(spare.name + ".wal").unlink(missing_ok=True)
            made_from = _identity(path)
            how = _clone_or_copy(path, spare, fd)
            _mark(spare, fd, made_from)
            os.replace(spare, work)
    except OSError as exc:
        spare.unlink(missing_ok=True)  # a failed copy (a full disk) leaves nothing behind
        raise WarehouseError(f"cannot copy {path} to {work}: {exc.strerror or exc}") from None
    return how, time.monotonic() - started


@contextlib.contextmanager
def _locked(spare: Path) -> Iterator[int]:
    """`spare` open and locked against another sync copying at the same moment; flock is
    released when the process ends, a kill -9 included, so a spare left behind is free."""
    while True:
        fd = os.open(spare, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            if sys.platform != "win32":
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                current = os.path.samestat(os.fstat(fd), os.stat(spare))
            except FileNotFoundError:
                current = False
            if current:  # not a spare the sync before it renamed or removed meanwhile
                yield fd
                return
        finally:
            os.close(fd)


def _clone_or_copy(path: Path, spare: Path, fd: int) -> How:
    os.ftruncate(fd, 0)
    if sys.platform != "win32":
        with path.open("rb") as source:
            try:
                fcntl.ioctl(fd, _FICLONE, source.fileno())
                return "clone"
            except OSError as exc:
                if exc.errno not in _CANNOT_CLONE:
                    raise
    shutil.copyfile(path, spare)
    return "copy"


def _mark(spare: Path, fd: int, made_from: str) -> None:
    """Write on the copy which file it was copied from (before it is renamed `.sync`): an
    extended attribute where the file system keeps them (a tenth of a millisecond), else a
    row of the copy's schema_meta (a DuckDB write: a tenth of a second or more)."""
    if sys.platform == "linux":
        try:
            os.setxattr(fd, _MARK_ATTRIBUTE, made_from.encode())
            return
        except OSError as exc:
            if exc.errno != errno.EOPNOTSUPP:
                raise
    con = connect(spare, read_only=False)
    try:
        # an empty file has no schema yet: the run migrates it (a kill then sets it aside)
        with contextlib.suppress(duckdb.CatalogException):
            con.execute(
                "INSERT OR REPLACE INTO schema_meta VALUES (?, ?)", [_COPIED_FROM, made_from]
            )
    finally:
        con.close()


def switch(work: Path, path: Path) -> None:
    """Put `work` in `path`'s place, on the disk: the file flushed before the rename (a plain
    copy is handed to the operating system, not written to the disk, and a rename can reach
    the disk before the data it names), the folder after it (the rename is an entry of the
    folder: fsync(2), "Calling fsync() does not necessarily ensure that the entry in the
    directory containing the file has also reached disk. For that an explicit fsync() on a
    file descriptor for the directory is also needed": Linux's fsync(2), read as quoted in
    rgbcu.be/dump/posix/fsync-pitfalls)."""
    if not work.exists():
        return
    try:
        _flush(work, os.O_RDWR)  # Windows flushes (_commit) only a file open for writing
        os.replace(work, path)
    except OSError as exc:
        raise WarehouseError(
            f"cannot put {work} in place of {path}: {exc.strerror or exc}; the sync's rows are "
            f"in {work}, and the next sync puts them in place"
        ) from None
    if sys.platform == "win32":  # a folder cannot be opened to flush it there
        return
    try:
        _flush(path.parent, os.O_RDONLY)
    except OSError as exc:
        raise WarehouseError(
            f"{path} is in place, but its folder could not be flushed to the disk: "
            f"{exc.strerror or exc}"
        ) from None


def _flush(path: Path, flags: int) -> None:
    fd = os.open(path, flags)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
