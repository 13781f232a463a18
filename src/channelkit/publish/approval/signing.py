"""Approvals nobody else can make: the approver's Ed25519 signature of exactly what goes out.

An approval signs the post's id, channel, title, body, priority, cover, its own tags and
the time it goes out, with the approver's private key, which never leaves their machine
(`--key`, `CHANNELKIT_APPROVAL_KEY`, else `approval-key.pem` in the user's config folder,
readable by its owner only). Every machine verifies it against the public key the policy
lists for that name. So an author who types, copies (from another post, or from an earlier
version of this one) or computes an approval with any function of this code has no
approval: without the private key the signature does not verify, and any edit changes
what was signed. Ed25519 as `cryptography` gives it (64-byte signatures, 32-byte public
keys): https://cryptography.io/en/latest/hazmat/primitives/asymmetric/ed25519/

    signer = Signer.load("ann")                     # this person's key
    signature = signer.sign(post, at)
    verifies(policy.approvers["ann"], post, at, signature)
"""

from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from channelkit._constants import APPROVAL_KEY_FILE_NAME, ENV_APPROVAL_KEY
from channelkit.errors import ChannelkitError
from channelkit.publish.approval.marks import Intended, content_tags, stamp

if TYPE_CHECKING:
    from channelkit.client.models import Post
    from channelkit.publish.approval.policy import Approver, Policy

_DOMAIN = "channelkit approval 1"  # a signature of this, never of anything else


def content(post: Post, at: Intended, name: str) -> bytes:
    """What `name` approves of `post` going out at `at` (see the module docstring)."""
    fields = [
        _DOMAIN, post.id, post.channel_id, post.title, post.body, post.priority,
        post.cover_image_url, content_tags(post.tags), stamp(at), name,
    ]  # fmt: skip
    return json.dumps(fields, ensure_ascii=False, separators=(",", ":")).encode()


def verifies(approver: Approver, post: Post, at: Intended, signature: bytes) -> bool:
    """Whether `signature` is `approver`'s approval of `post` as it is, going out at `at`."""
    try:
        key = Ed25519PublicKey.from_public_bytes(approver.public_key)
        key.verify(signature, content(post, at, approver.name))
    except (InvalidSignature, ValueError):
        return False
    return True


def default_key_path() -> Path:
    """`CHANNELKIT_APPROVAL_KEY`, else `approval-key.pem` in the user's config folder."""
    named = os.environ.get(ENV_APPROVAL_KEY, "").strip()
    if named:
        return Path(named).expanduser()
    config = os.environ.get("XDG_CONFIG_HOME", "").strip() or "~/.config"
    return Path(config).expanduser() / "channelkit" / APPROVAL_KEY_FILE_NAME


@dataclass(frozen=True)
class Signer:
    """One approver with their private key (never shown: not in its repr).

    >>> signer = Signer.generate("ann")
    >>> signer.public_line().startswith('ann = "ed25519:')
    True
    """

    name: str
    _key: Ed25519PrivateKey = field(repr=False)

    @classmethod
    def generate(cls, name: str) -> Signer:
        return cls(name, Ed25519PrivateKey.generate())

    @classmethod
    def load(cls, name: str, path: str | Path | None = None) -> Signer:
        """`name`'s private key from `path` (else `default_key_path()`); one-line errors."""
        file = Path(path).expanduser() if path is not None else default_key_path()
        try:
            data = file.read_bytes()
        except OSError as exc:
            raise ChannelkitError(
                f"cannot read the approval key {file}: {exc.strerror} "
                "(make one with `channelkit approve --new-key`)"
            ) from None
        try:
            key = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError):
            key = None
        if not isinstance(key, Ed25519PrivateKey):
            raise ChannelkitError(f"{file} is not an Ed25519 private key in PEM")
        return cls(name, key)

    def save(self, path: str | Path | None = None) -> Path:
        """Write the private key, readable by its owner only; an existing file is kept."""
        file = Path(path).expanduser() if path is not None else default_key_path()
        pem = self._key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            descriptor = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            raise ChannelkitError(
                f"{file} exists: keep it, or move it away to make a new key"
            ) from None
        except OSError as exc:
            raise ChannelkitError(f"cannot write the approval key {file}: {exc.strerror}") from None
        with os.fdopen(descriptor, "wb") as out:
            out.write(pem)
        return file

    @property
    def public_key(self) -> bytes:
        return self._key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw
        )

    def public_line(self) -> str:
        """The line of the policy's [approvers] that lists this key."""
        return f'{self.name} = "ed25519:{base64.b64encode(self.public_key).decode()}"'

    def sign(self, post: Post, at: Intended) -> bytes:
        return self._key.sign(content(post, at, self.name))

    def check(self, policy: Policy) -> None:
        """Refuse, in one line naming the policy, a name it does not list or a key that is
        not the one it lists for the name."""
        listed = policy.approvers.get(self.name)
        if listed is None:
            raise ChannelkitError(f"{self.name} is not an approver in {policy.source}")
        if listed.public_key != self.public_key:
            raise ChannelkitError(f"this key is not the one {policy.source} lists for {self.name}")
