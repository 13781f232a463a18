"""Generate the blocking client `_client.py` from the one hand-written `_async_client.py`.

    python -m channelkit.client._unasync --write   # after editing _async_client.py
    python -m channelkit.client._unasync --check   # exit 1 when _client.py is stale

The rewrite is line by line through `SUBSTITUTIONS` (the idea of encode/httpcore's
`scripts/unasync.py`); tests/client/test_unasync.py fails when the generated file is stale
or when a substitution no longer matches anything, so the table cannot rot either.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from pathlib import Path

SOURCE = Path(__file__).with_name("_async_client.py")
TARGET = Path(__file__).with_name("_client.py")
COMMAND = "python -m channelkit.client._unasync --write"
HEADER = (
    "# GENERATED from _async_client.py: edit that file, not this one, then run\n"
    f"# `{COMMAND}`\n"
    "# (tests/client/test_unasync.py fails when this file is stale).\n"
)

# (pattern, replacement), applied in order to every line; patterns match whole words.
SUBSTITUTIONS: tuple[tuple[str, str], ...] = (
    # Whole import lines first, so the rewritten imports stay sorted for ruff.
    (
        r"from collections\.abc import AsyncGenerator, AsyncIterator, Callable, Mapping, Sequence",
        "from collections.abc import Callable, Generator, Iterator, Mapping, Sequence",
    ),
    (r"import asyncio", "import time"),
    (r"asyncio\.sleep", "time.sleep"),
    (r"AsyncGenerator\[(.+), None\]", r"Generator[\1, None, None]"),
    (r"Async([A-Z][A-Za-z0-9_]*)", r"\1"),
    (r"async def", "def"),
    (r"async with", "with"),
    (r"async for", "for"),
    (r"await ", ""),
    (r"anext", "next"),
    (r"aclose", "close"),
    (r"__aenter__", "__enter__"),
    (r"__aexit__", "__exit__"),
    (r"__aiter__", "__iter__"),
    (r"asyncio task", "thread"),
)


def _whole_words(pattern: str) -> re.Pattern[str]:
    """`pattern` not glued to other word characters: `aclose` leaves `flaclosed` alone."""
    end = r"(?![A-Za-z0-9_])" if re.match(r"\w", pattern[-1]) else ""
    return re.compile(r"(?<![A-Za-z0-9_])" + pattern + end)


_COMPILED = tuple((_whole_words(pattern), repl) for pattern, repl in SUBSTITUTIONS)


def unasync(source: str) -> tuple[str, frozenset[int]]:
    """The blocking version of `source`, and the indexes of the substitutions it used."""
    used: set[int] = set()
    lines = []
    for line in source.splitlines(keepends=True):
        for index, (pattern, replacement) in enumerate(_COMPILED):
            line, count = pattern.subn(replacement, line)
            if count:
                used.add(index)
        lines.append(line)
    return HEADER + "".join(lines), frozenset(used)


def problems(source: str, current: str) -> list[str]:
    """Why `current` is not what `source` generates (empty when it is up to date)."""
    expected, used = unasync(source)
    found = []
    unused = [SUBSTITUTIONS[i][0] for i in range(len(SUBSTITUTIONS)) if i not in used]
    if unused:
        found.append(f"substitutions no longer used (remove them): {unused}")
    if current != expected:
        found.append(f"{TARGET.name} is stale: run `{COMMAND}`")
    return found


def write_or_check(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args not in (["--write"], ["--check"]):
        print("usage: python -m channelkit.client._unasync --write | --check", file=sys.stderr)
        return 2
    source = SOURCE.read_text(encoding="utf-8")
    if args == ["--write"]:
        generated, _ = unasync(source)
        TARGET.write_text(generated, encoding="utf-8")
        print(f"wrote {TARGET}")
        args = ["--check"]
    found = problems(source, TARGET.read_text(encoding="utf-8"))
    for problem in found:
        print(problem, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(write_or_check())
