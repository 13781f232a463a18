"""Readers during a rate-limited sync: the code before (the sync holds the warehouse for
its whole run) side by side with the working copy (`storage/working_copy.py`).

    .venv/bin/python bench/sync_readers.py [--window 60] [--small]

The demo workspace under the starter key (60 requests a window), with windows of
`--window` seconds: the default full sync then runs for minutes, most of it waiting for the
rate limit, as a cron sync on a modest plan does. Each way runs the same full sync twice:
alone, then with three reader processes querying in a loop (`ck.Warehouse(...).posts()`,
and plain read-only DuckDB connections opened per read, twice). Printed per way: the
sync's time alone and with readers (ratio to the code before alone), its counts, and each
reader's reads, failed reads and longest wait for a lock. "Before" is `run_sync` as it
was: `open_warehouse(path, read_only=False)` held while `_Sync.run()` runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from channelkit.client import Client  # noqa: E402
from channelkit.service import LocalService  # noqa: E402
from channelkit.storage.connection import open_warehouse  # noqa: E402
from channelkit.sync import SyncReport, run_sync  # noqa: E402
from channelkit.sync.options import SyncOptions  # noqa: E402
from channelkit.sync.progress import Progress  # noqa: E402
from channelkit.sync.runner import _Sync  # noqa: E402
from fixtures.readers import start_readers, stop_readers  # noqa: E402

MODES = ("warehouse", "plain", "plain")


def before(client: Client, path: Path) -> SyncReport:
    """run_sync before the working copy: the warehouse held writable for the whole run."""
    began = (client.stats, time.monotonic())
    con = open_warehouse(path, read_only=False)
    try:
        options = SyncOptions.check(full=True)
        progress = Progress.of(None)
        sync = _Sync(client, con, path=str(path), options=options, progress=progress)
        return sync.run(began)
    finally:
        con.close()


def now(client: Client, path: Path) -> SyncReport:
    return run_sync(client, path, progress=False, full=True)


def measured(
    service: LocalService,
    key: str,
    path: Path,
    sync: Callable[[Client, Path], SyncReport],
    readers: bool,
) -> tuple[float, SyncReport, list[dict[str, object]]]:
    stop = path.with_name("stop")
    stop.unlink(missing_ok=True)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    started_readers = start_readers(path, stop, MODES if readers else (), env)
    time.sleep(2 if readers else 0)
    with Client(service.base_url, key) as client:
        started = time.perf_counter()
        report = sync(client, path)
        seconds = time.perf_counter() - started
    seen = stop_readers(started_readers, stop, timeout=300)
    return seconds, report, seen


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--window", type=float, default=60.0, help="rate-limit window, s")
    parser.add_argument("--small", action="store_true", help="1-second windows")
    args = parser.parse_args()
    window = 1.0 if args.small else args.window
    folder = Path(tempfile.mkdtemp())
    print(f"demo workspace, starter key, {window:g} s rate-limit windows, full syncs")
    with LocalService(seed="demo", rate_window=window) as service:
        key = service.demo_keys["starter"]
        rows: list[tuple[str, float, SyncReport, list[dict[str, object]]]] = []
        for name, sync in (("before", before), ("now", now)):
            path = folder / f"{name}.duckdb"
            with Client(service.base_url, key) as client:
                run_sync(client, path, progress=False)  # the warehouse the readers read
            for readers in (False, True):
                seconds, report, seen = measured(service, key, path, sync, readers)
                label = f"{name}, {'3 readers' if readers else 'alone'}"
                rows.append((label, seconds, report, seen))
    baseline = rows[0][1]
    for label, seconds, report, seen in rows:
        counts = {t: (c.new, c.updated, c.unchanged, c.deleted) for t, c in report.counts.items()}
        print(
            f"{label:18s} sync {seconds:7.1f} s ({seconds / baseline:4.2f}x before alone), "
            f"completed {report.completed}, waits {report.rate_limit_waits}, "
            f"posts new/upd/same/del {counts['posts']}"
        )
        for reader in seen:
            print(
                f"{'':18s}   reader {reader['mode']:9s} reads {reader['reads']:5d}  failed "
                f"{reader['failed']:5d}  longest lock wait {reader['longest_wait']:.2f} s"
                f"  longest read after the first {reader['longest_read']:.2f} s"
                + (f"  e.g. {reader['failures'][0][:70]}" if reader["failures"] else "")
            )


if __name__ == "__main__":
    main()
