"""The IPython hook: metric frames (and frames with columns whose names say a rate or a
ratio, as a merge of one leaves) display formatted, every other DataFrame as before.

`IPython`'s `for_type(pd.DataFrame, func)` replaces the HTML printer of every DataFrame,
and a printer returning None leaves the frame with no HTML at all (IPython does not fall
back to `_repr_html_` then), so frames without channelkit's marker are handed to the
printer that was there before, or to pandas' own `_repr_html_`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from channelkit.display.frames import frame_html, shows_kinds

HTML = "text/html"


def register() -> bool:
    """Install the formatter in the running IPython shell, once; False outside IPython."""
    shell = _shell()
    if shell is None:
        return False
    import pandas as pd

    formatter = shell.display_formatter.formatters[HTML]
    current = formatter.lookup_by_type(pd.DataFrame) if _has(formatter, pd.DataFrame) else None
    if getattr(current, "_channelkit", False):
        return True
    formatter.for_type(pd.DataFrame, _printer(current))
    return True


def _printer(previous: Callable[[Any], str | None] | None) -> Callable[[Any], str | None]:
    def show(frame: Any) -> str | None:
        if shows_kinds(frame):
            return frame_html(frame)
        if previous is not None:
            return previous(frame)
        shown: str | None = frame._repr_html_()
        return shown

    show._channelkit = True  # type: ignore[attr-defined]
    return show


def _has(formatter: Any, kind: type) -> bool:
    try:
        formatter.lookup_by_type(kind)
    except KeyError:
        return False
    return True


def _shell() -> Any:
    # Only a shell already running: importing IPython here would cost every script.
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    return get() if get is not None else None
