"""Nearest names for "did you mean" messages: pure, shared by every command and layer."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from channelkit._constants import SUGGEST_MAX_NAMES


def nearest(word: str, names: Iterable[str], *, n: int = SUGGEST_MAX_NAMES) -> list[str]:
    """Up to `n` of `names` closest to `word`, nearest first, case-insensitively.

    >>> nearest("synk", ["demo", "sync", "serve"])
    ['sync']
    >>> nearest("ENGINEERING", ["Engineering", "Marketing"])
    ['Engineering']
    """
    by_folded: dict[str, str] = {}
    for name in names:
        by_folded.setdefault(name.casefold(), name)
    folded = word.strip().casefold()
    exact = [by_folded[folded]] if folded in by_folded else []
    close = difflib.get_close_matches(folded, list(by_folded), n=n, cutoff=0.6)
    starts = sorted(name for name in by_folded if folded and name.startswith(folded))
    ordered = dict.fromkeys(
        [*exact, *(by_folded[c] for c in close), *(by_folded[s] for s in starts)]
    )
    return list(ordered)[:n]


def choices_text(word: str, names: Iterable[str], *, n: int = SUGGEST_MAX_NAMES) -> str:
    """ "did you mean 'x'? valid: a, b, c, ..." for messages; nearest names first.

    >>> choices_text("synk", ["demo", "sync", "serve"])
    "did you mean 'sync'? choices: sync, demo, serve"
    """
    everything = list(dict.fromkeys(names))
    close = nearest(word, everything, n=n)
    rest = [name for name in everything if name not in close]
    listed = [*close, *rest]
    shown = ", ".join(listed[:n]) + (f", ... ({len(listed)} in all)" if len(listed) > n else "")
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"{hint}choices: {shown}"
