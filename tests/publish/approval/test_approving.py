"""Approval before publishing against the local service over HTTP: a post bound for an
approval channel waits as a draft with its time; only a listed approver other than its
author, with their own key, approves it; approved means scheduled once at its time; any
edit voids the approval; a typed, copied or computed approval counts for nothing."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.errors import ChannelkitError
from channelkit.publish.approval.approving import (
    approve,
    is_approved,
    reject,
    submit,
    waiting,
)
from channelkit.publish.approval.marks import approval_tags, signatures, waiting_time
from channelkit.publish.approval.signing import Signer
from channelkit.service import LocalService

from .conftest import Team, make_team


def _submit(
    team: Team,
    user: str = "carl",
    hours: float = 3,
    title: str = "Town hall",
    body: str = "Thursday at ten.\nBring questions.",
) -> str:
    when = team.service.now().replace(microsecond=0) + timedelta(hours=hours)
    with team.client(user) as client:
        post = submit(
            client, team.policy, channel_id=team.channel_id, title=title, body=body,
            scheduled_at=when, tags=["weekly"],
        )  # fmt: skip
    return post.id


def test_a_post_waits_as_a_draft_until_another_person_approves_it_then_goes_at_its_time(
    team: Team,
) -> None:
    post_id = _submit(team)
    with team.client("carl") as client:
        post = client.posts.retrieve(post_id)
        assert post.status == "draft"
        listed = waiting(client, team.policy)
        assert [r.post.id for r in listed] == [post_id]
        lines = listed[0].lines(ZoneInfo("UTC"))
        assert "All hands" not in lines[0] and "by carl" in lines[0] and "0 of 1" in lines[0]
        assert "  | Bring questions." in lines
    intended = listed[0].at
    with team.client("ann") as client:
        result = approve(client, team.policy, team.signers["ann"], posts=[post_id])
        assert [(r.post.id, at) for r, at in result.scheduled] == [(post_id, intended)]
        post = client.posts.retrieve(post_id)
        assert post.status == "scheduled" and post.scheduled_at == intended
        assert post.tags[0] == "weekly" and "ann" in signatures(post.tags)
        again = approve(client, team.policy, team.signers["ann"], posts=[post_id])
        assert [r.post.id for r in again.already] == [post_id] and again.scheduled == ()
    team.service.advance_clock(4 * 3600)
    with team.client("carl") as client:
        post = client.posts.retrieve(post_id)
        assert post.status == "published" and post.published_at == intended
        rule = team.policy.rules[0]
        assert is_approved(post, team.policy, rule)  # what went out is what was approved


def test_the_author_and_someone_not_listed_are_refused_naming_the_policy(team: Team) -> None:
    post_id = _submit(team, user="ann")
    with team.client("ann") as client:
        own = approve(client, team.policy, team.signers["ann"], posts=[post_id])
    [(review, why)] = own.refused
    assert why.startswith("ann wrote it") and str(team.policy_path) in why
    stranger = Signer.generate("dora")
    with pytest.raises(ChannelkitError, match=f"dora is not an approver in {team.policy_path}"):
        approve(team.client("carl"), team.policy, stranger, posts=[post_id])
    impostor = Signer("bob", Signer.generate("x")._key)
    with pytest.raises(ChannelkitError, match="not the one .* lists for bob"):
        approve(team.client("carl"), team.policy, impostor, posts=[post_id])
    with team.client("bob") as client:
        assert client.posts.retrieve(post_id).status == "draft"
        done = approve(client, team.policy, team.signers["bob"], posts=[post_id])
        assert len(done.scheduled) == 1


def test_an_edit_after_approval_voids_it_and_the_post_waits_again(team: Team) -> None:
    post_id = _submit(team)
    with team.client("ann") as client:
        approve(client, team.policy, team.signers["ann"], posts=[post_id])
    with team.client("carl") as client:
        post = client.posts.retrieve(post_id)
        edited = client.posts.update(post_id, body="Thursday at eleven.", if_match=post.etag)
        assert edited.status == "scheduled"  # the service knows nothing of approvals
        listed = waiting(client, team.policy)  # every listing puts it back to waiting
        [review] = listed
        assert review.post.id == post_id and review.approved_by == ()
        assert any(
            problem.startswith("approval by ann is void: its body changed after it")
            for problem in review.problems
        )  # the next listing says why it waits again
        assert client.posts.retrieve(post_id).status == "draft"
        assert review.at == post.scheduled_at  # its time kept
    with team.client("bob") as client:
        assert len(approve(client, team.policy, team.signers["bob"], every=True).scheduled) == 1


@pytest.mark.parametrize("forgery", ["typed", "copied", "computed", "earlier"])
def test_an_approval_crafted_by_the_author_is_refused_and_reported(
    team: Team, forgery: str
) -> None:
    post_id = _submit(team)
    other_id = _submit(team, title="Other", body="Other body")
    with team.client("ann") as client:
        approve(client, team.policy, team.signers["ann"], posts=[other_id])
        approved_other = client.posts.retrieve(other_id)
    with team.client("carl") as client:
        post = client.posts.retrieve(post_id)
        at = waiting_time(post.tags)
        assert isinstance(at, datetime)
        if forgery == "typed":
            fake = approval_tags("ann", b"\x01" * 64)
        elif forgery == "copied":  # ann's real approval, of another post
            fake = [t for t in approved_other.tags if t.startswith("approved:")]
        elif forgery == "computed":  # every public function, with a key of the author's own
            fake = approval_tags("ann", Signer.generate("ann").sign(post, at))
        else:  # ann's real approval of this post, then the author's edit
            with team.client("ann") as approver:
                approve(approver, team.policy, team.signers["ann"], posts=[post_id])
            post = client.posts.retrieve(post_id)
            fake = [t for t in post.tags if t.startswith("approved:")]
        post = client.posts.update(
            post_id, body="Changed by its author", tags=sorted({*post.tags, *fake}),
            if_match=post.etag,
        )  # fmt: skip
        if post.status == "draft":  # and has it scheduled, as any route could
            post = client.posts.update(
                post_id, status="scheduled", scheduled_at=at, if_match=post.etag
            )
        assert post.status == "scheduled"
        [review] = [r for r in waiting(client, team.policy) if r.post.id == post_id]
        assert client.posts.retrieve(post_id).status == "draft"  # back to waiting
        assert review.approved_by == () and review.at == at
        assert any(problem.startswith("approval by ann is void") for problem in review.problems)
    with team.client("bob") as client:  # nothing of it counts for anyone else either
        assert not approve(client, team.policy, team.signers["bob"], posts=[]).scheduled


def test_reject_keeps_it_waiting_with_the_reason_and_out_of_approve_all(team: Team) -> None:
    post_id = _submit(team)
    with team.client("bob") as client:
        [review] = reject(client, team.policy, "bob", "Wrong date, see legal", posts=[post_id])
        assert review.rejected == (("bob", "Wrong date, see legal"),)
    with team.client("ann") as client:
        assert approve(client, team.policy, team.signers["ann"], every=True).scheduled == ()
        by_id = approve(client, team.policy, team.signers["ann"], posts=[post_id])
        assert len(by_id.scheduled) == 1


def test_a_missed_time_keeps_waiting_unless_shift_or_publish_missed(team: Team) -> None:
    post_id = _submit(team, hours=1)
    team.service.advance_clock(2 * 3600)
    with team.client("ann") as client:
        result = approve(client, team.policy, team.signers["ann"], posts=[post_id])
        assert [r.post.id for r in result.missed] == [post_id]
        assert client.posts.retrieve(post_id).status == "draft"
        shifted = approve(
            client, team.policy, team.signers["ann"], posts=[post_id], shift=timedelta(days=1)
        )
        [(review, at)] = shifted.scheduled
        assert at == review.at + timedelta(days=1)  # type: ignore[operator]
        post = client.posts.retrieve(post_id)
        assert post.scheduled_at == at and is_approved(post, team.policy, team.policy.rules[0])


def test_two_approvals_needed_count_distinct_people(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:

    with LocalService(admin=True, rate_window=1.0) as service:
        team = make_team(service, tmp_path_factory.mktemp("two"), approvals=2)
        post_id = _submit(team)
        with team.client("ann") as client:
            first = approve(client, team.policy, team.signers["ann"], posts=[post_id])
            assert len(first.recorded) == 1 and client.posts.retrieve(post_id).status == "draft"
            twice = approve(client, team.policy, team.signers["ann"], posts=[post_id])
            assert "approved it already" in twice.refused[0][1]
        with team.client("bob") as client:
            second = approve(client, team.policy, team.signers["bob"], posts=[post_id])
            assert len(second.scheduled) == 1
            post = client.posts.retrieve(post_id)
            assert post.status == "scheduled" and set(signatures(post.tags)) == {"ann", "bob"}


def test_release_puts_back_an_approved_post_and_never_an_unapproved_one(team: Team) -> None:
    from channelkit.publish.hold.holding import hold, release

    approved_id, sneaked_id = _submit(team), _submit(team, title="Sneaked", body="Unreviewed")
    with team.client("ann") as client:
        approve(client, team.policy, team.signers["ann"], posts=[approved_id])
    with team.client("carl") as client:  # scheduled by hand, past the approval
        post = client.posts.retrieve(sneaked_id)
        at = waiting_time(post.tags)
        client.posts.update(sneaked_id, status="scheduled", scheduled_at=at, if_match=post.etag)
        held = hold(client, by="carl")
        assert {p.post_id for p in held.held} == {approved_id, sneaked_id}
        result = release(client, policy=team.policy)
        assert [p.post_id for p, _ in result.released] == [approved_id]
        [(left, why)] = result.left
        assert left.post_id == sneaked_id and why.startswith("awaits approval")
        assert client.posts.retrieve(approved_id).status == "scheduled"
        sneaked = client.posts.retrieve(sneaked_id)
        assert sneaked.status == "draft" and waiting_time(sneaked.tags) == at
        assert [r.post.id for r in waiting(client, team.policy)] == [sneaked_id]


def test_a_release_at_another_time_sends_an_approved_post_back_for_approval(
    team: Team,
) -> None:
    # The approval binds the time: held past its time and released with --shift or
    # --publish-missed, the post goes out at a time nobody approved unless it waits again.
    from channelkit.publish.hold.holding import hold, release

    shifted_id, missed_id = _submit(team, hours=1), _submit(team, hours=1, title="Second")
    with team.client("ann") as client:
        approve(client, team.policy, team.signers["ann"], posts=[shifted_id, missed_id])
    with team.client("carl") as client:
        assert {p.post_id for p in hold(client, by="carl").held} == {shifted_id, missed_id}
        team.service.advance_clock(2 * 3600)
        by_shift = release(client, policy=team.policy, shift=timedelta(days=1))
        assert not by_shift.released and {p.post_id for p, _ in by_shift.left} == {
            shifted_id,
            missed_id,
        }
        assert all(why.startswith("awaits approval again") for _, why in by_shift.left)
        for post_id in (shifted_id, missed_id):
            post = client.posts.retrieve(post_id)
            assert post.status == "draft" and waiting_time(post.tags) is not None
        assert {r.post.id for r in waiting(client, team.policy)} == {shifted_id, missed_id}


def test_the_command_lists_approves_and_rejects(team: Team, tmp_path: Path) -> None:
    post_id, other_id = _submit(team), _submit(team, title="Second", body="Second body")
    env = {
        "CHANNELKIT_BASE_URL": team.service.base_url,
        "CHANNELKIT_APPROVAL_POLICY": str(team.policy_path),
    }
    runner = CliRunner()
    key = tmp_path / "ann.pem"
    made = runner.invoke(main, ["approve", "--new-key", "--as", "ann", "--key", str(key)], env=env)
    assert made.exit_code == 0 and key.stat().st_mode & 0o077 == 0
    line = made.output.strip().splitlines()[-1]
    assert line.startswith('ann = "ed25519:') and "PRIVATE" not in made.output
    text = team.policy_path.read_text(encoding="utf-8")
    team.policy_path.write_text(text.replace(team.signers["ann"].public_line(), line))
    carl = {**env, "CHANNELKIT_API_KEY": team.keys["carl"]}
    listed = runner.invoke(main, ["approve", "--tz", "UTC"], env=carl)
    assert listed.exit_code == 0, listed.output
    assert "  | Bring questions." in listed.output and "2 awaiting approval" in listed.output
    ann = {**env, "CHANNELKIT_API_KEY": team.keys["ann"]}
    done = runner.invoke(main, ["approve", "--as", "ann", "--key", str(key), post_id], env=ann)
    assert done.exit_code == 0, done.output
    assert "1 approved and scheduled" in done.output
    bob = {**env, "CHANNELKIT_API_KEY": team.keys["bob"]}
    no = runner.invoke(main, ["approve", "--as", "bob", "--reject", "Not now", other_id], env=bob)
    assert no.exit_code == 0 and "rejected" in no.output
    own = runner.invoke(main, ["approve", "--as", "carl", "--key", str(key), other_id], env=carl)
    assert own.exit_code == 1
    assert own.output.strip() == f"Error: carl is not an approver in {team.policy_path}"


def test_two_approvers_at_once_schedule_each_post_once(team: Team) -> None:
    from concurrent.futures import ThreadPoolExecutor

    ids = [_submit(team, title=f"Post {n}", body=f"Body {n}") for n in range(6)]

    def run(name: str) -> tuple[list[str], list[str]]:
        with team.client(name) as client:
            result = approve(client, team.policy, team.signers[name], posts=ids)
        return [r.post.id for r, _ in result.scheduled], [r.post.id for r in result.already]

    with ThreadPoolExecutor(max_workers=2) as pool:
        (ann_done, ann_already), (bob_done, bob_already) = pool.map(run, ["ann", "bob"])
    assert sorted(ann_done + bob_done) == sorted(ids)  # each scheduled by exactly one of them
    assert sorted(ann_already + bob_already) == sorted(ids)  # and found done by the other
    with team.client("carl") as client:
        posts = [client.posts.retrieve(post_id) for post_id in ids]
    assert all(p.status == "scheduled" and len(signatures(p.tags)) == 1 for p in posts)
