"""`channelkit approve`: list what waits for approval, approve or reject it.

channelkit approve --new-key --as ann            # once: a key pair; the public line to share
channelkit approve                                # what waits: channel, time, author, text
channelkit approve --as ann post_1 post_2         # approve these (or --channel, --tag, --all)
channelkit approve --as bob --reject "Wrong date" post_3
channelkit approve --as ann --all --shift 1d      # missed ones a day later
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import click

from channelkit._cli import (
    Output,
    ServiceOptions,
    options_value,
    output_options,
    reach,
    service_options,
    tz_option,
    user_errors,
)
from channelkit._constants import ENV_APPROVAL_KEY, ENV_APPROVAL_POLICY
from channelkit._tz import DEFAULT_ZONE
from channelkit.publish.post.missed_options import missed_options, parse_missed

if TYPE_CHECKING:
    from channelkit.publish.approval.approving import ApprovalResult, Review


@dataclass(frozen=True)
class ApproveOptions:
    """`channelkit approve`'s flags, as given.

    >>> ApproveOptions(posts=("post_1",), by="ann").every
    False
    """

    posts: tuple[str, ...] = ()
    by: str | None = None
    policy: str | None = None
    key: str | None = None
    new_key: bool = False
    reject: str | None = None
    every: bool = False
    channel: tuple[str, ...] = ()
    tag: tuple[str, ...] = ()
    publish_missed: str | None = None
    shift: str | None = None
    tz: ZoneInfo | None = None  # resolved by --tz's type

    @property
    def zone(self) -> ZoneInfo:
        return self.tz or DEFAULT_ZONE

    @property
    def chooses(self) -> bool:
        return bool(self.posts or self.every or self.channel or self.tag)


@click.command()
@options_value(ApproveOptions, "options")
@click.argument("posts", nargs=-1)
@click.option("--as", "by", metavar="NAME", help="Who you are: your name in the policy.")
@click.option("--policy", metavar="FILE", help=f"The team's policy file (${ENV_APPROVAL_POLICY}).")
@click.option("--key", metavar="FILE", help=f"Your private key (${ENV_APPROVAL_KEY}).")
@click.option("--new-key", is_flag=True, help="Make your key pair; print the line to share.")
@click.option("--reject", metavar="REASON", help="Reject the posts given, with this reason.")
@click.option("--all", "every", is_flag=True, help="Approve every post listed (not rejected).")
@click.option("--channel", multiple=True, help="Approve the posts of this channel (repeat).")
@click.option("--tag", multiple=True, help="Approve the posts with this tag (repeat).")
@missed_options(waited="waiting")
@tz_option("Time zone of the times listed.", default=None)
@service_options()
@output_options()
def approve(options: ApproveOptions, service: ServiceOptions, output: Output) -> None:
    """List the posts that wait for approval, or approve (or --reject) them: an approved
    post is scheduled at its time, once; an edit after approval voids it."""
    with user_errors():
        run_approve_command(options, service, output)


def run_approve_command(options: ApproveOptions, service: ServiceOptions, output: Output) -> None:
    from channelkit.client import Client
    from channelkit.publish.approval import approving
    from channelkit.publish.approval.policy import Policy
    from channelkit.publish.approval.signing import Signer

    name = options.by
    if name is None and (options.new_key or options.reject is not None or options.chooses):
        raise click.UsageError("say who approves: --as NAME (your name in the policy)")
    if options.new_key:
        assert name is not None
        signer = Signer.generate(name)
        path = signer.save(options.key)
        output.result(f"your private key: {path} (keep it; it never leaves this machine)")
        output.result(f"add this line to [approvers] of the team's policy:\n{signer.public_line()}")
        return
    publish_now, shift = parse_missed(publish_missed=options.publish_missed, shift=options.shift)
    policy = Policy.load(options.policy)
    if not policy.rules:
        raise click.UsageError(
            f"no approval policy: give --policy FILE or set {ENV_APPROVAL_POLICY}"
        )
    config = service.config(needed_for="to approve posts")
    with Client(**config.client_settings()) as client:
        reach(client, config, output.warn)
        if options.reject is not None:
            assert name is not None
            if not options.posts:
                raise click.UsageError("--reject needs the ids of the posts it rejects")
            for review in approving.reject(
                client, policy, name, options.reject, posts=options.posts
            ):
                output.result(f"rejected  {review.lines(options.zone)[0]}")
            return
        if not options.chooses:
            listed = approving.waiting(
                client, policy, channel=list(options.channel) or None, tag=list(options.tag) or None
            )
            for review in listed:
                output.result("\n".join(review.lines(options.zone)))
            output.json({"waiting": [_json(review) for review in listed]})
            output.result(f"{len(listed)} awaiting approval")
            return
        assert name is not None
        result = approving.approve(
            client, policy, Signer.load(name, options.key), posts=options.posts,
            channel=list(options.channel) or None, tag=list(options.tag) or None,
            every=options.every, publish_missed=publish_now, shift=shift,
            tz=options.zone,
        )  # fmt: skip
    _report(result, options.zone, output)


def _report(result: ApprovalResult, zone: ZoneInfo, output: Output) -> None:
    for review, at in result.scheduled:
        moved = "published now" if at is None else "scheduled"
        output.result(f"approved, {moved}  {review.lines(zone)[0]}")
    for review in result.recorded:
        output.result(f"approved, needs more  {review.lines(zone)[0]}")
    for review in result.already:
        output.result(f"already approved  {review.lines(zone)[0]}")
    for review in result.missed:
        output.warn(
            f"missed  {review.lines(zone)[0]}: its time passed while it waited; it keeps "
            "waiting (approve it with --publish-missed now or --shift DURATION)"
        )
    for review, why in result.refused:
        output.warn(f"refused  {review.post.id}: {why}")
    output.json(
        {
            "scheduled": [_json(r) for r, _ in result.scheduled],
            "recorded": [_json(r) for r in result.recorded],
            "already": [_json(r) for r in result.already],
            "missed": [_json(r) for r in result.missed],
            "refused": [{**_json(r), "why": why} for r, why in result.refused],
        }
    )
    output.result(
        f"{len(result.scheduled)} approved and scheduled, {len(result.recorded)} need more "
        f"approvals, {len(result.missed)} missed, {len(result.refused)} refused"
    )
    if result.refused or result.missed:
        raise SystemExit(1)


def _json(review: Review) -> dict[str, object]:
    return {
        "post_id": review.post.id,
        "channel": review.channel,
        "at": review.at if isinstance(review.at, str) else review.at.isoformat(),
        "author": review.author,
        "title": review.post.title,
        "body": review.post.body,
        "approved_by": list(review.approved_by),
        "needed": review.needed,
        "problems": list(review.problems),
        "rejected": [{"by": by, "reason": why} for by, why in review.rejected],
    }
