"""What `ck.sync`'s progress bars and summary cost: a 100k-post sync with and without them.

    .venv/bin/python bench/sync_progress.py [--small] [--posts 100000] [--repeat 3]

Both runs go through `ck.sync` against the synthetic page server (bench/_page_server.py,
its own process). With progress, the bars are drawn as on a terminal (`visible()` is
forced, their text goes to a discarded stream) and the one-line summary is printed.
Target: with / without <= 1.02. `--small` syncs 10k posts, once each, for a quick check.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import tempfile
import time
from pathlib import Path

from _page_server import running

import channelkit as ck
from channelkit.client import Client
from channelkit.sync import progress as bars


def one_sync(base_url: str, directory: Path, *, progress: bool) -> float:
    path = directory / f"wh-{time.monotonic_ns()}.duckdb"
    sink = io.StringIO()
    started = time.perf_counter()
    with Client(base_url=base_url, api_key="bench-key") as client, contextlib.redirect_stderr(sink):
        wh = ck.sync(client, path, only="posts,channels", progress=progress)
    elapsed = time.perf_counter() - started
    assert wh.sync_report is not None and wh.sync_report.completed
    if progress:
        assert "sync completed in" in sink.getvalue(), "the bars were not drawn"
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--small", action="store_true", help="10k posts, one run each")
    args = parser.parse_args()
    posts, repeat = (10_000, 1) if args.small else (args.posts, args.repeat)
    # Bars as on a terminal: the benchmark's stderr is not one.
    bars.visible = lambda: True  # type: ignore[assignment]
    with running(posts) as base_url, tempfile.TemporaryDirectory() as tmp:
        quiet, shown = [], []
        for _ in range(repeat):  # interleaved: a busy machine hurts both alike
            quiet.append(one_sync(base_url, Path(tmp), progress=False))
            shown.append(one_sync(base_url, Path(tmp), progress=True))
    best_quiet, best_shown = min(quiet), min(shown)
    print(f"posts: {posts:,}, runs of each: {repeat}")
    print(f"ck.sync without progress: {best_quiet:.2f} s")
    print(f"ck.sync with bars + summary: {best_shown:.2f} s")
    print(f"ratio with / without: {best_shown / best_quiet:.3f} (target <= 1.02)")


if __name__ == "__main__":
    main()
