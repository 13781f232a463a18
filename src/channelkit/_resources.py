"""The synced resources, each declared once: every fact the sync and the copies need.

The sync's walks, phases, deletion marking and Arrow shapes, what the writer does after
writing a table (reach, totals, revival, tags), the schema's contract columns,
`wh.freshness()`'s row counts, the `--only` help, the Parquet export's order and the Delta
lake's tables all derive from `RESOURCES`; a new synced resource is one `Resource` here (and
its table, a migration in `schema.py`).

    posts = BY_TABLE["posts"]
    posts.path, posts.key, posts.deletable      # '/posts', ('id',), True
    [r.table for r in RESOURCES if r.phase == 2]   # ['post_daily', 'channel_daily']

A leaf below the sync and the storage, importing only the contract: both read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from channelkit import _spec

# How a resource is walked: every item at once (and deletions told by a full walk), by
# publishing time (a window of recently published items, unpublished ones re-read, a slice
# of older history), or by day (a window of dates, dated from the items phase 1 wrote).
WalkKind = Literal["whole", "published", "days"]
# A table's part in the posts' reach (storage/reach.py): "held", its rows carry their
# reach (kept when a row is rewritten, computed for a new one from the daily rows synced
# before it); "given", its rows give the post named by its first key column its reach.
ReachPart = Literal["held", "given"]
# A table's part in the daily totals (storage/totals.py): "counted", a row marked deleted
# takes its post's daily rows out of the totals and one that comes back (revival) puts them
# back; "summed", its rows are what the totals sum.
TotalsPart = Literal["counted", "summed"]


@dataclass(frozen=True)
class ChildTable:
    """A list field kept as rows of a table of its own, rewritten with its item.

    ChildTable("tags", "post_tags", parent="post_id", value="tag")
    """

    field: str  # the item's list field
    table: str
    parent: str  # the child table's column naming the item (its key)
    value: str  # the child table's column of one element

    @property
    def order(self) -> str:
        """How its Parquet files are sorted."""
        return f"{self.parent}, {self.value}"


@dataclass(frozen=True)
class Resource:
    """One listing of the contract and the warehouse table it fills.

    `fields` are the contract's fields of an item (None: `day_fields` name a daily row's,
    all required); `required` are the table's NOT NULL columns. Phase 1 runs before
    phase 2, whose plans read what phase 1 wrote. `deletable`: a full walk marks the rows
    it did not see as deleted. `order` sorts the Parquet files; `by_month` partitions the
    Parquet and lake copies by the month of `date`. `past_changes`: rows of past days
    change after the fact, so an incremental run also re-reads a slice of its history.

    What the writer does after writing the table, as dlt's resource hints say it (named,
    with defaults: a resource that needs none says nothing): `reach` and `totals` (see
    `ReachPart`, `TotalsPart`), and `child`, a list field kept as a table of its own.
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
    past_changes: bool = False
    reach: ReachPart | None = None
    totals: TotalsPart | None = None
    child: ChildTable | None = None

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
        walk="published",
        phase=1,
        deletable=True,
        order="published_at, id",
        fields=_spec.POST_FIELDS,
        required=("id", "channel_id", "title", "priority", "status"),
        reach="held",
        totals="counted",
        child=ChildTable("tags", "post_tags", parent="post_id", value="tag"),
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
        reach="given",
        totals="summed",
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
        past_changes=True,  # a channel's past days change when its posts are deleted
    ),
)
BY_TABLE = {resource.table: resource for resource in RESOURCES}
BY_PATH = {resource.path: resource for resource in RESOURCES}
# The tables of each phase, in order; a walk by publishing time, the longest, starts first.
PHASES: tuple[tuple[str, ...], ...] = tuple(
    tuple(
        r.table for r in sorted(RESOURCES, key=lambda r: r.walk != "published") if r.phase == phase
    )
    for phase in sorted({r.phase for r in RESOURCES})
)
# The tables a list field is kept in (`post_tags`)
CHILD_TABLES: tuple[ChildTable, ...] = tuple(r.child for r in RESOURCES if r.child is not None)
# `--only` group -> its tables, in walking order
GROUPS: dict[str, tuple[str, ...]] = {}
for _resource in RESOURCES:
    GROUPS[_resource.group] = (*GROUPS.get(_resource.group, ()), _resource.table)
