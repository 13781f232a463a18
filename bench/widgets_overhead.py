"""What the publishing widgets add on top of the core they show (kernel side).

Run: .venv/bin/python bench/widgets_overhead.py

Figures, each as a ratio to a baseline measured in this script:
- BulkUpload.load of a 5,000-row CSV (read, validate, check against a local service, build
  the status and the table) against the same work done by `channelkit.publish` alone
  (`load_spreadsheet` + `check_against` + `preview()`). Target <= 1.10.
- One Composer body edit (the live preview re-rendered) of a 20,000-character Markdown body,
  against `render_markdown` of the same text. Target <= 1.5.
Sending widget state to the browser is not part of either figure (no kernel here).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from datetime import date, timedelta

from channelkit._markdown import render_markdown
from channelkit.client import Client
from channelkit.publish import load_spreadsheet
from channelkit.service import LocalService
from channelkit.widgets import BulkUpload, Composer

ROWS = 5_000
CHANNELS = 10
EDITS = 10
REPEATS = 5


def best_of(baseline: Callable[[], object], measured: Callable[[], object]) -> tuple[float, float]:
    """Best times of the two, run alternately so that a busy moment hits both alike."""
    timings: tuple[list[float], list[float]] = ([], [])
    for _ in range(REPEATS):
        for function, times in zip((baseline, measured), timings, strict=True):
            started = time.perf_counter()
            function()
            times.append(time.perf_counter() - started)
    return min(timings[0]), min(timings[1])


def posts_csv() -> bytes:
    start = date.today() + timedelta(days=30)
    lines = ["channel,title,body,scheduled_at,timezone,priority,tags"]
    for i in range(ROWS):
        day = start + timedelta(days=i // 40)
        lines.append(
            f"bench-{i % CHANNELS},Post {i},Body of **post {i}**,"
            f"{day:%Y-%m-%d} {8 + (i % 40) // 4:02d}:{15 * (i % 4):02d},Europe/Berlin,"
            f'normal,"news, team-{i % 7}"'
        )
    return "\n".join(lines).encode()


def markdown_body() -> str:
    paragraph = (
        "## Release notes\n\nThe **new search** is faster; see [the notes]"
        "(https://example.com/notes).\n\n- one\n- two\n- three\n\n"
    )
    return (paragraph * (20_000 // len(paragraph) + 1))[:20_000]


def main() -> None:
    with LocalService(admin=True) as service:
        key = service.create_key(plan="enterprise")
        with Client(base_url=service.base_url, api_key=key) as client:
            for i in range(CHANNELS):
                client.channels.create(name=f"Bench {i}", slug=f"bench-{i}")
            content = posts_csv()

            def core() -> None:
                plan = load_spreadsheet(content, filename="posts.csv", tz="Europe/Berlin")
                plan.check_against(client)
                plan.preview()

            widget = BulkUpload(client, tz="Europe/Berlin")
            plan = widget.load(content, "posts.csv")
            assert plan is not None and plan.is_valid, widget.status.value
            core_s, widget_s = best_of(core, lambda: widget.load(content, "posts.csv"))

            composer = Composer(client, tz="Europe/Berlin")
            body = markdown_body()
            texts = [f"{body}{i}" for i in range(EDITS)]

            def render_only() -> None:
                for text in texts:
                    render_markdown(text)

            def edit() -> None:
                for text in texts:
                    composer.body.value = text

            render_s, edit_s = (seconds / EDITS for seconds in best_of(render_only, edit))

    print(f"BulkUpload.load, {ROWS:,} rows: {widget_s:.3f} s")
    print(f"  core alone (load + check + preview): {core_s:.3f} s")
    print(f"  ratio: {widget_s / core_s:.3f} (target <= 1.10)")
    print(f"Composer body edit, {len(body):,} characters: {edit_s * 1000:.2f} ms")
    print(f"  render_markdown alone: {render_s * 1000:.2f} ms")
    print(f"  ratio: {edit_s / render_s:.3f} (target <= 1.5)")


if __name__ == "__main__":
    if "--small" in sys.argv[1:]:  # a run of a few seconds (the test suite runs it so)
        ROWS, REPEATS, EDITS = 100, 1, 2
    main()
