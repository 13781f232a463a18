"""Whose view a warehouse holds: the channels the key could see, fingerprinted.

The spec has no "who am I" call, and a key sees exactly the channels its user may see
(decisions.md): so the set of channel ids a listing returns is the key's view, and its
fingerprint (eight hex characters of SHA-256 over the sorted ids, never the key) names it.
Each run records the view it saw. A run that cannot see channels of the warehouse's last
completed run that still hold posts there would mark those posts deleted merely because it
cannot see them: it refuses before anything is written, naming both views and the flag
that accepts the change (`new_view`, `--new-view`: the warehouse given to another key on
purpose). A channel gone from the view with no post left in the warehouse passes: the
service deletes only empty channels (decisions.md), so that is a deletion, marked as ever.
A wider view (a channel created since) is taken as it is.

    seen = View.listed(client)
    check_view(View.of_record(previous), seen, holding_posts=held.channels_with_posts,
               accept=False)                                  # SyncViewError, or nothing
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from channelkit._constants import SYNC_VIEW_NAMES_SHOWN
from channelkit.errors import SyncViewError

if TYPE_CHECKING:
    from channelkit.client import Client


@dataclass(frozen=True)
class View:
    """The channels a key sees: `channels` maps each id to its name (for messages).

    >>> View({"chan_1": "All hands"}).describe()
    'view c4781366 (1 channel)'
    """

    channels: Mapping[str, str]

    @property
    def fingerprint(self) -> str:
        text = "\n".join(sorted(self.channels))
        return hashlib.sha256(text.encode()).hexdigest()[:8]

    def describe(self) -> str:
        count = len(self.channels)
        return f"view {self.fingerprint} ({count} channel{'s' if count != 1 else ''})"

    def record(self) -> dict[str, Any]:
        """What the run's record keeps of it (ids and names: the warehouse has both)."""
        return {"fingerprint": self.fingerprint, "channels": dict(sorted(self.channels.items()))}

    @classmethod
    def of_record(cls, record: Mapping[str, Any] | None) -> View | None:
        if not record or not isinstance(record.get("channels"), Mapping):
            return None
        return cls({str(k): str(v) for k, v in record["channels"].items()})

    @classmethod
    def listed(cls, client: Client) -> View:
        """The view of `client`'s key: one listing of the channels it can see."""
        return cls({channel.id: channel.name for channel in client.channels.list()})


def check_view(
    filled_by: View | None,
    seen: View,
    *,
    holding_posts: Callable[[Collection[str]], Collection[str]],
    accept: bool,
) -> None:
    """Refuse (`SyncViewError`) a run whose view lacks channels of the view that filled the
    warehouse which still hold posts there (`holding_posts` says which of some ids do),
    unless `accept`; a first run, or a view recorded by no run, passes."""
    if filled_by is None or accept:
        return
    gone = set(filled_by.channels) - set(seen.channels)
    unseen = sorted(holding_posts(gone) if gone else (), key=lambda c: (filled_by.channels[c], c))
    if not unseen:
        return
    names = [filled_by.channels[c] for c in unseen[:SYNC_VIEW_NAMES_SHOWN]]
    more = len(unseen) - len(names)
    listed = ", ".join(repr(name) for name in names) + (f" and {more} more" if more else "")
    raise SyncViewError(
        f"this key sees {seen.describe()}, but the warehouse was filled through "
        f"{filled_by.describe()}, {len(unseen)} of whose channels with posts this key cannot see "
        f"({listed}); nothing was written, so that their posts are not marked deleted: sync "
        "with the key that filled it, give this key its own --db, or pass --new-view "
        "(new_view=True) if those channels are gone for good"
    )
