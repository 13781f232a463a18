"""`ck.approve` in a notebook cell: the same as `channelkit approve`, with the policy and
the key from the arguments or the environment (`CHANNELKIT_APPROVAL_POLICY`,
`CHANNELKIT_APPROVAL_KEY`).

    ck.approve()                                   # what waits: a list of Review
    ck.approve(["post_1"], by="ann")               # approve these (ApprovalResult)
    ck.approve(every=True, by="ann", shift=timedelta(days=1))
    ck.approve(["post_2"], by="bob", reject="Wrong date")
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from channelkit.errors import ChannelkitError
from channelkit.publish.approval import approving
from channelkit.publish.approval.policy import Policy
from channelkit.publish.approval.signing import Signer

if TYPE_CHECKING:
    from channelkit.client import Client


def approve(
    posts: str | Sequence[str] = (),
    *,
    by: str | None = None,
    policy: str | Path | Policy | None = None,
    key: str | Path | None = None,
    every: bool = False,
    channel: str | Sequence[str] | None = None,
    tag: str | Sequence[str] | None = None,
    reject: str | None = None,
    publish_missed: bool = False,
    shift: timedelta | None = None,
    client: Client | None = None,
) -> list[approving.Review] | approving.ApprovalResult:
    """List what waits for approval (nothing chosen), or approve (or `reject`, with the
    reason) the posts chosen, as `by` with their own key. Without `client`, one from
    `CHANNELKIT_BASE_URL` and `CHANNELKIT_API_KEY`."""
    if client is None:
        from channelkit.client import Client

        with Client() as own:
            return approve(
                posts, by=by, policy=policy, key=key, every=every, channel=channel, tag=tag,
                reject=reject, publish_missed=publish_missed, shift=shift, client=own,
            )  # fmt: skip
    rules = policy if isinstance(policy, Policy) else Policy.load(policy)
    if not rules.rules:
        raise ChannelkitError("no approval policy: pass policy= or set CHANNELKIT_APPROVAL_POLICY")
    ids = [posts] if isinstance(posts, str) else list(posts)
    if not (ids or every or channel or tag):
        return approving.waiting(client, rules)
    if by is None:
        raise ChannelkitError("say who approves: by= your name in the policy")
    if reject is not None:
        return approving.reject(client, rules, by, reject, posts=ids)
    return approving.approve(
        client, rules, Signer.load(by, key), posts=ids, channel=channel, tag=tag,
        every=every, publish_missed=publish_missed, shift=shift,
    )  # fmt: skip
