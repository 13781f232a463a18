"""`--slots best`: the weekday-hours when a channel's posts were read most, from the warehouse.

A channel's read rate is readers per post over its audience; within one channel the
audience is the same for every hour, so the hours rank the same by readers per post
(`readers_per_post` of `Warehouse.publishing_heatmap`). A channel with too few published
posts to tell (`PUBLISH_BEST_MIN_POSTS`) gets the organisation's best hours instead.
"""

from __future__ import annotations

from datetime import time
from pathlib import Path
from typing import TYPE_CHECKING

from channelkit._constants import PUBLISH_BEST_MIN_POSTS, PUBLISH_BEST_SLOTS
from channelkit.errors import InvalidParameterError
from channelkit.publish.slots import Slot

if TYPE_CHECKING:
    import pandas as pd

    from channelkit.warehouse import Warehouse


class BestTimes:
    """Best slots per channel from a synced warehouse, cached per channel.

    best = BestTimes("warehouse.duckdb", tz="Europe/Berlin")
    best.slots(channel_id)      # ((1, 09:00), (3, 13:00), ...): weekday, wall time
    best.source(channel_id)     # "the channel's own 57 posts" / "the organisation's"
    """

    def __init__(
        self,
        db: str | Path,
        *,
        tz: str,
        count: int = PUBLISH_BEST_SLOTS,
        min_posts: int = PUBLISH_BEST_MIN_POSTS,
    ) -> None:
        from channelkit.warehouse import Warehouse

        self.warehouse: Warehouse = Warehouse(db)
        self.tz = tz
        self.count = count
        self.min_posts = min_posts
        self._cache: dict[str | None, tuple[tuple[Slot, ...], str]] = {}

    def slots(self, channel_id: str) -> tuple[Slot, ...]:
        return self._best(channel_id)[0]

    def source(self, channel_id: str) -> str:
        return self._best(channel_id)[1]

    def _best(self, channel_id: str | None) -> tuple[tuple[Slot, ...], str]:
        if channel_id not in self._cache:
            try:
                frame = self.warehouse.publishing_heatmap(channel=channel_id, tz=self.tz)
                posts = int(frame["posts_published"].sum())
            except InvalidParameterError:  # a channel the warehouse has not synced yet
                frame, posts = None, 0
            if channel_id is not None and posts < self.min_posts:
                slots, source = self._best(None)
                self._cache[channel_id] = (
                    slots,
                    f"the organisation's best hours (the channel has {posts} published posts, "
                    f"fewer than {self.min_posts})",
                )
            else:
                assert frame is not None  # only a named channel can be missing
                whose = "the organisation's" if channel_id is None else "the channel's own"
                self._cache[channel_id] = (
                    best_slots(frame, self.count),
                    f"{whose} read rate over {posts} published posts",
                )
        return self._cache[channel_id]


def best_slots(heatmap: pd.DataFrame, count: int) -> tuple[Slot, ...]:
    """The `count` weekday-hours with the most readers per post (ties: earlier first)."""
    used = heatmap[heatmap["posts_published"] > 0]
    ranked = used.sort_values(
        ["readers_per_post", "weekday", "hour"], ascending=[False, True, True], kind="stable"
    )
    top = ranked.head(count)
    pairs = zip(top["weekday"].astype(int), top["hour"].astype(int), strict=True)
    return tuple(sorted((int(weekday), time(int(hour))) for weekday, hour in pairs))
