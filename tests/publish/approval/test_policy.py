"""The policy file: a wrong one is refused in one line naming the file and the setting;
the defaults are one approval and never the author's own."""

from __future__ import annotations

from pathlib import Path

import pytest

from channelkit.client.models import Author
from channelkit.errors import ChannelkitError
from channelkit.publish.approval.policy import Policy
from channelkit.publish.approval.signing import Signer

ANN = Signer.generate("ann").public_line()


def _load(tmp_path: Path, text: str) -> Policy:
    path = tmp_path / "approvals.toml"
    path.write_text(text, encoding="utf-8")
    return Policy.load(path)


def test_defaults_one_approval_and_no_self_approval(tmp_path: Path) -> None:
    policy = _load(tmp_path, f'[approvers]\n{ANN}\n[channels.legal]\napprovers = ["ann"]\n')
    [rule] = policy.rules
    assert (rule.channel, rule.approvers, rule.approvals, rule.self_approval) == (
        "legal", ("ann",), 1, False,
    )  # fmt: skip
    ann = policy.approvers["ann"]
    assert ann.wrote(Author(id="user_1", name="Ann")) and not ann.wrote(None)


def test_a_user_id_decides_authorship_over_the_name(tmp_path: Path) -> None:
    key = ANN.split(" = ")[1]
    policy = _load(tmp_path, f'[approvers]\nann = {{ key = {key}, user = "user_9" }}\n')
    ann = policy.approvers["ann"]
    assert ann.wrote(Author(id="user_9", name="Someone")) and not ann.wrote(
        Author(id="user_1", name="ann")
    )


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[approvers\n", "not a TOML file"),
        ("[owners]\n", "unknown section 'owners'"),
        ('[approvers]\nann = "rsa:abc"\n', 'approvers.ann: give the public key as "ed25519:..."'),
        ('[approvers]\nann = "ed25519:AAAA"\n', "approvers.ann: not an Ed25519 public key"),
        (f'[approvers]\n{ANN.replace("ann", "a" * 17, 1)}\n', "a name is 1..16 letters"),
        (f'[approvers]\n{ANN}\n[channels.x]\napprovers = ["bob"]\n',
         "channels.x.approvers names 'bob', who is not in [approvers]"),
        (f'[approvers]\n{ANN}\n[channels.x]\napprovers = ["ann"]\napprovals = 2\n',
         "channels.x.approvals must be a whole number from 1 to 1"),
        (f'[approvers]\n{ANN}\n[channels.x]\napprovers = ["ann"]\nself_approval = "no"\n',
         "channels.x.self_approval must be true or false"),
        (f'[approvers]\n{ANN}\n[channels.x]\napprovers = ["ann"]\nquorum = 1\n',
         "channels.x: unknown setting 'quorum'"),
    ],
)  # fmt: skip
def test_a_wrong_policy_is_refused_in_one_line_naming_the_file(
    tmp_path: Path, text: str, says: str
) -> None:
    with pytest.raises(ChannelkitError) as caught:
        _load(tmp_path, text)
    message = str(caught.value)
    assert says in message and str(tmp_path / "approvals.toml") in message
    assert "\n" not in message


def test_no_policy_means_no_approval_channel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CHANNELKIT_APPROVAL_POLICY", raising=False)
    assert Policy.load().rules == ()
    with pytest.raises(ChannelkitError, match="cannot read the approval policy"):
        Policy.load("/nonexistent/approvals.toml")


def test_the_private_key_never_shows(tmp_path: Path) -> None:
    signer = Signer.generate("ann")
    path = signer.save(tmp_path / "k.pem")
    assert "PRIVATE" not in repr(signer) and path.stat().st_mode & 0o077 == 0
    with pytest.raises(ChannelkitError, match="exists: keep it"):
        signer.save(path)
    assert Signer.load("ann", path).public_key == signer.public_key
    (tmp_path / "bad.pem").write_text("not a key", encoding="utf-8")
    with pytest.raises(ChannelkitError, match="is not an Ed25519 private key in PEM"):
        Signer.load("ann", tmp_path / "bad.pem")
