"""Waiting, approving and rejecting: nothing goes out in an approval channel unless
someone other than its author approved exactly what will be sent.

A post bound for a channel of the policy is a draft carrying its intended time
(`marks.waiting_tag`), on the service, so every colleague's machine sees it. `approve`
signs it (`signing`) and, once it has the approvals its channel needs, schedules it at
that time in one request with `If-Match`: two approvers at once, or a run killed at any
point and run again, schedule each post once (the second finds it scheduled, `already`).
A time that passed while it waited is `missed` and keeps it waiting unless
`publish_missed` or `shift`, as for `release`. An approval binds the post's content and
time: after any edit its signature no longer verifies, and the post waits again
(`keep_waiting` moves a scheduled one back; the listing says why). Approval tags that do
not verify (typed, copied, computed, or made before an edit) are reported, never counted.

    policy = Policy.load("approvals.toml")
    for review in waiting(client, policy):
        print(review.lines("Europe/Berlin"))
    result = approve(client, policy, Signer.load("ann"), every=True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from channelkit._constants import (
    APPROVAL_PLACEHOLDER_DAYS,
    APPROVAL_TAG_PREFIX,
    PUBLISH_HOLD_TAG_PREFIX,
)
from channelkit._tz import UTC_ZONE
from channelkit.errors import ChannelkitError, ConflictError, NotFoundError
from channelkit.publish.approval.marks import (
    NOW,
    Intended,
    approval_tags,
    changed_since,
    rejection_tag,
    rejections,
    seen_tag,
    signatures,
    waiting_tag,
    waiting_time,
    without_approvals,
)
from channelkit.publish.approval.signing import verifies
from channelkit.publish.post import times
from channelkit.publish.post.validation import ChannelIndex, service_now

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Post
    from channelkit.publish.approval.policy import Policy, Rule
    from channelkit.publish.approval.signing import Signer
    from channelkit.publish.post.validation import PostRequest

_RETRIES = 3  # a post changed between our read and our write is read again this often


@dataclass(frozen=True)
class Review:
    """One post in an approval channel as the approvers see it: where and when it goes,
    who wrote it, what it says, who approved it so far, and what is wrong with any
    approval tag it carries (`problems`: voided by an edit, typed, copied, not allowed)."""

    post: Post
    channel: str
    at: Intended
    author: str
    approved_by: tuple[str, ...]
    needed: int
    approvers: tuple[str, ...]
    problems: tuple[str, ...] = ()
    rejected: tuple[tuple[str, str], ...] = ()

    @property
    def ready(self) -> bool:
        return len(self.approved_by) >= self.needed

    def when(self, tz: ZoneInfo) -> str:
        if self.at == NOW:
            return "at once when approved"
        assert isinstance(self.at, datetime)
        return f"{self.at.astimezone(tz):%Y-%m-%d %H:%M} {tz.key}"

    def lines(self, tz: ZoneInfo) -> list[str]:
        """The post as the listing shows it: a head line, then its whole text."""
        head = (
            f'{self.when(tz)}  {self.channel}  "{self.post.title}"  by {self.author}  '
            f"({self.post.id})  {len(self.approved_by)} of {self.needed} approvals"
        )
        lines = [head]
        if self.approved_by:
            lines.append(f"  approved by {', '.join(self.approved_by)}")
        lines += [f"  rejected by {name}: {reason}" for name, reason in self.rejected]
        lines += [f"  {problem}" for problem in self.problems]
        lines += [f"  | {line}" for line in (self.post.body or "").splitlines()]
        return lines


def going_out_at(post: Post) -> Intended | None:
    """When the post goes out as it stands: its waiting tag's time, a hold's time, its
    scheduled time; a published post's publication."""
    recorded = waiting_time(post.tags)
    if recorded is not None:
        return recorded
    for tag in post.tags:  # a held post goes back at its hold's time (`hold.mark`)
        if tag.startswith(PUBLISH_HOLD_TAG_PREFIX):
            text = tag[len(PUBLISH_HOLD_TAG_PREFIX) :].split(":")[0]
            try:
                return datetime.strptime(text, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
            except ValueError:
                continue
    if post.status == "scheduled":
        return post.scheduled_at
    return post.published_at if post.status == "published" else None


def valid_approvals(post: Post, policy: Policy, rule: Rule) -> tuple[list[str], list[str]]:
    """(names whose approval of the post as it is verifies, why each other one does not)."""
    at = going_out_at(post)
    moments: list[Intended] = [] if at is None else [at]
    if post.status == "published":
        moments.append(NOW)  # approved to go out at once
    valid, problems = [], []
    for name, signature in sorted(signatures(post.tags).items()):
        approver = policy.approvers.get(name)
        if approver is None or name not in rule.approvers:
            problems.append(
                f"approval tags by {name} ignored: not an approver of this channel in "
                f"{policy.source}"
            )
        elif not any(verifies(approver, post, moment, signature) for moment in moments):
            changed = changed_since(post.tags, post, moments[0]) if moments else []
            what = f"its {', '.join(changed)} changed after it" if changed else "edited after it"
            problems.append(
                f"approval by {name} is void: {what}, or it was not made with {name}'s key "
                "(copied or typed)"
            )
        elif approver.wrote(post.author) and not rule.self_approval:
            problems.append(f"approval by {name} ignored: {name} wrote it ({policy.source})")
        else:
            valid.append(name)
    return valid, problems


def approval_state(post: Post, policy: Policy, index: ChannelIndex) -> tuple[str, str]:
    """(state, approvers) as the calendar shows them: ("", "") outside approval channels;
    "awaiting", "rejected", "approved" (scheduled or published with a valid approval) or
    "not approved" (a post that went past channelkit), with who approved it validly."""
    rule = policy.rule(post.channel_id, index)
    if rule is None:
        return "", ""
    valid = valid_approvals(post, policy, rule)[0]
    if post.status == "draft" and waiting_time(post.tags) is not None:
        state = "rejected" if rejections(post.tags) else "awaiting"
    elif len(valid) >= rule.approvals:
        state = "approved"
    else:
        state = "not approved" if post.status != "draft" else ""
    return state, ", ".join(valid)


def is_approved(post: Post, policy: Policy, rule: Rule) -> bool:
    return len(valid_approvals(post, policy, rule)[0]) >= rule.approvals


def review_of(post: Post, policy: Policy, rule: Rule, index: ChannelIndex) -> Review:
    valid, problems = valid_approvals(post, policy, rule)
    info = index.get(post.channel_id)
    author = post.author.name or post.author.id if post.author is not None else "someone"
    at = going_out_at(post)
    return Review(
        post,
        (info.slug or info.name) if info is not None else post.channel_id,
        NOW if at is None else at,
        author,
        tuple(valid),
        rule.approvals,
        rule.approvers,
        tuple(problems),
        tuple(rejections(post.tags)),
    )


def waiting(
    client: Client,
    policy: Policy,
    *,
    channel: str | Sequence[str] | None = None,
    tag: str | Sequence[str] | None = None,
) -> list[Review]:
    """Every post waiting for approval the key sees, in time order; first, any scheduled
    post of an approval channel without a valid approval (edited since, or made by a
    route that did not ask) is moved back to waiting (`keep_waiting`)."""
    index = policy.index(client)
    chosen = _chosen_ids(index, channel)
    tags = None if tag is None else {t.casefold() for t in ([tag] if isinstance(tag, str) else tag)}
    found = []
    # one tag is filtered by the service (`GET /posts?tag=`), several here
    for listed in client.posts.list(tag=tag) if isinstance(tag, str) else client.posts.list():
        rule = policy.rule(listed.channel_id, index)
        if rule is None or (chosen is not None and listed.channel_id not in chosen):
            continue
        if tags is not None and not tags & {t.casefold() for t in listed.tags}:
            continue
        post = listed
        if listed.status == "scheduled" and not is_approved(listed, policy, rule):
            post = keep_waiting(client, policy, client.posts.retrieve(listed.id), index=index)
        if post.status == "draft" and waiting_time(post.tags) is not None:
            found.append(review_of(post, policy, rule, index))
    return sorted(found, key=lambda r: (_order(r.at), r.post.id))


def awaiting_in(
    posts: Iterable[Post], policy: Policy, index: ChannelIndex, start: datetime, end: datetime
) -> list[tuple[Post, Intended, Rule]]:
    """The posts waiting for approval to go out in `[start, end)` (or at once), with their
    time and their channel's rule, in time order: read only, for the digests."""
    found = []
    for post in posts:
        at = waiting_time(post.tags) if post.status == "draft" else None
        rule = None if at is None else policy.rule(post.channel_id, index)
        if at is None or rule is None or (isinstance(at, datetime) and not start <= at < end):
            continue
        found.append((post, at, rule))
    return sorted(found, key=lambda item: (_order(item[1]), item[0].id))


def keep_waiting(
    client: Client, policy: Policy, post: Post, *, index: ChannelIndex | None = None
) -> Post:
    """The gate every route passes a post through: one bound for an approval channel
    that is scheduled without a valid approval becomes a draft waiting at its time (with
    `If-Match`: a post changed meanwhile is read again). Anything else is left as it is."""
    index = index or policy.index(client)
    for _ in range(_RETRIES):
        rule = policy.rule(post.channel_id, index)
        if rule is None or post.status != "scheduled" or is_approved(post, policy, rule):
            return post
        assert post.scheduled_at is not None
        # the void approval stays on the draft, so that the listing says why it waits
        tags = [*_without_waiting(post.tags), waiting_tag(post.scheduled_at)]
        try:
            return client.posts.update(post.id, status="draft", tags=tags, if_match=post.etag)
        except ConflictError:
            post = client.posts.retrieve(post.id)
    raise ChannelkitError(f"{post.id} kept changing while it was moved to waiting; run it again")


def untimed(client: Client, policy: Policy, requests: Iterable[PostRequest]) -> str | None:
    """Why posts to send cannot be: one without a time bound for an approval channel (the
    service would publish it at once, before anyone approved it). Asked before sending."""
    if not policy.rules:
        return None
    index = policy.index(client)
    for request in requests:
        if request.scheduled_at is None and policy.rule(request.channel_id, index) is not None:
            return (
                f"{request.channel_name} waits for approval ({policy.source}): give "
                f'"{request.title}" a time; it waits for approval until then'
            )
    return None


def gate(client: Client, policy: Policy, posts: Iterable[Post]) -> dict[str, Post]:
    """`keep_waiting` for each post a route just created or changed: the posts as they
    are after it, by id (those of approval channels now waiting, unless approved)."""
    if not policy.rules:
        return {post.id: post for post in posts}
    index = policy.index(client)
    return {post.id: keep_waiting(client, policy, post, index=index) for post in posts}


def must_wait(
    client: Client, policy: Policy, post: Post, at: Intended, *, moved: bool = False
) -> str | None:
    """The gate of `release`: None when `post` may go out at `at` (no approval channel, or
    approved); else it is made a draft waiting at `at` (hold marks off, `If-Match`) and the
    reason is returned, for the run to report. `moved`: the release gives it another time
    than the one it was held at (`--shift`, `--publish-missed`); an approval binds the
    time, so it waits for a new one at that time."""
    index = policy.index(client)
    rule = policy.rule(post.channel_id, index)
    if rule is None or (not moved and is_approved(post, policy, rule)):
        return None
    kept = [t for t in _without_waiting(post.tags) if not t.startswith(PUBLISH_HOLD_TAG_PREFIX)]
    try:
        client.posts.update(post.id, tags=[*kept, waiting_tag(at)], if_match=post.etag)
    except ConflictError:
        return f"awaits approval ({policy.source}); changed meanwhile, left as it is"
    if moved and is_approved(post, policy, rule):
        return (
            f"awaits approval again ({policy.source}): the approval was for its held time, "
            "released at another; `channelkit approve` lists it"
        )
    return f"awaits approval ({policy.source}): not released; `channelkit approve` lists it"


def submit(
    client: Client,
    policy: Policy,
    *,
    channel_id: str,
    title: str,
    body: str,
    scheduled_at: datetime | None = None,
    tags: Sequence[str] = (),
    priority: str | None = None,
    cover_image_url: str | None = None,
    idempotency_key: str | None = None,
) -> Post:
    """Create a post; in an approval channel, as a draft waiting for approval at
    `scheduled_at` (None: at once when approved). The service only creates published or
    scheduled posts, so it is created scheduled (a post with no time
    `APPROVAL_PLACEHOLDER_DAYS` ahead) with its waiting tag, and moved to draft at once."""
    index = policy.index(client)
    rule = policy.rule(channel_id, index)
    extra: dict[str, object] = {}
    if priority is not None:
        extra["priority"] = priority
    if cover_image_url is not None:
        extra["cover_image_url"] = cover_image_url
    if rule is None:
        return client.posts.create(
            channel_id=channel_id, title=title, body=body, scheduled_at=scheduled_at,
            tags=list(tags), idempotency_key=idempotency_key, **extra,  # type: ignore[arg-type]
        )  # fmt: skip
    at: Intended = NOW if scheduled_at is None else scheduled_at
    placeholder = service_now(client) + timedelta(days=APPROVAL_PLACEHOLDER_DAYS)
    created = client.posts.create(
        channel_id=channel_id, title=title, body=body,
        scheduled_at=scheduled_at or placeholder, tags=[*tags, waiting_tag(at)],
        idempotency_key=idempotency_key, **extra,  # type: ignore[arg-type]
    )  # fmt: skip
    post = client.posts.retrieve(created.id)
    if post.status != "scheduled":
        return post
    return client.posts.update(post.id, status="draft", if_match=post.etag)


@dataclass(frozen=True)
class ApprovalResult:
    """What `approve` did: `scheduled` (review, the time it goes out; None: published
    now), `recorded` (approved, more approvals needed), `missed` (its time passed while it
    waited: still waiting), `refused` (review, why: self-approval, not an approver, a
    rejection, the service's refusal), `already` (scheduled by another approver or run)."""

    scheduled: tuple[tuple[Review, datetime | None], ...] = ()
    recorded: tuple[Review, ...] = ()
    missed: tuple[Review, ...] = ()
    refused: tuple[tuple[Review, str], ...] = ()
    already: tuple[Review, ...] = ()


@dataclass
class _Approved:
    scheduled: list[tuple[Review, datetime | None]] = field(default_factory=list)
    recorded: list[Review] = field(default_factory=list)
    missed: list[Review] = field(default_factory=list)
    refused: list[tuple[Review, str]] = field(default_factory=list)
    already: list[Review] = field(default_factory=list)

    def result(self) -> ApprovalResult:
        return ApprovalResult(
            tuple(self.scheduled),
            tuple(self.recorded),
            tuple(self.missed),
            tuple(self.refused),
            tuple(self.already),
        )


def approve(
    client: Client,
    policy: Policy,
    signer: Signer,
    *,
    posts: Iterable[str] = (),
    channel: str | Sequence[str] | None = None,
    tag: str | Sequence[str] | None = None,
    every: bool = False,
    publish_missed: bool = False,
    shift: timedelta | None = None,
    tz: ZoneInfo = UTC_ZONE,
) -> ApprovalResult:
    """Approve the waiting posts with these ids (or of `channel`/`tag`, or `every` one
    listed; rejected ones only by id) as `signer`; each that has its approvals then is
    scheduled at its time, once. The signer must be the policy's (`Signer.check`)."""
    signer.check(policy)
    index = policy.index(client)
    ids = list(dict.fromkeys(posts))
    chosen = ids
    if every or channel is not None or tag is not None:
        listed = waiting(client, policy, channel=channel, tag=tag)
        chosen += [r.post.id for r in listed if r.post.id not in ids and not r.rejected]
    done = _Approved()
    for post_id in chosen:
        _approve_one(client, policy, index, signer, post_id, done, (publish_missed, shift, tz))
    return done.result()


def _approve_one(
    client: Client,
    policy: Policy,
    index: ChannelIndex,
    signer: Signer,
    post_id: str,
    done: _Approved,
    missed_rule: tuple[bool, timedelta | None, ZoneInfo],
) -> None:
    try:
        post = client.posts.retrieve(post_id)  # with its version: listings have none
    except NotFoundError:
        raise ChannelkitError(f"no post {post_id} that this key can see") from None
    for _ in range(_RETRIES):
        rule = policy.rule(post.channel_id, index)
        if rule is None:
            raise ChannelkitError(f"{post_id} is in a channel {policy.source} does not guard")
        review = review_of(post, policy, rule, index)
        at = waiting_time(post.tags) if post.status == "draft" else None
        if at is None:
            if is_approved(post, policy, rule):
                done.already.append(review)
            else:
                done.refused.append((review, f"it is {post.status}, not waiting for approval"))
            return
        refusal = _refusal(policy, rule, signer, post, review)
        if refusal is not None:
            done.refused.append((review, refusal))
            return
        target = _target(at, service_now(client), *missed_rule)
        if isinstance(target, str):  # missed
            done.missed.append(review)
            return
        signed_at: Intended = NOW if target is None else target
        others = [n for n in review.approved_by if n != signer.name]
        if target != at:  # a new time: approvals of the old one do not cover it
            others = []
        mine = [
            *approval_tags(signer.name, signer.sign(post, signed_at)),
            seen_tag(post, signed_at),
        ]
        kept = [t for t in without_approvals(post.tags) if not t.startswith(_own(signer.name))]
        for name in others:
            kept += approval_tags(name, signatures(post.tags)[name])
        try:
            if len(others) + 1 < rule.approvals:
                client.posts.update(post.id, tags=[*kept, *mine], if_match=post.etag)
                done.recorded.append(review)
            elif target is None:
                tags = [*_without_waiting(kept), *mine]
                client.posts.update(post.id, status="published", tags=tags, if_match=post.etag)
                done.scheduled.append((review, None))
            else:
                client.posts.update(
                    post.id, status="scheduled", scheduled_at=target,
                    tags=[*_without_waiting(kept), *mine], if_match=post.etag,
                )  # fmt: skip
                done.scheduled.append((review, target))
            return
        except ConflictError as exc:
            if exc.param != "If-Match":
                done.refused.append((review, f"the service refused it ({exc.message})"))
                return
            post = client.posts.retrieve(post.id)  # another approver or an edit: look again
        except NotFoundError:
            done.refused.append((review, "deleted meanwhile"))
            return
    done.refused.append((review, "it kept changing while it was approved; run it again"))


def _refusal(policy: Policy, rule: Rule, signer: Signer, post: Post, review: Review) -> str | None:
    if signer.name not in rule.approvers:
        return f"{signer.name} may not approve posts in {review.channel} ({policy.source})"
    if policy.approvers[signer.name].wrote(post.author) and not rule.self_approval:
        return (
            f"{signer.name} wrote it, and {policy.source} does not let authors approve "
            f"their own posts in {review.channel}"
        )
    if signer.name in review.approved_by:
        return f"{signer.name} approved it already; it needs {rule.approvals} approvals"
    return None


def reject(
    client: Client, policy: Policy, name: str, reason: str, *, posts: Iterable[str]
) -> list[Review]:
    """Reject the waiting posts with these ids as `name` (a listed approver), with a
    reason the author sees in the listing; they stay drafts, waiting, unapproved."""
    if name not in policy.approvers:
        raise ChannelkitError(f"{name} is not an approver in {policy.source}")
    if not reason.strip():
        raise ChannelkitError("give the reason of the rejection (--reason)")
    index = policy.index(client)
    done = []
    for post_id in posts:
        post = client.posts.retrieve(post_id)
        rule = policy.rule(post.channel_id, index)
        if rule is None or waiting_time(post.tags) is None or post.status != "draft":
            raise ChannelkitError(f"{post_id} is not waiting for approval")
        if name not in rule.approvers:
            raise ChannelkitError(f"{name} may not reject posts of this channel ({policy.source})")
        tags = [*without_approvals(post.tags), rejection_tag(name, reason)]
        post = client.posts.update(post.id, tags=tags, if_match=post.etag)
        done.append(review_of(post, policy, rule, index))
    return done


def _own(name: str) -> str:
    return f"{APPROVAL_TAG_PREFIX}{name}:"


def _without_waiting(tags: Iterable[str]) -> list[str]:
    return [tag for tag in tags if waiting_time([tag]) is None]


def _chosen_ids(index: ChannelIndex, channel: str | Sequence[str] | None) -> set[str] | None:
    if channel is None:
        return None
    from channelkit.publish.post.window import chosen_channels

    return {info.id for info in chosen_channels(index, channel)}


def _order(at: Intended) -> datetime:
    return datetime.min.replace(tzinfo=UTC) if isinstance(at, str) else at


def _target(
    at: Intended, now: datetime, publish_missed: bool, shift: timedelta | None, tz: ZoneInfo
) -> datetime | None | str:
    """When an approved post goes out: at once when it waited for "now", else by the rule
    of `release` (`times.missed_time`)."""
    if at == NOW:
        return None
    assert isinstance(at, datetime)
    return times.missed_time(at, now, publish_missed, shift, tz)
