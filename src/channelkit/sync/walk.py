"""The state of one walk of one listing, as its checkpoint keeps it between runs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from channelkit.storage.writer import Checkpoint
from channelkit.sync.checkpoints import Step, decode, encode


@dataclass
class Walk:
    """One walk of one listing, as saved in its checkpoint so that it can be resumed.

        walk = Walk("posts", {"published_after": "2026-11-01T00:00:00+00:00"}, False, now)
        checkpoint = Checkpoint("posts", run_id, cursor=next_cursor, params=walk.state())
        Walk.resume("posts", checkpoint) == walk   # once cursor is set on both

    `full` marks an unfiltered walk (it may detect deletions); `max_seen` is the newest
    `published_at` seen so far (posts), `step` the plan step it walks (an analytics range,
    a slice of history), which its end needs.
    """

    resource: str
    query: dict[str, str]
    full: bool
    started_at: datetime
    cursor: str | None = None
    max_seen: datetime | None = None
    step: Step | None = None

    def state(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "full": self.full,
            "started_at": self.started_at.isoformat(),
            "max_seen": self.max_seen.isoformat() if self.max_seen else None,
            "extra": encode(self.step),
        }

    @classmethod
    def resume(cls, resource: str, checkpoint: Checkpoint) -> Walk:
        state = checkpoint.params or {}
        max_seen = state.get("max_seen")
        return cls(
            resource=resource,
            query=dict(state["query"]),
            full=bool(state["full"]),
            started_at=datetime.fromisoformat(state["started_at"]),
            cursor=checkpoint.cursor,
            max_seen=datetime.fromisoformat(max_seen) if max_seen else None,
            step=decode(state.get("extra") or {}),
        )

    @classmethod
    def restore(cls, resource: str, checkpoint: Checkpoint | None) -> Walk | None:
        """The walk `checkpoint` left in progress, if any and readable."""
        if checkpoint is None or not checkpoint.in_progress:
            return None
        try:
            return cls.resume(resource, checkpoint)
        except (KeyError, ValueError):  # written by another version: the walk starts over
            return None  # another version's: the walk starts over


def resumable(checkpoint: Checkpoint | None, wanted: Walk, since_given: bool) -> bool:
    """Continue an interrupted walk unless this run asks for more than it would read."""
    if Walk.restore(wanted.resource, checkpoint) is None or checkpoint is None:
        return False
    stored = checkpoint.params or {}
    if since_given:
        return bool(stored.get("query") == wanted.query)
    return bool(stored.get("full")) or not wanted.full
