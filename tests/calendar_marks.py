"""Sets the `calendar` marks test by test from what the clock watch saw.

    CHANNELKIT_CLOCK_REPORT=clock.tsv .venv/bin/python -m pytest tests/x.py tests/y.py
    .venv/bin/python tests/calendar_marks.py clock.tsv

The watch (tests/fixtures/clock.py) appends a line per test to the report: node id, marked,
skipped, where it read the wall clock unpinned. For each test file every test of which the
report holds: a test function one of whose cases read gets `@pytest.mark.calendar`, one
none of whose cases read loses it, and a file-wide `pytestmark` calendar mark stays only
when every test reads. A test the report does not hold (not run, or skipped) keeps the mark
it had. The calendar run (tests/calendar_run.py) then repeats exactly the tests that read.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = "pytest.mark.calendar"
_IN_A_LIST = "pytestmark = [pytest.mark.slow, pytest.mark.calendar]"
_IMPORTED = re.compile(r"^import pytest$", re.MULTILINE)
_FIRST_IMPORT = re.compile(r"^(import |from (?!__future__))", re.MULTILINE)


def read_report(lines: list[str]) -> dict[str, dict[str, bool]]:
    """file: {test function: whether one of its cases read}, skipped cases left out."""
    reads: dict[str, dict[str, bool]] = defaultdict(dict)
    for line in lines:
        nodeid, _marked, skipped, where = line.rstrip("\n").split("\t")
        if skipped == "1":
            continue
        file, _, rest = nodeid.partition("::")
        function = rest.split("[", 1)[0].split("::")[-1]
        reads[file][function] = reads[file].get(function, False) or bool(where)
    return reads


def _has_mark(text: str, node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[int]:
    """The 0-based lines of `node`'s calendar decorators."""
    return [
        d.lineno - 1 for d in node.decorator_list if MARK in (ast.get_source_segment(text, d) or "")
    ]


def _file_wide(text: str) -> int | None:
    """The 0-based line of the module's own calendar `pytestmark` (not one in a string: a
    test may plant a module)."""
    for node in ast.parse(text).body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets)
            and MARK in (ast.get_source_segment(text, node) or "")
        ):
            return node.lineno - 1
    return None


def remark(text: str, reads: dict[str, bool]) -> str:
    """`text` (a test module) with its calendar marks set from `reads`."""
    wide_at = _file_wide(text)
    file_wide = wide_at is not None
    if file_wide and all(reads.values()):
        return text
    tests = [
        node
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test")
    ]
    lines = text.splitlines(keepends=True)
    add: list[int] = []  # 0-based lines of `def`s that get the mark
    drop: list[int] = []
    for node in tests:
        marked = _has_mark(text, node)
        read = reads.get(node.name)
        if read is None:  # not seen: it keeps what it had
            if file_wide and not marked:
                add.append(node.lineno - 1)
        elif read and not marked:
            add.append(node.lineno - 1)
        elif not read:
            drop += marked
    if wide_at is not None:
        drop.append(wide_at)
    for index in sorted(add + drop, reverse=True):
        if index == wide_at and lines[index].startswith(_IN_A_LIST):
            lines[index] = lines[index].replace(_IN_A_LIST, "pytestmark = pytest.mark.slow")
        elif index in drop:
            del lines[index]
        else:
            indent = lines[index][: len(lines[index]) - len(lines[index].lstrip())]
            lines.insert(index, f"{indent}@{MARK}\n")
    new = "".join(lines)
    if f"@{MARK}" in new and not _IMPORTED.search(new):
        first = _FIRST_IMPORT.search(new)
        at = first.start() if first else 0
        new = f"{new[:at]}import pytest\n{new[at:]}"  # ruff's isort puts it in its place
    return new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="the file CHANNELKIT_CLOCK_REPORT named")
    args = parser.parse_args(argv)
    for file, reads in sorted(read_report(args.report.read_text().splitlines()).items()):
        path = ROOT / file
        text = path.read_text(encoding="utf-8")
        new = remark(text, reads)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"{file}: {sum(reads.values())} of {len(reads)} test functions read the clock")
    return 0


if __name__ == "__main__":
    sys.exit(main())
