"""Progress bars per resource (tqdm.auto: a widget in Jupyter, text in a terminal).

Bars appear only where someone can see them: in a Jupyter kernel or when stderr is a
terminal. Rate-limit waits reported by the client's `on_wait` hook show on the bar of the
resource whose request waits, so a slow sync explains itself. In a plain Python prompt
whose stderr is no terminal (an editor's console, `python -i` over a pipe) bars would not
draw: lines say the same, one every SYNC_PROGRESS_LINE_SECONDS at most, and each wait for
the rate limit at once, so that a sync is never a minute of silence.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Literal

from channelkit._constants import SYNC_PROGRESS_LINE_SECONDS, SYNC_PROGRESS_MIN_WAIT_SECONDS
from channelkit._resources import BY_PATH
from channelkit._terminal import progress_visible

if TYPE_CHECKING:
    from channelkit.sync.report import SyncReport


def visible() -> bool:
    """Whether bars would be seen: a Jupyter kernel, or stderr attached to a terminal."""
    return progress_visible()


Shown = Literal["bars", "lines"] | None


def shown(asked: bool) -> Shown:
    """How progress is shown when `asked`: bars where they draw, lines in a plain
    interactive prompt, else nothing (a script's or cron's output stays quiet)."""
    if not asked:
        return None
    if visible():
        return "bars"
    return "lines" if hasattr(sys, "ps1") or sys.flags.interactive else None


def one_line(report: SyncReport) -> str:
    """The summary printed under the bars when a sync ends: what changed, and its cost."""
    state = "completed" if report.completed else "NOT completed"
    changed = {
        table: counts.new + counts.updated
        for table, counts in report.counts.items()
        if table not in report.skipped
    }
    tables = ", ".join(f"{table} {n:,}" for table, n in changed.items() if n)
    waits = (
        f", {report.rate_limit_waits} rate-limit waits ({report.wait_seconds:.1f} s)"
        if report.rate_limit_waits
        else ""
    )
    return (
        f"sync {state} in {report.duration_seconds:.1f} s: "
        f"{sum(changed.values()):,} rows new or updated ({tables or 'none'}), "
        f"{report.requests:,} requests{waits}"
        + (f"; error: {report.error}" if report.error else "")
    )


class Progress:
    """One bar per resource, or lines (`lines=True`); a no-op when neither is enabled.

    progress = Progress(enabled=visible())
    progress.advance("posts", rows=100)
    progress.waiting("/posts", 2.5, "pacing")
    progress.close()
    """

    def __init__(self, *, enabled: bool, lines: bool = False) -> None:
        self.enabled = enabled and not lines
        self.lines = lines
        self._bars: dict[str, Any] = {}
        self._rows: dict[str, int] = {}
        self._said = time.monotonic()
        self._lock = threading.Lock()

    @classmethod
    def of(cls, how: Shown) -> Progress:
        return cls(enabled=how == "bars", lines=how == "lines")

    def _say(self, text: str) -> None:
        print(f"sync: {text}", file=sys.stderr, flush=True)
        self._said = time.monotonic()

    def _bar(self, resource: str) -> Any:
        with self._lock:
            bar = self._bars.get(resource)
            if bar is None:
                from tqdm.auto import tqdm

                # A terminal reporting 0 lines (some ptys) would make tqdm hide every bar;
                # shutil falls back to $LINES or 24 then.
                bar = tqdm(
                    desc=f"{resource:<13}",
                    unit=" rows",
                    leave=True,
                    nrows=shutil.get_terminal_size().lines,
                )
                self._bars[resource] = bar
            return bar

    def advance(self, resource: str, rows: int) -> None:
        if self.lines:
            with self._lock:
                self._rows[resource] = self._rows.get(resource, 0) + rows
                if time.monotonic() - self._said >= SYNC_PROGRESS_LINE_SECONDS:
                    self._say(", ".join(f"{t} {n:,} rows" for t, n in self._rows.items()))
        if self.enabled:
            bar = self._bar(resource)
            bar.set_postfix_str("", refresh=False)
            bar.update(rows)

    def waiting(self, path: str, seconds: float, reason: str) -> None:
        if not (self.enabled or self.lines) or seconds < SYNC_PROGRESS_MIN_WAIT_SECONDS:
            return
        listing = BY_PATH.get(path) or BY_PATH.get(path.rsplit("/", 1)[0])
        resource = listing.table if listing else "posts"
        why = "rate limit" if reason in ("pacing", "retry_after") else "retrying"
        if self.lines:
            with self._lock:
                if why == "rate limit":
                    self._say(f"{resource}: waiting {seconds:.1f} s for the rate limit")
                else:
                    self._say(f"{resource}: waiting {seconds:.1f} s before retrying")
            return
        self._bar(resource).set_postfix_str(f"{why}: waiting {seconds:.1f} s")

    def finish(self, resource: str, note: str) -> None:
        if self.enabled:
            self._bar(resource).set_postfix_str(note)

    def close(self) -> None:
        with self._lock:
            for bar in self._bars.values():
                bar.close()
            self._bars.clear()
