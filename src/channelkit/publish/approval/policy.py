"""The team's approval policy: which channels need approval, who may give it, how many.

One TOML file the team shares (in the repository beside its sheets, say), named by
`--policy` or `CHANNELKIT_APPROVAL_POLICY`; a notebook passes the same path to `ck.approve`.
It holds only public parts: each approver's name and PUBLIC key (`channelkit approve
--new-key` prints the line to add); the private keys never leave their owners' machines.

    [approvers]
    ann = "ed25519:Jq3...="                       # a name and its public key
    bob = { key = "ed25519:9Xc...=", user = "user_bob" }  # and the service's user id

    [channels.all-hands]                          # by slug, name or id
    approvers = ["ann", "bob"]
    approvals = 1                                 # how many (default 1)
    self_approval = false                         # an author approving their own (default)

    policy = Policy.load("approvals.toml")
    rule = policy.rule(channel)                   # None: the channel needs no approval
"""

from __future__ import annotations

import base64
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from channelkit._constants import (
    APPROVAL_NAME_MAX_CHARS,
    APPROVAL_SELF_ALLOWED,
    APPROVALS_NEEDED,
    ENV_APPROVAL_POLICY,
)
from channelkit.errors import ChannelkitError
from channelkit.publish.post.validation import ChannelIndex

if TYPE_CHECKING:
    from channelkit.client import Client
    from channelkit.client.models import Author

_KEY_PREFIX = "ed25519:"
_NAME = re.compile(r"[A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Approver:
    """A person who may approve: the name the policy gives them, their public key (32 raw
    bytes) and, optionally, their user id on the service (the author of their posts)."""

    name: str
    public_key: bytes
    user: str | None = None

    def wrote(self, author: Author | None) -> bool:
        """Whether the service records this person as the author (by user id when the
        policy gives one, else by name, case aside)."""
        if author is None:
            return False
        if self.user is not None:
            return author.id == self.user
        return (author.name or "").casefold() == self.name.casefold()


@dataclass(frozen=True)
class Rule:
    """What one channel needs: `approvals` approvals by distinct `approvers`."""

    channel: str  # as the policy names it
    approvers: tuple[str, ...]
    approvals: int = APPROVALS_NEEDED
    self_approval: bool = APPROVAL_SELF_ALLOWED


@dataclass(frozen=True)
class Policy:
    """The parsed policy file (see the module docstring).

    >>> Policy.empty().rules
    ()
    """

    source: str  # the file, as messages name it
    approvers: Mapping[str, Approver]
    rules: tuple[Rule, ...]
    # the channels of each service, kept once every rule's channel is found there
    _channels: dict[str, ChannelIndex] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def empty(cls) -> Policy:
        return cls("no approval policy", {}, ())

    @classmethod
    def load(cls, path: str | Path | None = None) -> Policy:
        """The policy at `path`, else at `CHANNELKIT_APPROVAL_POLICY`; no approval anywhere
        when neither is given. A file that cannot be read or is wrong: one line, naming it."""
        named = str(path) if path is not None else os.environ.get(ENV_APPROVAL_POLICY, "")
        if not named.strip():
            return cls.empty()
        file = Path(named).expanduser()
        try:
            data = tomllib.loads(file.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ChannelkitError(
                f"cannot read the approval policy {file}: {exc.strerror}"
            ) from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ChannelkitError(f"{file}: not a TOML file ({exc})") from None
        return cls.parse(data, str(file))

    @classmethod
    def parse(cls, data: Mapping[str, Any], source: str) -> Policy:
        """The policy from a parsed TOML document; `source` names it in messages."""
        unknown = set(data) - {"approvers", "channels"}
        if unknown:
            raise ChannelkitError(f"{source}: unknown section {sorted(unknown)[0]!r}")
        approvers = {
            name: _approver(source, name, value)
            for name, value in _table(source, data, "approvers").items()
        }
        rules = tuple(
            _rule(source, channel, value, approvers)
            for channel, value in _table(source, data, "channels").items()
        )
        return cls(source, approvers, rules)

    def index(self, client: Client) -> ChannelIndex:
        """The channels `client`'s key sees: read once per service when every channel the
        policy names is among them (a run makes many decisions), else read each time."""
        kept = self._channels.get(client.base_url)
        if kept is not None:
            return kept
        index = ChannelIndex.from_client(client)
        if all(getattr(index.resolve(rule.channel), "id", None) for rule in self.rules):
            self._channels[client.base_url] = index
        return index

    def rule(self, channel_id: str, index: ChannelIndex) -> Rule | None:
        """The rule of the channel with this id (the policy names it by id, slug or name)."""
        for rule in self.rules:
            resolved = index.resolve(rule.channel)
            if getattr(resolved, "id", None) == channel_id:
                return rule
        return None


def _table(source: str, data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, Mapping):
        raise ChannelkitError(f"{source}: [{key}] must be a table")
    return value


def _approver(source: str, name: str, value: object) -> Approver:
    where = f"{source}: approvers.{name}"
    if not _NAME.fullmatch(name) or len(name) > APPROVAL_NAME_MAX_CHARS:
        raise ChannelkitError(
            f"{where}: a name is 1..{APPROVAL_NAME_MAX_CHARS} letters, digits, '.', '_' or '-'"
        )
    user = None
    if isinstance(value, Mapping):
        user, value = value.get("user"), value.get("key")
        if user is not None and not isinstance(user, str):
            raise ChannelkitError(f"{where}.user must be a text (the service's user id)")
    if not isinstance(value, str) or not value.startswith(_KEY_PREFIX):
        raise ChannelkitError(f'{where}: give the public key as "{_KEY_PREFIX}..."')
    try:
        raw = base64.b64decode(value[len(_KEY_PREFIX) :], validate=True)
    except ValueError:
        raw = b""
    if len(raw) != 32:  # an Ed25519 public key is 32 bytes
        raise ChannelkitError(f"{where}: not an Ed25519 public key (copy it from --new-key)")
    return Approver(name, raw, user)


def _rule(source: str, channel: str, value: object, approvers: Mapping[str, Approver]) -> Rule:
    where = f"{source}: channels.{channel}"
    if not isinstance(value, Mapping):
        raise ChannelkitError(f"{where} must be a table")
    unknown = set(value) - {"approvers", "approvals", "self_approval"}
    if unknown:
        raise ChannelkitError(f"{where}: unknown setting {sorted(unknown)[0]!r}")
    names = value.get("approvers")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise ChannelkitError(f"{where}.approvers: give a list of names from [approvers]")
    missing = [name for name in names if name not in approvers]
    if missing:
        raise ChannelkitError(f"{where}.approvers names {missing[0]!r}, who is not in [approvers]")
    needed = value.get("approvals", APPROVALS_NEEDED)
    if not isinstance(needed, int) or isinstance(needed, bool) or not 1 <= needed <= len(names):
        raise ChannelkitError(f"{where}.approvals must be a whole number from 1 to {len(names)}")
    own = value.get("self_approval", APPROVAL_SELF_ALLOWED)
    if not isinstance(own, bool):
        raise ChannelkitError(f"{where}.self_approval must be true or false")
    return Rule(channel, tuple(names), needed, own)
