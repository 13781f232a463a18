"""kill -9 at random points of `approve`: each post ends approved once, scheduled once, at
its recorded time, whatever instant the run died at and however often.

One helper process imports channelkit once and forks a child per round that approves a
batch of waiting posts; the helper kills it (SIGKILL) after a random delay within the
time an uninterrupted run takes, then runs the approval again to the end. Forking keeps
a hundred kills fast; each child is a separate process that dies mid-request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

from channelkit.publish.approval.approving import approve, is_approved, submit
from channelkit.publish.approval.marks import signatures, waiting_time
from channelkit.service import LocalService

from .conftest import make_team

ROUNDS = 200  # a child killed after it finished does not count; the helper stops at 100
WARMUP = 3  # uninterrupted batches whose fastest run sets the span the kills fall in
BATCH = 3

_HELPER = """
import json, os, random, signal, sys, time
from channelkit.client import Client
from channelkit.publish.approval.approving import approve
from channelkit.publish.approval.policy import Policy
from channelkit.publish.approval.signing import Signer
base_url, api_key, policy_path, key_path = sys.argv[1:5]
batches = json.loads(sys.stdin.read())
policy = Policy.load(policy_path)
rng = random.Random(47)
def run(ids):
    with Client(base_url, api_key) as client:
        return approve(client, policy, Signer.load("ann", key_path), posts=ids)
warmup, wanted = int(sys.argv[5]), int(sys.argv[6])
spans = []
for ids in batches[:warmup]:  # uninterrupted: how long a run takes
    started = time.perf_counter()
    run(ids)
    spans.append(time.perf_counter() - started)
span = min(spans)
kills = forks = 0
for ids in batches[warmup:]:
    if kills >= wanted:  # enough deaths: the rest run once, uninterrupted
        run(ids)
        continue
    forks += 1
    pid = os.fork()
    if pid == 0:
        try:
            run(ids)
        finally:
            os._exit(0)
    time.sleep(rng.uniform(0, 0.8 * span))
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    kills += os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    run(ids)  # the rerun after the kill
print(json.dumps({"kills": kills, "forks": forks, "span": span}))
"""


def test_kill_9_at_random_points_of_approve_leaves_each_post_scheduled_once(
    tmp_path: Path,
) -> None:
    with LocalService(admin=True, rate_window=1.0) as service:
        team = make_team(service, tmp_path)
        key = tmp_path / "ann.pem"
        team.signers["ann"].save(key)
        start = service.now().replace(microsecond=0)
        batches, intended = [], {}
        with team.client("carl") as client:
            for n in range(ROUNDS + 1):
                batch = []
                for m in range(BATCH):
                    post = submit(
                        client, team.policy, channel_id=team.channel_id, title=f"Post {n}.{m}",
                        body=f"Body {n}.{m}", scheduled_at=start + timedelta(hours=2, minutes=n),
                    )  # fmt: skip
                    batch.append(post.id)
                    intended[post.id] = waiting_time(post.tags)
                batches.append(batch)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        args = [sys.executable, "-c", _HELPER, service.base_url, team.keys["ann"]]
        done = subprocess.run(
            [*args, str(team.policy_path), str(key), str(WARMUP), "100"],
            input=json.dumps(batches), capture_output=True, text=True, env=env, timeout=600,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        report = json.loads(done.stdout.strip().splitlines()[-1])
        print(report)
        assert report["kills"] >= 100  # children killed mid-run (the others ran to the end)
        with team.client("carl") as client:
            posts = list(client.posts.list(channel_id=team.channel_id))
            rule = team.policy.rules[0]
            assert len(posts) == len(intended)  # no post twice
            for post in posts:
                assert post.status == "scheduled", post.id
                assert post.scheduled_at == intended[post.id]
                assert list(signatures(post.tags)) == ["ann"]
                assert sum(t.startswith("approved:") for t in post.tags) == 4  # once
                assert is_approved(post, team.policy, rule)
            again = approve(client, team.policy, team.signers["ann"], posts=[posts[0].id])
            assert again.already and not again.scheduled
