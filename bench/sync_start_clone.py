"""The start of a sync (its working copy) on a file system that clones, against a plain copy.

    sudo .venv/bin/python bench/sync_start_clone.py [--gb 1.0] [--fs xfs|btrfs]

Makes a loop-mounted XFS (mkfs.xfs -m reflink=1; or Btrfs) in a sparse image file, writes a
channelkit warehouse of about `--gb` GB into it (the schema, and a table of incompressible
padding: the copy's cost depends on the bytes, not on what they mean), then times
`working_copy` as a sync's start runs it: a copy-on-write clone (FICLONE), and the same
with the clone refused, which falls back to a plain copy. Each is run three times, the
working copy removed after each; the page cache is dropped before each run, so the plain
copy reads from disk as the first sync of the day does. Target: the clone <= 5% of the
plain copy's time. Needs root (losetup, mount) and mkfs.xfs or mkfs.btrfs; without them it
says so and exits 0.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import fcntl
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from channelkit.storage.connection import open_warehouse
from channelkit.storage.working_copy import working_copy


class CannotMount(Exception):
    """The file system could not be made or mounted here."""


MKFS = {"xfs": ["mkfs.xfs", "-q", "-m", "reflink=1"], "btrfs": ["mkfs.btrfs", "-q"]}


def cannot_run(fs: str) -> str | None:
    if os.geteuid() != 0:
        return "not root (it mounts a loop device)"
    if shutil.which(MKFS[fs][0]) is None:
        return f"{MKFS[fs][0]} is not installed (apt-get install {fs}progs)"
    return None


@contextlib.contextmanager
def mounted(fs: str, size_gb: float) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        image, mount = Path(tmp) / "fs.img", Path(tmp) / "mnt"
        mount.mkdir()
        with image.open("wb") as file:
            file.truncate(int((size_gb * 2.5 + 0.5) * 2**30))  # sparse: room for two copies
        for command in ([*MKFS[fs], str(image)], ["mount", "-o", "loop", str(image), str(mount)]):
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:  # a container without loop devices, say
                raise CannotMount(f"{command[0]}: {done.stderr.strip() or done.returncode}")
        try:
            yield mount
        finally:
            subprocess.run(["umount", str(mount)], check=True)


def build(path: Path, size_gb: float) -> None:
    """A warehouse of at least `size_gb` GiB."""
    con = open_warehouse(path, read_only=False)
    # Random doubles, drawn per row and column: DuckDB's compression gains a little on them
    # (about 28 bytes a row of 32), so rows are added until the file is large enough.
    con.execute("CREATE TABLE padding (a DOUBLE, b DOUBLE, c DOUBLE, d DOUBLE)")
    target = size_gb * 2**30
    while (size := path.stat().st_size) < target:
        more = int((target - size) / 28 * 1.02) + 1
        con.execute(
            "INSERT INTO padding (a, b, c, d) SELECT random(), random(), random(), random() "
            "FROM range(?)",
            [more],
        )
        con.execute("CHECKPOINT")
    con.close()


def drop_caches() -> None:
    os.sync()
    with contextlib.suppress(OSError):
        Path("/proc/sys/vm/drop_caches").write_text("3\n")


def refuse_clone(*args: object) -> None:
    raise OSError(errno.EOPNOTSUPP, "Operation not supported")


def timed(path: Path, *, clone: bool) -> tuple[float, str]:
    """Seconds of one working_copy(path), and how it was made; the copy removed after."""
    ioctl: Callable[..., object] = fcntl.ioctl
    if not clone:
        fcntl.ioctl = refuse_clone  # type: ignore[assignment]
    drop_caches()
    try:
        started = time.perf_counter()
        copy = working_copy(path)
        seconds = time.perf_counter() - started
    finally:
        fcntl.ioctl = ioctl  # type: ignore[assignment]
    copy.path.unlink()
    return seconds, copy.how


def measure(mount: Path, fs: str, gb: float) -> dict[bool, list[float]]:
    """Seconds of each working copy on `mount`, by whether it may clone."""
    path = mount / "warehouse.duckdb"
    started = time.perf_counter()
    build(path, gb)
    size = path.stat().st_size
    print(
        f"{fs} on a loop device; warehouse {size / 2**30:.2f} GB, written in "
        f"{time.perf_counter() - started:.1f} s"
    )
    runs: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(3):
        for clone in (False, True):
            seconds, how = timed(path, clone=clone)
            assert how == ("clone" if clone else "copy"), how
            runs[clone].append(seconds)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gb", type=float, default=1.0)
    parser.add_argument("--fs", choices=sorted(MKFS), default="xfs")
    parser.add_argument("--small", action="store_true", help="a 64 MB warehouse")
    args = parser.parse_args()
    if args.small:
        args.gb = 1 / 16
    reason = cannot_run(args.fs)
    if reason is not None:
        print(f"skipped: {reason}")
        return
    try:
        with mounted(args.fs, args.gb) as mount:
            runs = measure(mount, args.fs, args.gb)
    except CannotMount as exc:
        print(f"skipped: {exc}")
        return
    plain, cloned = statistics.median(runs[False]), statistics.median(runs[True])
    print(f"plain copy (the baseline):  {plain:8.3f} s  (median of 3, cold cache)")
    print(
        f"copy-on-write clone:        {cloned:8.3f} s  = {cloned / plain:.1%} of the plain "
        "copy (target <= 5%)"
    )


if __name__ == "__main__":
    main()
