"""What a sync did: counts per table, requests, rate-limit waits, skips and errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from channelkit._resources import RESOURCES
from channelkit.storage.writer import UpsertCounts
from channelkit.sync.view import KeyView

TABLES = tuple(resource.table for resource in RESOURCES)  # the tables a run counts
# The summary's line on the working copy (`start_copy`); a new warehouse needs none.
_STARTS = {
    "clone": "working copy: a copy-on-write clone of the warehouse, {seconds:.2f} s",
    "copy": "working copy: a plain copy of the warehouse (this file system cannot clone), "
    "{seconds:.1f} s",
    "continued": "working copy: the one an interrupted run left, continued",
}


@dataclass
class SyncReport:
    """The outcome of one `run_sync` / `ck.sync` / `channelkit sync`.

        wh = ck.sync(client, "warehouse.duckdb")
        report = wh.sync_report
        report.counts["posts"].new, report.requests, report.completed
        print(report.summary())

    `skipped` maps a resource to why it was not synced (e.g. a missing scope); `resumed`
    lists the resources that continued a walk an earlier, interrupted run had begun.
    `completed` is False when the run stopped on an error (`error` says which); what it
    wrote is kept and the next run continues from the last checkpoint.
    `history_slice` names the slice of older history an incremental run re-read (for
    example "2/7, posts published 2025-03-01 .. 2025-06-12"); `history_requests`,
    `history_rows` and `history_seconds` are its share of the run's cost.
    """

    run_id: str
    mode: Literal["full", "incremental"]
    base_url: str
    path: str
    counts: dict[str, UpsertCounts] = field(
        default_factory=lambda: {t: UpsertCounts() for t in TABLES}
    )
    requests: int = 0
    pages: int = 0
    retries: int = 0
    responses_429: int = 0
    rate_limit_waits: int = 0
    wait_seconds: float = 0.0
    duration_seconds: float = 0.0
    skipped: dict[str, str] = field(default_factory=dict)
    resumed: list[str] = field(default_factory=list)
    history_slice: str | None = None
    history_requests: int = 0
    history_rows: int = 0
    history_seconds: float = 0.0
    # How the working copy the run wrote came to be (`storage.working_copy`): "clone",
    # "copy", "continued" or "new", and the copy's seconds (before `duration_seconds`
    # starts: the run's own clock begins once the copy is there).
    start_copy: str | None = None
    start_copy_seconds: float = 0.0
    set_aside: str | None = None  # a `.sync` not copied from this warehouse: where it went
    lake_rows: dict[str, int] | None = None
    lake_seconds: float = 0.0
    # Fields items carried that the contract does not name: {table: {field: type}}; and
    # what the run noticed about them (a field whose type changed), said once each.
    unknown_fields: dict[str, dict[str, str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    completed: bool = False
    error: str | None = None
    resumable: bool = True  # False: the next run cannot simply continue (a storage fault)
    # The key's view (`sync.view`): its record, and its one-line description ("view c4781366
    # (12 channels)"); None when the key may not list channels.
    view: dict[str, Any] | None = None

    def counts_dict(self) -> dict[str, dict[str, int]]:
        return {table: counts.as_dict() for table, counts in self.counts.items()}

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "mode": self.mode,
            "base_url": self.base_url,
            "path": self.path,
            "counts": self.counts_dict(),
            "requests": self.requests,
            "pages": self.pages,
            "retries": self.retries,
            "responses_429": self.responses_429,
            "rate_limit_waits": self.rate_limit_waits,
            "wait_seconds": round(self.wait_seconds, 3),
            "duration_seconds": round(self.duration_seconds, 3),
            "skipped": dict(self.skipped),
            "resumed": list(self.resumed),
            "history_slice": self.history_slice,
            "history_requests": self.history_requests,
            "history_rows": self.history_rows,
            "history_seconds": round(self.history_seconds, 3),
            "start_copy": self.start_copy,
            "start_copy_seconds": round(self.start_copy_seconds, 3),
            "set_aside": self.set_aside,
            "lake_rows": dict(self.lake_rows) if self.lake_rows is not None else None,
            "lake_seconds": round(self.lake_seconds, 3),
            "unknown_fields": {t: dict(f) for t, f in self.unknown_fields.items()},
            "notes": list(self.notes),
            "completed": self.completed,
            "error": self.error,
            "view": self.view_text,
        }

    @property
    def view_text(self) -> str | None:
        view = KeyView.of_record(self.view)
        return None if view is None else view.describe()

    def summary(self, *, error: bool = True) -> str:
        """A one-screen text summary, as `channelkit sync` prints it (`error=False`: without
        the error's line, which the command says once, on stderr)."""
        state = "completed" if self.completed else "NOT completed"
        lines = [
            f"sync {state} ({self.mode}) from {self.base_url} into {self.path}"
            + (f", through {self.view_text}" if self.view_text else ""),
            f"{'table':<14}{'new':>9}{'updated':>9}{'unchanged':>11}{'deleted':>9}",
        ]
        for table, c in self.counts.items():
            if table in self.skipped:
                continue
            lines.append(f"{table:<14}{c.new:>9}{c.updated:>9}{c.unchanged:>11}{c.deleted:>9}")
        lines.append(
            f"requests {self.requests} (retries {self.retries}), 429 responses "
            f"{self.responses_429}, rate-limit waits {self.rate_limit_waits}, "
            f"time waiting {self.wait_seconds:.1f} s (rate limits and retry backoff), "
            f"duration {self.duration_seconds:.1f} s"
        )
        if self.start_copy in _STARTS:
            lines.append(_STARTS[self.start_copy].format(seconds=self.start_copy_seconds))
        if self.set_aside:
            lines.append(self.set_aside)
        if self.history_slice:
            lines.append(
                f"older history re-read: slice {self.history_slice}; {self.history_requests} "
                f"requests, {self.history_rows} rows, {self.history_seconds:.1f} s"
            )
        if self.lake_rows is not None:
            merged = sum(self.lake_rows.values())
            lines.append(f"lake: {merged} rows merged in {self.lake_seconds:.1f} s")
        if self.resumed:
            lines.append(f"resumed interrupted walks: {', '.join(self.resumed)}")
        for resource, reason in self.skipped.items():
            lines.append(f"skipped {resource}: {reason}")
        if self.error and error:
            lines.append(f"error: {self.error}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()
