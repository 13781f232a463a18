"""The listings a sync walks, taken from the contract (`channelkit._spec`).

One row per warehouse table that a listing fills: its path, the scope that reads it and
the `--only` group it belongs to. The runner walks these, the progress bars are labelled
by them; a new listing in the contract needs one row here.
"""

from __future__ import annotations

from dataclasses import dataclass

from channelkit import _spec


@dataclass(frozen=True)
class Listing:
    resource: str  # the warehouse table it fills, also its progress label
    group: str  # the `--only` name that selects it
    path: str

    @property
    def scope(self) -> str:
        """The scope of the listing's operation in the contract."""
        return next(
            op.scope for op in _spec.OPERATIONS if op.method == "GET" and op.path == self.path
        )


LISTINGS = (
    Listing("channels", "channels", _spec.CHANNELS),
    Listing("posts", "posts", _spec.POSTS),
    Listing("post_daily", "analytics", _spec.ANALYTICS_POSTS),
    Listing("channel_daily", "analytics", _spec.ANALYTICS_CHANNELS),
)
BY_RESOURCE = {listing.resource: listing for listing in LISTINGS}
BY_PATH = {listing.path: listing for listing in LISTINGS}
# `--only` group -> its tables, in walking order
GROUPS: dict[str, tuple[str, ...]] = {}
for _listing in LISTINGS:
    GROUPS[_listing.group] = (*GROUPS.get(_listing.group, ()), _listing.resource)
