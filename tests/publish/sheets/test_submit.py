"""Submitting plans to the real local service over HTTP: exactly once, whatever happens."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from openpyxl import load_workbook

from channelkit._constants import PUBLISH_SUBMIT_WORKERS
from channelkit.client import Client
from channelkit.errors import AuthenticationError
from channelkit.publish import PlanNotValidError, load_spreadsheet
from channelkit.service import LocalService

H = ["channel", "title", "body", "scheduled_at", "timezone"]
FAULTS = "500=0.05,503=0.02,slow=0.02,drop=0.02,truncate=0.02,lost_create=0.02"


def _at(index: int) -> str:
    return f"{datetime(2030, 1, 7, 8, 0) + timedelta(hours=index):%Y-%m-%d %H:%M}"


def _rows(
    count: int, channels: tuple[str, ...] = ("all-hands", "engineering")
) -> list[list[object]]:
    return [H] + [
        [channels[i % len(channels)], f"Post {i}", f"Body of **post {i}**", _at(i), "Europe/Berlin"]
        for i in range(count)
    ]


def _count_posts(client: Client) -> int:
    return sum(1 for _ in client.posts.list())


def test_500_rows_under_faults_create_500_posts_and_again_none(
    service_factory: object, sheets: SimpleNamespace
) -> None:
    svc = service_factory(faults=FAULTS, fault_seed=1, rate_window=2)  # type: ignore[operator]
    key = svc.create_key(user="admin", team="comms", plan="enterprise")
    data = sheets.csv(_rows(500))
    with Client(base_url=svc.base_url, api_key=key) as client:
        client.channels.create(name="All hands")
        client.channels.create(name="Engineering")
        first = load_spreadsheet(data, filename="posts.csv").submit(client, progress=False)
        assert first.counts() == {"created": 500}, first.preview().query("status != 'created'")
        assert _count_posts(client) == 500
        again = load_spreadsheet(data, filename="posts.csv").submit(client, progress=False)
        assert again.counts() == {"already_created": 500}  # the ledger knows every row
        assert _count_posts(client) == 500
        ids = {row.post_id for row in first.rows}
        assert ids == {row.post_id for row in again.rows} and len(ids) == 500


def test_crash_halfway_then_resubmit_creates_each_post_once(
    client: Client, sheets: SimpleNamespace
) -> None:
    data = sheets.csv(_rows(60))

    def crash_after_25(done: int, total: int) -> None:
        if done == 25:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        load_spreadsheet(data, filename="posts.csv").submit(client, progress=crash_after_25)
    created_before = _count_posts(client)
    # Creates already in flight when the crash came still finish, and so do those that had
    # finished but were not yet counted (one `wait` can return several at once, while each
    # freed worker already took the next row): at most 2 * workers - 1 beyond the 25th.
    assert 25 <= created_before <= 25 + 2 * PUBLISH_SUBMIT_WORKERS - 1
    result = load_spreadsheet(data, filename="posts.csv").submit(client, progress=False)
    counts = result.counts()
    # Rows whose answer was recorded are known to the ledger; those still in flight at the
    # crash are pending there and found scheduled as they are.
    assert counts.get("already_created", 0) + counts.get("exists", 0) == created_before
    assert counts.get("created", 0) == 60 - created_before
    assert result.ok
    assert _count_posts(client) == 60


def test_same_row_is_replayed_by_its_idempotency_key(
    client: Client, sheets: SimpleNamespace
) -> None:
    plan = load_spreadsheet(sheets.csv(_rows(1)), filename="posts.csv").check_against(client)
    request = plan.rows[0].request
    assert request is not None
    first = client.posts.create(
        **request.to_create_kwargs(), idempotency_key=request.idempotency_key()
    )
    again = client.posts.create(
        **request.to_create_kwargs(), idempotency_key=request.idempotency_key()
    )
    assert first.id == again.id
    assert _count_posts(client) == 1


def test_channel_problems_found_against_the_service(
    service: LocalService, client: Client, sheets: SimpleNamespace
) -> None:
    archived = client.channels.create(name="Old news")
    client.channels.update(archived.id, is_archived=True)
    client.channels.create(name="News", slug="news-uk")
    client.channels.create(name="News", slug="news-eu")
    other_key = service.create_key(user="bob", team="sales", plan="enterprise")
    with Client(base_url=service.base_url, api_key=other_key) as bob:
        bob.channels.create(name="Bob only", visibility="private")
    rows = [
        H,
        ["old-news", "A", "B", _at(1), "UTC"],
        ["News", "A", "B", _at(2), "UTC"],
        ["bob-only", "A", "B", _at(3), "UTC"],
        ["news-eu", "A", "B", _at(4), "UTC"],
    ]
    plan = load_spreadsheet(sheets.csv(rows), filename="p.csv").check_against(client)
    messages = [(number, str(error)) for number, error in plan.errors]
    news_ids = sorted(channel.id for channel in plan.channels.channels if channel.name == "News")  # type: ignore[union-attr]
    assert len(news_ids) == 2
    assert messages[0] == (
        2,
        "channel: channel Old news (old-news) is archived; choose another channel or unarchive it",
    )
    assert messages[1][0] == 3 and messages[1][1].startswith("channel: 'News' names 2 channels: ")
    assert all(channel_id in messages[1][1] for channel_id in news_ids)
    assert messages[2] == (
        4,
        "channel: no channel 'bob-only' (id, slug or name) visible to this API key; choices: "
        "all-hands, engineering, news-eu, news-uk, old-news",
    )
    assert len(messages) == 3 and plan.rows[3].status == "ok"


def test_duplicates_against_posts_already_scheduled(
    client: Client, sheets: SimpleNamespace
) -> None:
    channel = next(c for c in client.channels.list() if c.slug == "all-hands")
    when = datetime(2030, 1, 7, 8, 0, tzinfo=UTC)
    same = client.posts.create(channel_id=channel.id, title="Same", body="Body", scheduled_at=when)
    other = client.posts.create(channel_id=channel.id, title="Other", body="Old", scheduled_at=when)
    rows = [
        H,
        ["all-hands", "Same", "Body", "2030-01-07 08:00", "UTC"],
        ["all-hands", "OTHER", "New body", "2030-01-07 09:00", "Europe/Berlin"],
        ["all-hands", "Other", "New body", "2030-01-07 10:00", "UTC"],  # another time: fine
    ]
    plan = load_spreadsheet(sheets.csv(rows), filename="p.csv").check_against(client)
    assert [row.status for row in plan.rows] == ["exists", "error", "ok"]
    assert plan.rows[0].existing_post_id == same.id
    assert plan.rows[1].message == (
        f"title: a post with this title is already scheduled in this channel at this time "
        f"({other.id}) with other content; change the title or time, or edit that post"
    )


def test_invalid_plan_sends_nothing_unless_partial_and_failed_rows_can_be_resubmitted(
    client: Client, sheets: SimpleNamespace, tmp_path: Path
) -> None:
    rows = [
        [*H, "notes"],
        ["all-hands", "Fine", "Body", _at(1), "UTC", "keep"],
        ["all-hands", "", "Body", _at(2), "UTC", "fix me"],
        ["engineering", "Also fine", "Body", _at(3), "UTC", ""],
    ]
    source = tmp_path / "posts.xlsx"
    source.write_bytes(sheets.xlsx(rows))
    with pytest.raises(PlanNotValidError) as caught:
        load_spreadsheet(source).submit(client, progress=False)
    assert str(caught.value) == (
        "1 of 3 rows have errors (first: row 3, title: title is required); nothing was sent. "
        "Fix them, or send only the valid rows with allow_partial=True (--allow-partial)"
    )
    assert _count_posts(client) == 0

    result = load_spreadsheet(source).submit(client, allow_partial=True, progress=False)
    assert [(row.number, row.status) for row in result.rows] == [
        (2, "created"),
        (3, "invalid"),
        (4, "created"),
    ]
    assert not result.ok
    failed = result.failed_rows_file(tmp_path / "failed.xlsx")
    assert failed is not None
    sheet = load_workbook(failed).active
    assert sheet is not None
    values = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert values[0] == [*H, "notes", "error"]
    assert values[1][:6] == ["all-hands", None, "Body", _at(2), "UTC", "fix me"]
    assert values[1][6] == "title: title is required (title = (blank))"  # the offending cell
    sheet["B2"] = "Fixed"
    sheet.parent.save(failed)

    fixed = load_spreadsheet(failed).submit(client, progress=False)
    assert fixed.counts() == {"created": 1}
    assert fixed.failed_rows_file(tmp_path / "none.csv") is None
    assert not (tmp_path / "none.csv").exists()
    assert _count_posts(client) == 3


def test_results_files(client: Client, sheets: SimpleNamespace, tmp_path: Path) -> None:
    result = load_spreadsheet(sheets.csv(_rows(3)), filename="p.csv").submit(client, progress=False)
    for path in (result.to_excel(tmp_path / "r.xlsx"), result.to_csv(tmp_path / "r.csv")):
        frame = pd.read_excel(path) if path.suffix == ".xlsx" else pd.read_csv(path)
        assert frame["row"].tolist() == [2, 3, 4]
        assert frame["status"].tolist() == ["created"] * 3
        assert frame["post_id"].str.startswith("post_").all()
        assert frame["scheduled_at_utc"].tolist()[0] == "2030-01-07T07:00:00Z"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.csv", "r.xlsx"]  # no temp files


def test_refused_key_stops_the_submission_and_never_leaks(
    service: LocalService, client: Client, sheets: SimpleNamespace
) -> None:
    read_only = service.create_key(
        user="admin", team="comms", plan="enterprise", scopes=["posts:read", "channels:read"]
    )
    with Client(base_url=service.base_url, api_key=read_only) as limited:
        result = load_spreadsheet(sheets.csv(_rows(30)), filename="p.csv").submit(
            limited, progress=False
        )
    statuses = [row.status for row in result.rows]
    # the creates already in flight fail with 403; every later row is not even sent
    assert 1 <= statuses.count("failed") <= PUBLISH_SUBMIT_WORKERS
    assert statuses.count("not_sent") == 30 - statuses.count("failed")
    failed = next(row for row in result.rows if row.status == "failed")
    not_sent = next(row for row in result.rows if row.status == "not_sent")
    assert "403" in (failed.error or "")
    assert (not_sent.error or "").startswith("not sent: the API key was refused")
    assert read_only not in repr(result.preview().to_dict())
    assert _count_posts(client) == 0

    with Client(base_url=service.base_url, api_key="ck_wrong") as wrong:
        with pytest.raises(AuthenticationError) as caught:
            load_spreadsheet(sheets.csv(_rows(1)), filename="p.csv").submit(wrong)
    assert "ck_wrong" not in str(caught.value)


def test_text_that_looks_like_a_formula_stays_text(
    client: Client, sheets: SimpleNamespace, tmp_path: Path
) -> None:
    rows = [
        H,
        ["all-hands", "=1+1", "Body", _at(1), "UTC"],
        ["all-hands", '=HYPERLINK("http://x")', "", _at(2), "UTC"],
    ]
    source = tmp_path / "posts.csv"
    source.write_bytes(sheets.csv(rows))
    result = load_spreadsheet(source).submit(client, allow_partial=True, progress=False)
    assert [row.status for row in result.rows] == ["created", "invalid"]
    sheet = load_workbook(result.to_excel(tmp_path / "r.xlsx")).active
    assert sheet is not None and (sheet["F2"].value, sheet["F2"].data_type) == ("=1+1", "s")
    failed = result.failed_rows_file(tmp_path / "failed.xlsx")
    assert failed is not None
    again = load_spreadsheet(failed)  # no "formulas are not supported"
    assert again.errors[0][1].message == "body is required"
    request = again.rows[0]
    assert request.request is None and again.sheet.rows[0].cells[1] == '=HYPERLINK("http://x")'


def test_key_without_posts_read_skips_the_duplicate_check_but_keys_still_protect(
    service: LocalService,
    client: Client,
    sheets: SimpleNamespace,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    write_only = service.create_key(
        user="admin", team="comms", plan="enterprise", scopes=["posts:write", "channels:read"]
    )
    data = sheets.csv(_rows(5))
    with Client(base_url=service.base_url, api_key=write_only) as writer:
        plan = load_spreadsheet(data, filename="p.csv")
        first = plan.submit(writer, progress=False)
        assert plan.warnings == [
            "posts already scheduled in the service were not checked for duplicates: this "
            "API key may not read posts (posts:read)"
        ]
        again = load_spreadsheet(data, filename="p.csv").submit(writer, progress=False)
        # Another machine (an empty ledger): only the idempotency keys protect.
        monkeypatch.setenv("CHANNELKIT_LEDGER", str(tmp_path / "other-machine.sqlite3"))
        elsewhere = load_spreadsheet(data, filename="p.csv").submit(writer, progress=False)
    assert first.counts() == {"created": 5}
    assert again.counts() == {"already_created": 5}  # this machine's ledger knows them
    assert {row.status for row in elsewhere.rows} <= {"created", "already_created"}
    assert [row.post_id for row in first.rows] == [row.post_id for row in again.rows]
    assert [row.post_id for row in first.rows] == [row.post_id for row in elsewhere.rows]
    assert _count_posts(client) == 5
