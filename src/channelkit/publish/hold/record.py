"""What this machine held, each post's scheduled time written down before it is moved.

A table `held` beside the sent posts in the ledger file (`CHANNELKIT_LEDGER`), in the
spirit of the ledger: a post is recorded `holding` with its scheduled time, its tags and
its version (ETag) before the request that moves it to draft leaves, and becomes `held`
with the version the move gave it once the answer is in; `releasing` (with the time it
goes back to) before the request that puts it back leaves, `released` after. A process
killed between the two steps of either leaves the first: the next run reads the post and
finishes or redoes that step, never both (the post's own state says which).

The post carries its scheduled time too (its hold mark, `channelkit.publish.hold.holding`), so a
colleague's machine sees it in `hold --status` and can release it; this record adds what
only this machine can know: the post's version right after the hold, so that any change
to a post while held (its content or not) is recognised and left alone.

    with HoldBook.open() as book:
        book.holding(service, post, mark)          # before the move to draft
        book.settle(service, post.id, "held", etag=moved.etag)
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from channelkit._constants import ENV_LEDGER
from channelkit._sqlite_record import Transaction
from channelkit.errors import ChannelkitError
from channelkit.publish.hold.mark import HoldMark, unmarked
from channelkit.publish.post.ledger import Ledger

if TYPE_CHECKING:
    from channelkit.client.models import Post

HoldState = Literal["holding", "held", "releasing", "released", "left"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS held (
    service TEXT NOT NULL,
    post_id TEXT NOT NULL,
    state TEXT NOT NULL
        CHECK (state IN ('holding', 'held', 'releasing', 'released', 'left')),
    channel_id TEXT NOT NULL,
    title TEXT NOT NULL,
    scheduled_at TEXT NOT NULL,
    tags TEXT NOT NULL,
    etag TEXT,
    target TEXT,
    held_by TEXT NOT NULL,
    held_since TEXT NOT NULL,
    note TEXT,
    recorded_at TEXT NOT NULL,
    PRIMARY KEY (service, post_id)
) WITHOUT ROWID
"""


@dataclass(frozen=True)
class HoldRecord:
    """One post this machine held. `etag` is the post's version after the last step
    recorded (before the move while `holding`); `target` the time it goes back to while
    `releasing` (None: published at once); `note` why it was `left` alone."""

    post_id: str
    state: HoldState
    channel_id: str
    title: str
    scheduled_at: datetime
    tags: tuple[str, ...]
    etag: str | None
    target: datetime | None
    held_by: str
    held_since: datetime
    note: str | None

    @classmethod
    def of(cls, post: Post, mark: HoldMark, etag: str | None, since: datetime) -> HoldRecord:
        """The record of `post` held by `mark` (state `holding`), its other tags kept."""
        return cls(
            post_id=post.id,
            state="holding",
            channel_id=post.channel_id,
            title=post.title,
            scheduled_at=mark.scheduled_at,
            tags=tuple(unmarked(post.tags)),
            etag=etag,
            target=None,
            held_by=mark.by,
            held_since=since,
            note=None,
        )


class HoldBook(Ledger):
    """The ledger file with the hold records of this machine (see the module docstring)."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        try:
            self._con.execute(_SCHEMA)
        except sqlite3.Error as exc:
            self.close()
            raise ChannelkitError(
                f"cannot open the hold record in {path}: {exc}; nothing was changed "
                f"(set {ENV_LEDGER} to a file in a folder you can write)"
            ) from None

    def records(self, service: str, states: Sequence[HoldState]) -> list[HoldRecord]:
        marks = ",".join("?" * len(states))
        rows = self._con.execute(
            "SELECT post_id, state, channel_id, title, scheduled_at, tags, etag, target, "
            f"held_by, held_since, note FROM held WHERE service = ? AND state IN ({marks}) "
            "ORDER BY scheduled_at, post_id",
            [service, *states],
        ).fetchall()
        return [_record(row) for row in rows]

    def record(self, service: str, post_id: str) -> HoldRecord | None:
        row = self._con.execute(
            "SELECT post_id, state, channel_id, title, scheduled_at, tags, etag, target, "
            "held_by, held_since, note FROM held WHERE service = ? AND post_id = ?",
            (service, post_id),
        ).fetchone()
        return None if row is None else _record(row)

    def holding(self, service: str, record: HoldRecord) -> None:
        """Write `record` (state `holding`) before the post is moved; a post held before
        and released since starts a new record."""
        self._write(service, "holding", record, None)

    def releasing(self, service: str, record: HoldRecord, target: datetime | None) -> None:
        """Write that the post goes back at `target` (None: at once) before it is moved;
        a post held from another machine gets its record here."""
        self._write(service, "releasing", record, target)

    def _write(
        self, service: str, state: HoldState, record: HoldRecord, target: datetime | None
    ) -> None:
        with Transaction(self._con) as con:
            con.execute(
                "INSERT OR REPLACE INTO held VALUES (?,?,?,?,?,?,?,?,?,?,?,NULL,?)",
                (
                    service,
                    record.post_id,
                    state,
                    record.channel_id,
                    record.title,
                    _text(record.scheduled_at),
                    json.dumps(list(record.tags)),
                    record.etag,
                    None if target is None else _text(target),
                    record.held_by,
                    _text(record.held_since),
                    _text(datetime.now(UTC)),
                ),
            )

    def settle(
        self,
        service: str,
        post_id: str,
        state: HoldState,
        *,
        etag: str | None = None,
        note: str | None = None,
    ) -> None:
        """Move a record to `state`, with the post's version now (when known) and why."""
        with Transaction(self._con) as con:
            con.execute(
                "UPDATE held SET state = ?, etag = coalesce(?, etag), note = ?, recorded_at = ? "
                "WHERE service = ? AND post_id = ?",
                (state, etag, note, _text(datetime.now(UTC)), service, post_id),
            )


def _record(row: tuple[object, ...]) -> HoldRecord:
    post_id, state, channel_id, title, scheduled, tags, etag, target, by, since, note = row
    return HoldRecord(
        post_id=str(post_id),
        state=state,  # type: ignore[arg-type]  # the table's CHECK keeps it one of them
        channel_id=str(channel_id),
        title=str(title),
        scheduled_at=datetime.fromisoformat(str(scheduled)),
        tags=tuple(json.loads(str(tags))),
        etag=None if etag is None else str(etag),
        target=None if target is None else datetime.fromisoformat(str(target)),
        held_by=str(by),
        held_since=datetime.fromisoformat(str(since)),
        note=None if note is None else str(note),
    )


def _text(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")
