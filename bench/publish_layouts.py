"""Dry run of 10,000 rows from another tool's bulk file, beside the native template.

Run: .venv/bin/python bench/publish_layouts.py [--small]

The same posts are written as a channelkit posts file (the baseline), as a Hootsuite bulk
file (no header, day-first dates settled by the column, a link to keep in the body, the
title derived) and as a Buffer file (12-hour times); each is read and validated by
`load_spreadsheet` (a dry run without a service: what `channelkit schedule FILE` does
before --submit), as CSV and as XLSX. Figures: seconds (best of 3) and the ratio to the
native file of the same rows and kind. Target: a recognised layout's 10,000 rows in
<= 5 s. `--small` runs 500 rows once (a quick check that the bench runs).
"""

from __future__ import annotations

import argparse
import csv
import io
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from openpyxl import Workbook

from channelkit.publish import load_spreadsheet
from channelkit.publish.layouts.read import Choices

ROWS = 10_000
REPEATS = 3
TARGET_SECONDS = 5.0


def posts() -> list[tuple[datetime, str, str]]:
    start = datetime(2031, 1, 6, 8, 0)
    return [
        (
            start + timedelta(days=i // 20, minutes=30 * (i % 20)),
            f"Post number {i}. Body of **post {i}** for the whole team.",
            f"https://intranet.example.com/{i}",
        )
        for i in range(ROWS)
    ]


def native(items: list[tuple[datetime, str, str]]) -> list[list[object]]:
    return [["channel", "title", "body", "scheduled_at"]] + [
        ["news", f"Post number {i}.", f"{text}\n\n<{link}>", f"{when:%Y-%m-%d %H:%M}"]
        for i, (when, text, link) in enumerate(items)
    ]


def hootsuite(items: list[tuple[datetime, str, str]]) -> list[list[object]]:
    return [[f"{when:%d/%m/%Y %H:%M}", text, link] for when, text, link in items]


def buffer(items: list[tuple[datetime, str, str]]) -> list[list[object]]:
    rows: list[list[object]] = [["Text", "Image URL", "Tags", "Posting Time"]]
    for when, text, _ in items:
        hour = when.hour % 12 or 12
        clock = f"{hour}:{when:%M} {'AM' if when.hour < 12 else 'PM'}"
        rows.append([text, "", "news, weekly", f"{when:%Y-%m-%d} {clock}"])
    return rows


def as_csv(rows: list[list[object]]) -> bytes:
    buffer_ = io.StringIO(newline="")
    csv.writer(buffer_).writerows(rows)
    return buffer_.getvalue().encode()


def as_xlsx(rows: list[list[object]]) -> bytes:
    workbook = Workbook()
    sheet = workbook.active
    assert sheet is not None
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    workbook.save(out)
    return out.getvalue()


def best_of_rounds(runs: dict[str, Callable[[], None]]) -> dict[str, float]:
    """Best time of each run over REPEATS rounds, the runs taking turns within a round so
    that a busy machine slows them alike."""
    best = dict.fromkeys(runs, float("inf"))
    next(iter(runs.values()))()  # untimed: the first run also imports pandas and friends
    for _ in range(REPEATS):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - started)
    return best


def dry_run(data: bytes, filename: str, choices: Choices | None) -> Callable[[], None]:
    def run() -> None:
        plan = load_spreadsheet(data, filename=filename, tz="Europe/Berlin", choices=choices)
        assert plan.is_valid, plan.errors[:3]
        assert len(plan.rows) == ROWS

    return run


def main() -> None:
    global ROWS, REPEATS
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="500 rows, once: a quick run")
    if parser.parse_args().small:
        ROWS, REPEATS = 500, 1
    items = posts()
    one_channel = Choices(channel="news")
    files = {
        "native": (native(items), None),
        "Hootsuite": (hootsuite(items), one_channel),
        "Buffer": (buffer(items), one_channel),
    }
    print(f"rows: {ROWS:,} (best of {REPEATS}); dry run = load_spreadsheet, no service")
    within = True
    for kind, write in (("csv", as_csv), ("xlsx", as_xlsx)):
        runs = {
            name: dry_run(write(rows), f"posts.{kind}", choices)
            for name, (rows, choices) in files.items()
        }
        timings = best_of_rounds(runs)
        base = timings.pop("native")
        print(f"{kind.upper():4} native template: {base:.3f} s")
        for name, seconds in timings.items():
            within = within and seconds <= TARGET_SECONDS
            print(
                f"{kind.upper():4} {name:10} layout: {seconds:.3f} s = {seconds / base:.2f}x native"
            )
    print(f"every recognised layout within {TARGET_SECONDS:.0f} s: {within}")


if __name__ == "__main__":
    main()
