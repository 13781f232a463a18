"""Seeded random sequences of create / edit / approve / reject / hold / release /
reschedule / clock advance, by three people (ann and bob approve with their own keys; all
three write, each with their own ledger), against one local service over HTTP.

After every step and at the end of each sequence: every published post carries a valid
approval of exactly what was published, at the time it was published; every edit of an
approved post voided its approval; no approval verifies by the post's own author; no
post exists twice; none was published before the time it was approved for.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from channelkit.client import Client
from channelkit.client.models import Post
from channelkit.publish.approval.approving import (
    approve,
    going_out_at,
    is_approved,
    keep_waiting,
    reject,
    submit,
)
from channelkit.publish.approval.marks import signatures, waiting_tag, waiting_time
from channelkit.publish.approval.signing import verifies
from channelkit.publish.hold.holding import hold, release
from channelkit.service import LocalService

from .conftest import Team, make_team

SEQUENCES = int(os.environ.get("CHANNELKIT_APPROVAL_SEQUENCES", "1000"))
STEPS = (1, 4)  # steps per sequence, after its first create
PEOPLE = ("ann", "bob", "carl")
APPROVERS = ("ann", "bob")


@dataclass
class Tally:
    sequences: int = 0
    steps: int = 0
    published: int = 0
    approved_edits: int = 0
    voided: int = 0
    self_refused: int = 0
    problems: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Team]:
    with LocalService(admin=True, rate_window=1.0) as service:
        yield make_team(service, tmp_path_factory.mktemp("machine"))


def _check(team: Team, client: Client, posts: list[Post], tally: Tally, seq: int) -> None:
    rule = team.policy.rules[0]
    for post in posts:
        for name, signature in signatures(post.tags).items():
            approver = team.policy.approvers[name]
            at = going_out_at(post)
            if approver.wrote(post.author) and at and verifies(approver, post, at, signature):
                tally.problems.append(f"seq {seq}: {post.id} approved by its author {name}")
        if post.status != "published":
            continue
        tally.published += 1
        if not is_approved(post, team.policy, rule):
            tally.problems.append(f"seq {seq}: {post.id} published without a valid approval")


def _run(team: Team, clients: dict[str, Client], ledgers: dict[str, Path], seq: int,
         tally: Tally) -> None:  # fmt: skip
    rng = random.Random(seq)
    tag = f"seq-{seq}"
    reader = clients["carl"]
    created: set[str] = set()

    def mine() -> list[Post]:  # as listed: without their versions
        return list(reader.posts.list(tag=tag))

    def new(author: str) -> None:
        at = team.service.now().replace(microsecond=0) + timedelta(hours=rng.randint(1, 6))
        post = submit(
            clients[author], team.policy, channel_id=team.channel_id, title=f"Post {seq}",
            body=f"Body {rng.random()}", scheduled_at=at, tags=[tag],
        )  # fmt: skip
        created.add(post.id)

    new(rng.choice(PEOPLE))
    posts = mine()
    for _ in range(rng.randint(*STEPS)):
        tally.steps += 1
        post = reader.posts.retrieve(rng.choice(posts).id) if posts else None
        person = rng.choice(PEOPLE)
        action = rng.choice(
            ["create", "edit", "approve", "approve", "approve", "reject", "hold", "release",
             "reschedule", "advance", "advance"]
        )  # fmt: skip
        client = clients[person]
        if action == "create" or post is None:
            new(person)
        elif action in ("edit", "reschedule") and post.status in ("draft", "scheduled"):
            was = is_approved(post, team.policy, team.policy.rules[0])
            at = going_out_at(post)
            if action == "edit":
                changed = client.posts.update(post.id, body=f"Edited {rng.random()}",
                                              if_match=post.etag)  # fmt: skip
            elif isinstance(at, datetime):
                later = at + timedelta(minutes=rng.randint(1, 90))
                if post.status == "scheduled":
                    changed = client.posts.update(post.id, scheduled_at=later,
                                                  if_match=post.etag)  # fmt: skip
                else:
                    tags = [t for t in post.tags if waiting_time([t]) is None]
                    changed = client.posts.update(post.id, tags=[*tags, waiting_tag(later)],
                                                  if_match=post.etag)  # fmt: skip
            else:
                continue
            if was:
                tally.approved_edits += 1
                tally.voided += not is_approved(changed, team.policy, team.policy.rules[0])
            keep_waiting(client, team.policy, changed)  # the gate every route passes
        elif action == "approve" and person in APPROVERS:
            result = approve(client, team.policy, team.signers[person], posts=[post.id])
            tally.self_refused += sum("wrote it" in why for _, why in result.refused)
        elif action == "reject" and person in APPROVERS and post.status == "draft":
            if waiting_time(post.tags) is not None:
                reject(client, team.policy, person, "not yet", posts=[post.id])
        elif action == "hold":
            hold(client, tag=tag, by=person, ledger=str(ledgers[person]))
        elif action == "release":
            release(client, tag=tag, ledger=str(ledgers[person]), policy=team.policy)
        elif action == "advance":
            team.service.advance_clock(rng.uniform(0.5, 3) * 3600)
        posts = mine()
        _check(team, reader, posts, tally, seq)
    team.service.advance_clock(7 * 3600)
    final = mine()
    _check(team, reader, final, tally, seq)
    if {p.id for p in final} != created or len(final) != len(created):
        tally.problems.append(f"seq {seq}: posts {sorted(p.id for p in final)} vs {created}")
    for post in final:
        if post.status == "published":
            assert post.published_at is not None
            at = going_out_at(post)
            if isinstance(at, datetime) and post.published_at < at:
                tally.problems.append(f"seq {seq}: {post.id} published early")
        reader.posts.delete(post.id)  # keeps every listing of the next sequence short
    tally.sequences += 1


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_random_sequences_keep_every_approval_rule(team: Team, tmp_path: Path) -> None:
    clients = {person: team.client(person) for person in PEOPLE}
    ledgers = {person: tmp_path / f"{person}.sqlite3" for person in PEOPLE}
    tally = Tally()
    started, cpu = time.perf_counter(), time.process_time()
    try:
        for seq in range(SEQUENCES):
            _run(team, clients, ledgers, seq, tally)
    finally:
        for client in clients.values():
            client.close()
    took, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(f"\n{tally.sequences} sequences, {tally.steps} steps, {tally.published} published, "
          f"{tally.approved_edits} edits after approval, {tally.self_refused} self-approvals "
          f"refused; {took:.1f} s, {cpu:.1f} s of CPU (client and service)")  # fmt: skip
    assert tally.problems == []
    assert tally.sequences == SEQUENCES
    assert tally.voided == tally.approved_edits  # 100% of post-approval edits void it
    assert tally.published > SEQUENCES // 10 and tally.approved_edits > 0  # it was exercised
    assert tally.self_refused > 0
