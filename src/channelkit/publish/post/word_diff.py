"""What changed in a text, word by word, for a dry run to show (`difflib` on words).

    word_diff("Reminder: update your emergency contact details",
              "Reminder: update your emergency contact details by Friday")
    # '… emergency contact details {+by Friday+}'

Removed words are shown `[-like this-]`, added ones `{+like this+}` (git's --word-diff
style); unchanged runs longer than the context are cut to `…`, so a change deep in a long
body is never hidden behind two identical truncated strings. Pure: no I/O.
"""

from __future__ import annotations

import difflib

from channelkit._constants import WORD_DIFF_CONTEXT_WORDS, WORD_DIFF_RUN_WORDS


def word_diff(old: str, new: str, *, context: int = WORD_DIFF_CONTEXT_WORDS) -> str:
    """The changed words of `old` → `new` with `context` unchanged words around them."""
    before, after = old.split(), new.split()
    if before == after:
        return "only spaces or line breaks changed" if old != new else "(no change)"
    codes = difflib.SequenceMatcher(a=before, b=after, autojunk=False).get_opcodes()
    parts: list[str] = []
    for index, (tag, start, end, new_start, new_end) in enumerate(codes):
        if tag == "equal":
            parts.append(_context(before[start:end], index == 0, index == len(codes) - 1, context))
            continue
        if end > start:
            parts.append(f"[-{_run(before[start:end])}-]")
        if new_end > new_start:
            parts.append(f"{{+{_run(after[new_start:new_end])}+}}")
    return " ".join(part for part in parts if part)


def _context(words: list[str], first: bool, last: bool, context: int) -> str:
    """An unchanged run: the words next to a change, `…` for the rest."""
    head = [] if first else words[:context]
    tail = [] if last else words[-context:] if context else []
    if len(head) + len(tail) >= len(words):
        return " ".join(words)
    return " ".join([*head, "…", *tail])


def _run(words: list[str]) -> str:
    if len(words) <= WORD_DIFF_RUN_WORDS:
        return " ".join(words)
    shown = " ".join(words[:WORD_DIFF_RUN_WORDS])
    return f"{shown} … ({len(words) - WORD_DIFF_RUN_WORDS} more words)"
