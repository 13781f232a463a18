"""`--slots best`: the weekday-hours when a channel's posts were reliably read more, from
the warehouse (`Warehouse.best_times`, docs/metrics.md "Best times").

The slots are the hours reliably better than the rest (`distinct`, with `vs_rest` above
1), best first: the verdict "some hours reliably better". When no hour is reliably better
("no hour reliably better (some reliably worse)" or "no reliable difference": the same
words as `best_times`' verdict), ranking them would name noise: the posts are spread
over the channel's usual hours instead, the weekday-hours it published most in
(`fill_blank_times` takes the next free one of them, so a file's posts fall on them in
turn). A channel with too few posts old enough to judge
(`PUBLISH_BEST_MIN_POSTS`) gets the organisation's hours.
"""

from __future__ import annotations

from datetime import time
from pathlib import Path
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from channelkit._constants import PUBLISH_BEST_MIN_POSTS, PUBLISH_BEST_SLOTS
from channelkit.errors import InvalidParameterError
from channelkit.publish.sheets.slots import Slot

if TYPE_CHECKING:
    import pandas as pd

    from channelkit.warehouse import Warehouse


class BestTimes:
    """Best slots per channel from a synced warehouse, cached per channel.

    best = BestTimes("warehouse.duckdb", tz=ZoneInfo("Europe/Berlin"))
    best.slots(channel_id)      # ((1, 09:00), (3, 13:00), ...): weekday, wall time
    best.source(channel_id)     # "the channel's own 57 posts: some hours reliably better..."
    """

    def __init__(
        self,
        db: str | Path,
        *,
        tz: ZoneInfo,
        count: int = PUBLISH_BEST_SLOTS,
        min_posts: int = PUBLISH_BEST_MIN_POSTS,
    ) -> None:
        from channelkit.warehouse import Warehouse

        self.warehouse: Warehouse = Warehouse(db)
        self.tz = tz
        self.count = count
        self.min_posts = min_posts
        self._cache: dict[str | None, tuple[tuple[Slot, ...], str]] = {}

    def slots(self, channel_id: str | None) -> tuple[Slot, ...]:
        """The channel's best slots (None: the organisation's)."""
        return self._best(channel_id)[0]

    def source(self, channel_id: str | None) -> str:
        return self._best(channel_id)[1]

    def _best(self, channel_id: str | None) -> tuple[tuple[Slot, ...], str]:
        if channel_id not in self._cache:
            try:
                frame = self.warehouse.best_times(channel=channel_id, tz=self.tz.key)
                posts = int(frame.attrs["posts_judged"])
            except InvalidParameterError:  # a channel the warehouse has not synced yet
                frame, posts = None, 0
            if channel_id is not None and posts < self.min_posts:
                slots, source = self._best(None)
                self._cache[channel_id] = (
                    slots,
                    f"{source} (the channel has {posts} posts old enough to judge, fewer "
                    f"than {self.min_posts})",
                )
            else:
                assert frame is not None  # only a named channel can be missing
                whose = "the organisation's" if channel_id is None else "the channel's own"
                self._cache[channel_id] = _choose(frame, self.count, f"{whose} {posts} posts")
        return self._cache[channel_id]


def _choose(frame: pd.DataFrame, count: int, whose: str) -> tuple[tuple[Slot, ...], str]:
    """The reliably better hours, or the usual ones when none is, and why."""
    better = frame[frame["distinct"].fillna(False).astype(bool) & (frame["vs_rest"] > 1)]
    if len(better):
        chosen = better.sort_values("rank", kind="stable").head(count)
        return _slots(chosen), (
            f"{whose}: {frame.attrs['verdict']}: {len(chosen)} "
            f"{'hour' if len(chosen) == 1 else 'hours'} reliably read more than the rest "
            "(readers at the same age, relative to their channel)"
        )
    usual = frame[frame["posts"] > 0].sort_values(
        ["posts", "weekday", "hour"], ascending=[False, True, True], kind="stable"
    )
    return _slots(usual.head(count)), (
        f"{whose}: {frame.attrs['verdict']}, so posts are spread over the usual hours "
        "(the weekday-hours with the most posts)"
    )


def _slots(frame: pd.DataFrame) -> tuple[Slot, ...]:
    pairs = zip(frame["weekday"].astype(int), frame["hour"].astype(int), strict=True)
    return tuple(sorted((int(weekday), time(int(hour))) for weekday, hour in pairs))
