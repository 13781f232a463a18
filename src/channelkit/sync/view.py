"""Whose view a warehouse holds: the channels the key could see, fingerprinted.

The spec has no "who am I" call, and a key sees exactly the channels its user may see
(decisions.md): so the set of channel ids a listing returns is the key's view, and its
fingerprint (eight hex characters of SHA-256 over the sorted ids, never the key) names it.
Each run records the view it saw. A run that cannot see channels of the warehouse's last
completed run that still hold posts there would mark those posts deleted merely because it
cannot see them: it refuses before anything is written, naming the channels on both sides
and the flag that accepts the change (`new_view`, `--new-view`: the warehouse given to
another key on purpose). A channel gone from the view with no post left in the warehouse
passes: the service deletes only empty channels (decisions.md), so that is a deletion,
marked as ever. A wider view (a channel created since) is taken as it is.

A key without `channels:read` has no view to compare (`UNLISTED`): its runs never mark a
post deleted (a post it does not see may be one its user may not see), it is refused on a
warehouse filled through a view (it cannot be told whether it sees the same channels), and
a key that can list channels is refused on a warehouse such a key filled when channels
holding posts there are outside its view.

    seen = KeyView.of_key(client)                             # or UNLISTED on a 403
    check_view(KeyView.of_record(previous), seen, holding_posts=held.channels_with_posts,
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
class KeyView:
    """The channels a key sees: `channels` maps each id to its name (for messages);
    `listed` is False for a key that may not list channels (`UNLISTED`).

    >>> KeyView({"chan_1": "All hands"}).describe()
    'view c4781366 (1 channel)'
    """

    channels: Mapping[str, str]
    listed: bool = True

    @property
    def fingerprint(self) -> str:
        text = "\n".join(sorted(self.channels))
        return hashlib.sha256(text.encode()).hexdigest()[:8]

    def describe(self) -> str:
        if not self.listed:
            return "a key that cannot list channels (no channels:read)"
        count = len(self.channels)
        return f"view {self.fingerprint} ({count} channel{'s' if count != 1 else ''})"

    def record(self) -> dict[str, Any]:
        """What the run's record keeps of it (ids and names: the warehouse has both)."""
        if not self.listed:
            return {"fingerprint": None, "channels": None, "listed": False}
        return {"fingerprint": self.fingerprint, "channels": dict(sorted(self.channels.items()))}

    @classmethod
    def of_record(cls, record: Mapping[str, Any] | None) -> KeyView | None:
        if record and record.get("listed") is False:
            return UNLISTED
        if not record or not isinstance(record.get("channels"), Mapping):
            return None
        return cls({str(k): str(v) for k, v in record["channels"].items()})

    @classmethod
    def of_key(cls, client: Client) -> KeyView:
        """The view of `client`'s key: one listing of the channels it can see (a 403 when
        the key lacks channels:read is the caller's to turn into `UNLISTED`)."""
        return cls({channel.id: channel.name for channel in client.channels.list()})


# The view of a key without channels:read: none that can be named or compared.
UNLISTED = KeyView({}, listed=False)


def check_view(
    filled_by: KeyView | None,
    seen: KeyView,
    *,
    holding_posts: Callable[[Collection[str] | None], Collection[str]],
    accept: bool,
) -> None:
    """Refuse (`SyncViewError`) a run whose view may lack channels of the view that filled
    the warehouse which still hold posts there (`holding_posts` says which of some ids do,
    None: of all), unless `accept`; a first run, or a view recorded by no run, passes."""
    if filled_by is None or accept or (not seen.listed and not filled_by.listed):
        return
    fix = "sync with the key that filled it, give this key its own --db, or pass --new-view"
    if not seen.listed:
        held = _named(filled_by, holding_posts(filled_by.channels))
        raise SyncViewError(
            f"this key cannot list channels (it lacks channels:read), so it cannot be told "
            f"whether it sees the channels of {filled_by.describe()} that filled the warehouse"
            f" ({held}); nothing was written, so that no post is marked deleted: {fix} "
            "(new_view=True) to sync into it anyway, marking no post deleted"
        )
    if filled_by.listed:
        gone: Collection[str] | None = set(filled_by.channels) - set(seen.channels)
        if not gone:
            return
    else:
        gone = None  # filled without a view: every channel holding posts counts
    unseen = set(holding_posts(gone)) - set(seen.channels)
    if not unseen:
        return
    extra = set(seen.channels) - set(filled_by.channels) if filled_by.listed else set()
    besides = (
        f", {len(extra)} of them not in the warehouse's ({_named(seen, extra)})" if extra else ""
    )
    raise SyncViewError(
        f"this key sees {seen.describe()}{besides}, but the warehouse was filled through "
        f"{filled_by.describe()}, and {len(unseen)} of the channels with posts there this key "
        f"cannot see ({_named(filled_by, unseen)}); nothing was written, so that their posts "
        f"are not marked deleted: {fix} (new_view=True) if those channels are gone for good"
    )


def _named(view: KeyView, ids: Collection[str]) -> str:
    """Up to SYNC_VIEW_NAMES_SHOWN of `ids` by their names in `view` (ids it cannot name)."""
    ordered = sorted(ids, key=lambda c: (view.channels.get(c, c), c))
    names = [view.channels.get(c, c) for c in ordered[:SYNC_VIEW_NAMES_SHOWN]]
    more = len(ordered) - len(names)
    return ", ".join(repr(name) for name in names) + (f" and {more} more" if more else "")
