"""Sheet → approval → schedule end to end: the `schedule` command, a notebook cell
(`ck.schedule`) and the composer widget each leave a post of an approval channel waiting;
`channelkit approve` schedules it; the upcoming digest counts what waits, and sent by
`deliver` to the approvers over real SMTP it is their review digest, with the full text."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.errors import ChannelkitError
from channelkit.publish.approval.approving import approve, waiting
from channelkit.publish.approval.marks import waiting_time
from channelkit.publish.cell import schedule
from channelkit.widgets import Composer

from .conftest import Team


def _env(team: Team, user: str) -> dict[str, str]:
    return {
        "CHANNELKIT_BASE_URL": team.service.base_url,
        "CHANNELKIT_API_KEY": team.keys[user],
        "CHANNELKIT_APPROVAL_POLICY": str(team.policy_path),
    }


@pytest.fixture
def slug(team: Team) -> str:
    with team.client("carl") as client:
        found = client.channels.retrieve(team.channel_id).slug
    assert found is not None
    return found


def test_a_sheet_a_cell_and_the_composer_all_wait_then_approve_schedules_them(
    team: Team, slug: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    when = team.service.now().replace(microsecond=0, second=0) + timedelta(hours=5)
    sheet = tmp_path / "posts.csv"
    sheet.write_text(
        "channel,title,body,scheduled_at\n"
        f'{slug},From the sheet,"Line one\nLine two",{when:%Y-%m-%d %H:%M}\n',
        encoding="utf-8",
    )
    runner = CliRunner()
    sent = runner.invoke(
        main, ["schedule", str(sheet), "--tz", "UTC", "--submit"], env=_env(team, "carl")
    )
    assert sent.exit_code == 0, sent.output
    for name, value in _env(team, "carl").items():
        monkeypatch.setenv(name, value)
    with team.client("carl") as client:
        cell = schedule(slug, "From a cell", "Cell body", at=when, tz="UTC", client=client)
        assert cell.status == "draft"
        with pytest.raises(ChannelkitError, match="waits for approval .*give .* a time"):
            schedule(slug, "At once", "No time", client=client)
        composer = Composer(client, tz="UTC")
        composer.channel.value = team.channel_id
        composer.title.value, composer.body.value = "From the composer", "Composer body"
        composer.when.value = when.replace(tzinfo=None)
        composer.timezone.value = "UTC"
        composer.schedule_button.click()
        assert composer.last_post is not None and composer.last_post.status == "draft"
        listed = waiting(client, team.policy)
        titles = sorted(r.post.title for r in listed)
        assert titles == ["From a cell", "From the composer", "From the sheet"]
        assert all(r.post.status == "draft" and r.at == when for r in listed)
        assert all(waiting_time(r.post.tags) == when for r in listed)
    approved = runner.invoke(
        main, ["approve", "--as", "ann", "--all"],
        env={**_env(team, "ann"), "CHANNELKIT_APPROVAL_KEY": str(_key(team, tmp_path))},
    )  # fmt: skip
    assert approved.exit_code == 0, approved.output
    assert "3 approved and scheduled" in approved.output
    with team.client("carl") as client:
        posts = [client.posts.retrieve(r.post.id) for r in listed]
    assert {(p.status, p.scheduled_at) for p in posts} == {("scheduled", when)}


def _key(team: Team, folder: Path) -> Path:
    path = folder / "ann.pem"
    if not path.exists():
        team.signers["ann"].save(path)
    return path


def test_the_review_digest_reaches_the_approvers_by_email_with_the_whole_text(
    team: Team, slug: str, tmp_path: Path, smtp: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from channelkit.reports.deliver.config import load_config
    from channelkit.reports.deliver.run import deliver
    from channelkit.storage.connection import open_warehouse

    port = smtp.mailbox.port  # type: ignore[attr-defined]
    for name, value in _env(team, "carl").items():
        monkeypatch.setenv(name, value)
    when = team.service.now().replace(microsecond=0) + timedelta(hours=3)
    body = "Dear all,\nthe office closes at noon on Friday.\nThanks, Carl"
    with team.client("carl") as client:
        for title in ("Office closes early", "Parking"):
            schedule(slug, title, body, at=when, tz="UTC", client=client)
    config = tmp_path / "deliver.toml"
    config.write_text(
        f'[smtp]\nurl = "smtp://127.0.0.1:{port}"\nfrom = "Comms <comms@example.com>"\n'
        'starttls = false\n\n[[reports]]\nname = "review"\nupcoming = "36h"\n'
        'tz = "UTC"\nemail = ["ann@example.com", "bob@example.com"]\n',
        encoding="utf-8",
    )
    db = tmp_path / "warehouse.duckdb"
    open_warehouse(db, read_only=False).close()  # it keeps the delivery record
    outcomes = deliver(load_config(config), db)
    assert [o.status for o in outcomes] == ["sent"]
    [(recipients, message)] = smtp.mailbox.messages  # type: ignore[attr-defined]
    assert sorted(recipients) == ["ann@example.com", "bob@example.com"]
    plain = message.get_body(("plain",))
    assert plain is not None
    text = plain.get_content()
    assert "2 awaiting approval by ann or bob" in text
    assert "    the office closes at noon on Friday." in text and "Office closes early" in text
    html = message.get_body(("html",))
    assert html is not None and "the office closes at noon on Friday." in html.get_content()


def test_the_calendar_shows_the_approval_state_and_a_round_trip_changes_nothing(
    team: Team, slug: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from channelkit.publish.calendar.round_trip import calendar_export, load_calendar

    for name, value in _env(team, "carl").items():
        monkeypatch.setenv(name, value)
    when = team.service.now().replace(microsecond=0, second=0) + timedelta(hours=4)
    with team.client("carl") as client:
        waits = schedule(slug, "Waits", "Body one", at=when, tz="UTC", client=client)
        goes = schedule(slug, "Goes", "Body two", at=when, tz="UTC", client=client)
    with team.client("ann") as client:
        approve(client, team.policy, team.signers["ann"], posts=[goes.id])
    with team.client("carl") as client:
        before = {p.id: client.posts.retrieve(p.id) for p in client.posts.list()}
        path = calendar_export(
            tmp_path / "cal.csv", start=when.date(), end=when.date() + timedelta(days=1),
            tz="UTC", channel=slug, client=client,
        )  # fmt: skip
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
        states = zip(frame["approval"], frame["approved_by"], strict=True)
        shown = dict(zip(frame["title"], states, strict=True))
        assert shown == {"Waits": ("awaiting", ""), "Goes": ("approved", "ann")}
        assert waits.id in set(frame["id"])
        plan = load_calendar(path).check_against(client)
        assert plan.counts() == {"unchanged": 2}
        assert plan.submit(client).counts() == {"unchanged": 2}
        after = {p.id: client.posts.retrieve(p.id) for p in client.posts.list()}
    assert {k: v.etag for k, v in after.items()} == {k: v.etag for k, v in before.items()}


def test_ck_approve_lists_approves_and_rejects_in_a_cell(
    team: Team, slug: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import channelkit as ck

    for name, value in _env(team, "ann").items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("CHANNELKIT_APPROVAL_KEY", str(_key(team, tmp_path)))
    when = team.service.now().replace(microsecond=0, second=0) + timedelta(hours=4)
    with team.client("carl") as client:
        first = schedule(slug, "First", "Body one", at=when, tz="UTC", client=client)
        second = schedule(slug, "Second", "Body two", at=when, tz="UTC", client=client)
    listed = ck.approve()
    assert isinstance(listed, list) and {r.post.id for r in listed} == {first.id, second.id}
    done = ck.approve(first.id, by="ann")
    assert not isinstance(done, list) and [r.post.id for r, _ in done.scheduled] == [first.id]
    rejected = ck.approve([second.id], by="ann", reject="Too long")
    assert isinstance(rejected, list) and rejected[0].rejected == (("ann", "Too long"),)
    with pytest.raises(ChannelkitError, match="by= your name"):
        ck.approve(every=True)


def test_the_approvals_widget_shows_the_whole_post_and_approves_or_rejects(
    team: Team, slug: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from channelkit.widgets import Approvals

    for name, value in _env(team, "carl").items():
        monkeypatch.setenv(name, value)
    when = team.service.now().replace(microsecond=0, second=0) + timedelta(hours=4)
    with team.client("carl") as client:
        first = schedule(slug, "First", "Line <one>\nLine two", at=when, tz="UTC", client=client)
        second = schedule(slug, "Second", "Other", at=when, tz="UTC", client=client)
    with team.client("bob") as client:
        board = Approvals(client, by="bob", policy=team.policy, key=_bob_key(team, tmp_path))
        assert "Line &lt;one&gt;" in board.listing.value and "| Line two" in board.listing.value
        board.chosen.value = (first.id,)
        board.approve_button.click()
        assert "Approved and scheduled: First" in board.result.value
        assert client.posts.retrieve(first.id).status == "scheduled"
        assert [value for _, value in board.chosen.options] == [second.id]
        board.chosen.value = (second.id,)
        board.reason.value = "Not this week"
        board.reject_button.click()
        assert "rejected by bob: Not this week" in board.listing.value
        assert client.posts.retrieve(second.id).status == "draft"


def _bob_key(team: Team, folder: Path) -> Path:
    path = folder / "bob.pem"
    team.signers["bob"].save(path)
    return path
