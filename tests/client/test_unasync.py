"""The blocking client is generated from the async one and cannot drift from it."""

from __future__ import annotations

import subprocess
import sys

from channelkit.client import _unasync


def test_generated_client_is_up_to_date_and_every_substitution_is_used() -> None:
    source = _unasync.SOURCE.read_text(encoding="utf-8")
    current = _unasync.TARGET.read_text(encoding="utf-8")
    assert _unasync.problems(source, current) == []


def test_a_hand_edit_of_the_generated_file_is_caught() -> None:
    source = _unasync.SOURCE.read_text(encoding="utf-8")
    current = _unasync.TARGET.read_text(encoding="utf-8")
    edited = current.replace("def retrieve(", "def fetch(", 1)
    assert edited != current
    assert _unasync.problems(source, edited) == [f"_client.py is stale: run `{_unasync.COMMAND}`"]


def test_an_unused_substitution_is_reported() -> None:
    generated, used = _unasync.unasync("async def f() -> None:\n    await g()\n")
    assert generated.endswith("def f() -> None:\n    g()\n")
    assert len(used) == 2 and len(_unasync.SUBSTITUTIONS) > 2
    assert "substitutions no longer used" in _unasync.problems("x = 1\n", "")[0]


def test_substitutions_leave_longer_words_alone() -> None:
    generated, _ = _unasync.unasync("flaclosed = anextra(Asyncio)\n")
    assert generated.endswith("flaclosed = anextra(Asyncio)\n")


def test_check_command_exits_zero() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "channelkit.client._unasync", "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
