"""A team for the approval tests: a local service, an "All hands" channel that needs one
approval by ann or bob, and each person's own API key and Ed25519 key.

The services count rate limits over one-second windows: these tests make thousands of
requests, and waiting out a 60-second window is not what they check."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from channelkit.client import Client
from channelkit.publish.approval.policy import Policy
from channelkit.publish.approval.signing import Signer
from channelkit.service import LocalService


@dataclass
class Team:
    service: LocalService
    policy: Policy
    policy_path: Path
    keys: dict[str, str]  # API keys by user
    signers: dict[str, Signer]
    channel_id: str
    open_channel_id: str

    def client(self, user: str) -> Client:
        return Client(self.service.base_url, self.keys[user])


def policy_text(signers: dict[str, Signer], approvals: int = 1) -> str:
    lines = ["[approvers]", *(signer.public_line() for signer in signers.values()), ""]
    names = ", ".join(f'"{name}"' for name in signers)
    lines += ["[channels.all-hands]", f"approvers = [{names}]", f"approvals = {approvals}"]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def shared_service() -> Iterator[LocalService]:
    with LocalService(admin=True, rate_window=1.0) as svc:
        yield svc


def make_team(service: LocalService, folder: Path, approvals: int = 1) -> Team:
    keys = {
        user: service.create_key(user=user, team="comms", plan="enterprise")
        for user in ("ann", "bob", "carl")
    }
    signers = {name: Signer.generate(name) for name in ("ann", "bob")}
    path = folder / "approvals.toml"
    path.write_text(policy_text(signers, approvals), encoding="utf-8")
    with Client(service.base_url, keys["carl"]) as client:
        slug = f"all-hands-{folder.name.lower()}"[:60].strip("-").replace("_", "-")
        channel = client.channels.create(name=f"All hands {folder.name}", slug=slug)
        other = client.channels.create(name=f"Open {folder.name}")
    text = path.read_text(encoding="utf-8").replace("[channels.all-hands]", f"[channels.{slug}]")
    path.write_text(text, encoding="utf-8")
    return Team(service, Policy.load(path), path, keys, signers, channel.id, other.id)


@pytest.fixture
def team(tmp_path: Path) -> Iterator[Team]:
    with LocalService(admin=True, rate_window=1.0) as service:
        yield make_team(service, tmp_path)
