"""The synced resources, each declared once: every fact the sync and the copies need.

The sync's walks, phases, deletion marking and Arrow shapes, the Parquet export's order
and the Delta lake's tables all derive from `RESOURCES`; a new synced resource is one
`Resource` here (and its table, a migration in `schema.py`).

    posts = BY_TABLE["posts"]
    posts.path, posts.key, posts.deletable      # '/posts', ('id',), True
    [r.table for r in RESOURCES if r.phase == 2]   # ['post_daily', 'channel_daily']

A leaf below the sync and the storage, importing only the contract: both read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from channelkit import _spec

# How a resource is walked: every item at once (and deletions told by a full walk), the
# posts (a window of recent posts, drafts re-read, a slice of older history), or days of
# analytics (a window of dates, dated from the items phase 1 wrote).
WalkKind = Literal["whole", "posts", "days"]


@dataclass(frozen=True)
class Resource:
    """One listing of the contract and the warehouse table it fills.

    `fields` are the contract's fields of an item (None: `day_fields` name a daily row's,
    all required); `required` are the table's NOT NULL columns. Phase 1 runs before
    phase 2, whose plans read what phase 1 wrote. `deletable`: a full walk marks the rows
    it did not see as deleted. `order` sorts the Parquet files; `by_month` partitions the
    Parquet and lake copies by the month of `date`.
    """

    table: str  # also the progress label and the folder of its copies
    path: str
    group: str  # the `--only` name that selects it
    key: tuple[str, ...]
    walk: WalkKind
    phase: int
    deletable: bool
    order: str
    fields: tuple[_spec.Field, ...] | None = None
    day_fields: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    by_month: bool = False

    @property
    def scope(self) -> str:
        """The scope of the listing's operation in the contract."""
        return next(
            op.scope for op in _spec.OPERATIONS if op.method == "GET" and op.path == self.path
        )


RESOURCES: tuple[Resource, ...] = (
    Resource(
        "channels",
        _spec.CHANNELS,
        "channels",
        ("id",),
        walk="whole",
        phase=1,
        deletable=True,
        order="id",
        fields=_spec.CHANNEL_FIELDS,
        required=("id", "name", "slug", "visibility"),
    ),
    Resource(
        "posts",
        _spec.POSTS,
        "posts",
        ("id",),
        walk="posts",
        phase=1,
        deletable=True,
        order="published_at, id",
        fields=_spec.POST_FIELDS,
        required=("id", "channel_id", "title", "priority", "status"),
    ),
    Resource(
        "post_daily",
        _spec.ANALYTICS_POSTS,
        "analytics",
        ("post_id", "date"),
        walk="days",
        phase=2,
        deletable=False,
        order="date, post_id",
        day_fields=_spec.POST_DAY_FIELDS,
        by_month=True,
    ),
    Resource(
        "channel_daily",
        _spec.ANALYTICS_CHANNELS,
        "analytics",
        ("channel_id", "date"),
        walk="days",
        phase=2,
        deletable=False,
        order="date, channel_id",
        day_fields=_spec.CHANNEL_DAY_FIELDS,
        by_month=True,
    ),
)
BY_TABLE = {resource.table: resource for resource in RESOURCES}
BY_PATH = {resource.path: resource for resource in RESOURCES}
# The tables of each phase, in order; the posts walk, the longest, starts first in its phase.
PHASES: tuple[tuple[str, ...], ...] = tuple(
    tuple(r.table for r in sorted(RESOURCES, key=lambda r: r.walk != "posts") if r.phase == phase)
    for phase in sorted({r.phase for r in RESOURCES})
)
# `--only` group -> its tables, in walking order
GROUPS: dict[str, tuple[str, ...]] = {}
for _resource in RESOURCES:
    GROUPS[_resource.group] = (*GROUPS.get(_resource.group, ()), _resource.table)
