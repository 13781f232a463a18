"""The sync's working copy (issue 45.7): no partial copy survives a kill, a `.sync` that was
not copied from the warehouse now in place is set aside rather than switched in, and the
run records whether the copy was a copy-on-write clone or a plain copy."""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest

from channelkit.client import Client
from channelkit.service import LocalService
from channelkit.storage import working_copy as wc
from channelkit.storage.working_copy import work_path, working_copy
from channelkit.sync import SyncReport, run_sync
from channelkit.warehouse import Warehouse


@pytest.fixture
def synced(service: LocalService, admin_key: str, tmp_path: Path) -> Callable[[], SyncReport]:
    """A small workspace and `sync()`, one run into tmp_path/w.duckdb."""
    with Client(service.base_url, admin_key) as client:
        channel = client.channels.create(name="News", slug="news")
        for n in range(3):
            client.posts.create(channel_id=channel.id, title=f"Post {n}", body="Body")

    def sync() -> SyncReport:
        with Client(service.base_url, admin_key) as client:
            report = run_sync(client, tmp_path / "w.duckdb", progress=False)
        assert report.completed, report.summary()
        return report

    return sync


def _cannot_clone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The file system of a machine without copy-on-write (ext4, tmpfs): FICLONE refused."""

    def refuse(*args: object) -> None:
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")

    monkeypatch.setattr(fcntl, "ioctl", refuse)


@pytest.fixture(params=["an extended attribute", "a schema_meta row"])
def marked_with(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Where the working copy's mark goes: an xattr, or (a file system without them) the
    copy's schema_meta."""
    if request.param == "a schema_meta row":

        def no_attributes(*args: object) -> None:
            raise OSError(errno.EOPNOTSUPP, "Operation not supported")

        monkeypatch.setattr(os, "setxattr", no_attributes)
        monkeypatch.setattr(os, "getxattr", no_attributes)
    return str(request.param)


def _can_clone(directory: Path) -> bool:
    """Whether `directory`'s file system clones (ioctl_ficlone(2)), asked of the kernel."""
    source, target = directory / "probe.src", directory / "probe.dst"
    source.write_bytes(b"x" * 4096)
    try:
        with source.open("rb") as src, target.open("wb") as dst:
            fcntl.ioctl(dst.fileno(), 0x40049409, src.fileno())
        return True
    except OSError:
        return False
    finally:
        source.unlink()
        target.unlink(missing_ok=True)


# A sync in a child process whose copy stops halfway (the file system cannot clone, the copy
# writes half the file, says so and sleeps): the test kills it there with SIGKILL.
_KILLED_MID_COPY = r"""
import errno, fcntl, shutil, sys, time
from pathlib import Path

def refuse(*args):
    raise OSError(errno.EOPNOTSUPP, "Operation not supported")

def halfway(src, dst, *args, **kwargs):
    data = Path(src).read_bytes()
    with open(dst, "wb") as out:
        out.write(data[: len(data) // 2])
        out.flush()
        Path(sys.argv[4]).touch()
        time.sleep(120)
    return dst

fcntl.ioctl, shutil.copyfile = refuse, halfway
from channelkit.client import Client
from channelkit.sync import run_sync
with Client(sys.argv[2], sys.argv[3]) as client:
    run_sync(client, sys.argv[1], progress=False)
"""


@pytest.mark.slow
def test_kill_9_during_the_start_copy_ten_times_leaves_nothing_after_the_next_run(
    service: LocalService, admin_key: str, synced: Callable[[], SyncReport], tmp_path: Path
) -> None:
    synced()
    db = tmp_path / "w.duckdb"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    for attempt in range(10):
        copying = tmp_path / f"copying-{attempt}"
        child = subprocess.Popen(
            [sys.executable, "-c", _KILLED_MID_COPY, str(db), service.base_url, admin_key]
            + [str(copying)],
            env=env,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        while not copying.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert copying.exists(), child.communicate()[1]
        child.send_signal(signal.SIGKILL)
        assert child.wait() == -signal.SIGKILL
        copying.unlink()
        # What a kill leaves: the half copy, under the one spare name.
        assert sorted(p.name for p in tmp_path.iterdir()) == ["w.duckdb", "w.duckdb.sync.part"]
    report = synced()
    assert report.start_copy in ("clone", "copy")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.duckdb"]


def test_spares_of_older_versions_are_swept(
    synced: Callable[[], SyncReport], tmp_path: Path
) -> None:
    synced()
    old = [tmp_path / f"w.duckdb.{n:032x}.tmp" for n in (1, 2)]
    for leftover in old:
        leftover.write_bytes(b"half a copy")
    mine = tmp_path / "w.duckdb.notes.tmp"  # not one of ours: left alone
    mine.write_text("mine")
    synced()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.duckdb", "w.duckdb.notes.tmp"]


def _left_by_a_killed_run(db: Path) -> Path:
    """The `.sync` a run killed after its first batch leaves: copied from `db`, with
    something of its own written (a table the check below looks for)."""
    work = working_copy(db).path
    con = duckdb.connect(str(work))
    con.execute("CREATE TABLE written_by_the_killed_run (x INT)")
    con.close()
    return work


def _holds_the_killed_runs_rows(db: Path) -> bool:
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = {
            row[0] for row in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()
        }
    finally:
        con.close()
    return "written_by_the_killed_run" in tables


def test_a_killed_runs_copy_of_the_warehouse_in_place_is_continued(
    marked_with: str, synced: Callable[[], SyncReport], tmp_path: Path
) -> None:
    synced()
    db = tmp_path / "w.duckdb"
    work = _left_by_a_killed_run(db)
    with duckdb.connect(str(work), read_only=True) as con:
        in_meta = con.execute("SELECT value FROM schema_meta WHERE key = 'copied_from'").fetchall()
    if marked_with == "a schema_meta row":
        assert in_meta and in_meta[0][0].count(":") == 3  # device:inode:size:mtime
    else:
        assert not in_meta and os.getxattr(work, "user.channelkit.copied_from").count(b":") == 3
    report = synced()
    assert report.start_copy == "continued" and report.set_aside is None
    assert _holds_the_killed_runs_rows(db)  # its rows are kept, as before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.duckdb"]


@pytest.mark.parametrize("replaced", ["deleted", "restored from a backup"])
def test_a_sync_left_beside_a_replaced_warehouse_is_set_aside(
    replaced: str, marked_with: str, synced: Callable[[], SyncReport], tmp_path: Path
) -> None:
    synced()
    db = tmp_path / "w.duckdb"
    backup = tmp_path.parent / f"{tmp_path.name}-backup.duckdb"
    shutil.copy2(db, backup)  # yesterday's backup (copy2 keeps its time, as restores do)
    synced()
    _left_by_a_killed_run(db)
    db.unlink()
    if replaced != "deleted":
        shutil.copy2(backup, db)
    report = synced()
    assert not _holds_the_killed_runs_rows(db)  # not switched in
    asides = [p for p in tmp_path.iterdir() if ".sync.aside-" in p.name]
    assert len(asides) == 1 and _holds_the_killed_runs_rows(asides[0])  # kept, by its side
    assert report.set_aside is not None and asides[0].name in report.set_aside
    assert report.set_aside in report.summary()
    assert report.set_aside in Warehouse(db).runs()["notes"].iloc[-1]
    assert (
        report.start_copy == "new"
        if replaced == "deleted"
        else report.start_copy in ("clone", "copy")
    )
    assert not work_path(db).exists()


def test_the_run_record_says_clone_or_copy(
    synced: Callable[[], SyncReport], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = synced()
    assert first.start_copy == "new" and first.start_copy_seconds == 0
    second = synced()
    expected = "clone" if _can_clone(tmp_path) else "copy"
    assert second.start_copy == expected, second.summary()
    _cannot_clone(monkeypatch)
    third = synced()
    assert third.start_copy == "copy" and third.start_copy_seconds > 0
    assert "a plain copy of the warehouse (this file system cannot clone)" in third.summary()
    runs = Warehouse(tmp_path / "w.duckdb").runs()
    assert list(runs["start_copy"]) == ["new", expected, "copy"]
    assert runs["start_copy_seconds"].iloc[-1] == pytest.approx(third.start_copy_seconds)


def test_a_copy_that_fails_leaves_no_spare(
    synced: Callable[[], SyncReport], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced()
    _cannot_clone(monkeypatch)

    def disk_full(source: Path, target: Path) -> None:
        Path(target).write_bytes(b"half")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(shutil, "copyfile", disk_full)
    with pytest.raises(wc.WarehouseError, match="cannot copy .* No space left on device"):
        working_copy(tmp_path / "w.duckdb")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.duckdb"]


def test_the_switch_flushes_the_copy_before_its_rename_and_the_folder_after(
    synced: Callable[[], SyncReport], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rename can reach the disk before the data it names, and lives in the folder: a
    warehouse switched in is on the disk only with both flushes, in this order."""
    synced()
    db = tmp_path / "w.duckdb"
    work = work_path(db)
    steps: list[str] = []
    fsync, replace = os.fsync, os.replace

    def flush(fd: int) -> None:
        steps.append(f"flush {os.readlink(f'/proc/self/fd/{fd}')}")
        fsync(fd)

    def rename(source: Path, target: Path) -> None:
        steps.append(f"rename {source} {target}")
        replace(source, target)

    monkeypatch.setattr(os, "fsync", flush)
    monkeypatch.setattr(os, "replace", rename)
    synced()
    assert steps[-3:] == [f"flush {work}", f"rename {work} {db}", f"flush {tmp_path}"]
