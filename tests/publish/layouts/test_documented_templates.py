"""Each vendor's template as its own documentation describes it: written back by
`calendar export --layout` in the documented column order, spelling and date format, read
again by the same declaration; the documented zones and date rules are followed.

The documented headers and date formats below are written out from the pages (quoted
beside each), not taken from `LAYOUTS`, so a declaration drifting from its source fails
here. The files read come from `fixtures.layout_corpus` (its samples follow the same pages).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.client import Client
from channelkit.errors import InvalidParameterError
from channelkit.publish.layouts.library import LAYOUTS
from channelkit.publish.layouts.read import Choices, with_links
from channelkit.publish.layouts.write import LayoutPost, layout_rows, write_layout
from channelkit.publish.sheets.plan import load_spreadsheet
from channelkit.publish.sheets.spreadsheet import read_sheet
from channelkit.service import LocalService
from fixtures.layout_corpus import (
    ACCOUNTS,
    METRICOOL_FULL,
    NAMES,
    POSTS,
    SAMPLES,
    TZ,
    as_csv,
    choices_for,
    expected,
)

_ISO_Z = r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"
# layout: (the documented header, or None for none; the columns holding the time; how the
# documented time looks, its cells joined by a space)
DOCUMENTED: dict[str, tuple[list[str] | None, list[int], str]] = {
    # Hootsuite (users' write-ups; the help page was not found): date-time, message, link.
    "hootsuite": (None, [0], r"\d{2}/\d{2}/\d{4} \d{2}:\d{2}"),
    # support.sproutsocial.com "How do I use bulk scheduling?": date dd/mm/yyyy or
    # mm/dd/yyyy, time_24hr, message_text (the optional columns after them).
    "sprout": (
        ["date", "time_24hr", "message_text", "link_url", "image_url", "profile", "tags"],
        [0, 1],
        r"\d{2}/\d{2}/\d{4} \d{2}:\d{2}",
    ),
    # help.socialbee.com "How do I Import Content via CSV?": text, link, imageUrls,
    # gifUrls, videoUrls, postAtSpecificTime.
    "socialbee": (
        [
            "text",
            "link",
            "imageUrls",
            "gifUrls",
            "videoUrls",
            "postAtSpecificTime (yyyy-MM-dd HH:mm:ss)",
        ],
        [5],
        r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}",
    ),
    # help.kyriossystems.com "Bulk Scheduling Social Planner Posts Using CSV or XLSX":
    # postAtSpecificTime (yyyy-MM-dd HH:mm:ss), content, link, imageUrls, gifUrl,
    # videoUrls; help.hoopai.com adds the Advanced CSV's columns after them.
    "social-planner": (
        ["postAtSpecificTime (yyyy-MM-dd HH:mm:ss)", "content", "link", "imageUrls", "gifUrl"],
        [0],
        r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}",
    ),
    # publer.com/blog "The Ultimate CSV Bulk Scheduler": twelve columns ("it's important not
    # to remove them"): 1 Date ("YYYY-MM-DD HH-MM", such as "2029-11-19 20:35"), 2 Text,
    # 3 Link(s), 4 Media URL(s); the stored page stops there, so 5 to 12 are as a user's
    # Publer CSV guide in the GitHub code index writes the header "verbatim".
    "publer": (
        [
            "Date",
            "Text",
            "Link(s)",
            "Media URL(s)",
            "Title",
            "Label(s)",
            "Alt text(s)",
            "Comment(s)",
            "Board/Album",
            "Post subtype",
            "CTA",
            "Reminder",
        ],
        [0],
        r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}",
    ),
    # intercom.help/postcron "How to create a spreadsheet for the Bulk Uploader": eight
    # columns, A text, B year, C month, D day, E hour (24 h), F minute, G image, H link.
    "postcron": (None, [1, 2, 3, 4, 5], r"\d{4}( \d{1,2}){4}"),
    # ayrshare.com/docs "Bulk Post": post, platforms, mediaUrls, scheduleDate in UTC
    # ("YYYY-MM-DDThh:mm:ssZ").
    "ayrshare": (["post", "platforms", "mediaUrls", "scheduleDate"], [3], _ISO_Z),
    # help.postfa.st "CSV format reference for bulk import": the nine headers; scheduled_at
    # "ISO-8601 datetime with a timezone offset", safest "UTC with a Z suffix".
    "postfast": (
        [
            "scheduled_at",
            "account_id",
            "content",
            "media_urls",
            "first_comment",
            "fb_content_type",
            "ig_publish_type",
            "yt_is_short",
            "pinterest_board_id",
        ],
        [0],
        _ISO_Z,
    ),
}
# The documented samples the export is read with (one per layout).
SOURCES = {
    "hootsuite": "hootsuite",
    "sprout": "sprout",
    "socialbee": "socialbee",
    "social-planner": "social-planner",
    "publer": "publer-twelve",
    "postcron": "postcron",
    "ayrshare": "ayrshare",
    "postfast": "postfast",
}


def _posts() -> list[LayoutPost]:
    return [
        LayoutPost(
            channel=post.channel,
            title=post.title,
            body=with_links(post.message, [post.link] if post.link else []),
            scheduled_at=post.utc,
            tz=ZoneInfo(TZ),
            cover_image_url=post.image,
        )
        for post in POSTS
    ]


def test_every_layout_with_a_source_is_checked_here_or_says_why_not() -> None:
    checked = set(DOCUMENTED) | {"oktopost"}  # no time column: not written back
    unfound = {key for key, layout in LAYOUTS.items() if layout.source.startswith("not found")}
    assert checked | unfound == set(LAYOUTS)
    assert all(layout.source for layout in LAYOUTS.values())


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
@pytest.mark.parametrize("key", sorted(DOCUMENTED))
@pytest.mark.calendar
def test_the_export_writes_the_documented_template_and_reads_back(
    key: str, kind: str, tmp_path: Path
) -> None:
    layout = LAYOUTS[key]
    if kind == "xlsx" and not layout.has_header:
        pytest.skip(f"{layout.name} bulk files are CSV only")
    header_doc, time_columns, cell = DOCUMENTED[key]
    sample = next(s for s in SAMPLES if s.name == SOURCES[key])
    names = {channel: name for name, channel in sample.names}
    header, rows = layout_rows(layout, _posts(), date_order="dmy", names=names)
    if header_doc is None:
        assert header is None
    else:
        assert header is not None and header[: len(header_doc)] == header_doc
        if key == "publer":  # "not to remove them": the twelve, nothing more
            assert header == header_doc
    for row in rows:
        written = " ".join(str(row[index]) for index in time_columns)
        assert re.fullmatch(cell, written), (key, row)
    if key == "postcron":
        assert [type(value) for value in rows[0][:6]] == [str, *[int] * 5]  # A the text
    path = write_layout(tmp_path / f"back.{kind}", header, rows)

    choices = Choices(**choices_for(sample, "dmy"))  # type: ignore[arg-type]
    again = load_spreadsheet(path, tz=TZ, choices=choices)
    assert again.sheet.layout == key
    # Each post's time, channel, title, body (a link the layout has no column for stays in
    # it) and cover (lost where the layout has no image column).
    for row, post, sent in zip(again.rows, POSTS, _posts(), strict=True):
        assert row.request is not None, row.message
        want = expected(sample, post)
        assert row.request.scheduled_at == want["scheduled_at"]
        assert row.request.channel_id == want["channel_id"]
        assert row.request.title == post.title
        assert row.request.body == sent.body
        assert row.request.cover_image_url == want["cover_image_url"]


def _read_one(header: list[str], cells: list[object], **choices: object) -> object:
    plan = load_spreadsheet(
        as_csv([header, cells]),
        filename="f.csv",
        tz=TZ,
        choices=Choices(**choices),  # type: ignore[arg-type]
    )
    return plan.rows[0]


@pytest.mark.calendar
def test_an_ayrshare_time_without_its_z_is_utc_not_the_users_zone() -> None:
    # "Datetime to schedule the post in UTC format" (ayrshare.com/docs "Bulk Post").
    header = ["post", "platforms", "mediaUrls", "scheduleDate"]
    row = _read_one(header, ["Hi there.", "facebook", "", "2031-03-04T08:00:00"], names=NAMES)
    assert row.request is not None, row.message  # type: ignore[attr-defined]
    assert row.request.scheduled_at == datetime(2031, 3, 4, 8, 0, tzinfo=UTC)  # type: ignore[attr-defined]


POSTFAST = ["scheduled_at", "account_id", "content"]


@pytest.mark.calendar
def test_a_postfast_time_with_an_offset_is_read_with_it() -> None:
    account = ACCOUNTS[0][0]
    row = _read_one(POSTFAST, ["2031-03-04T09:00:00+01:00", account, "Hi there."], names=ACCOUNTS)
    assert row.request is not None, row.message  # type: ignore[attr-defined]
    assert row.request.scheduled_at == datetime(2031, 3, 4, 9, 0, tzinfo=ZoneInfo(TZ))  # type: ignore[attr-defined]
    assert row.request.channel_id == "news"  # type: ignore[attr-defined]


@pytest.mark.calendar
def test_a_postfast_time_without_an_offset_is_refused_not_guessed() -> None:
    # "ISO-8601 datetime with a timezone offset" (help.postfa.st "CSV format reference").
    row = _read_one(POSTFAST, ["2031-03-04T09:00:00", ACCOUNTS[0][0], "Hi."], names=ACCOUNTS)
    assert row.status == "error"  # type: ignore[attr-defined]
    assert "'2031-03-04T09:00:00' has no UTC offset: PostFast times carry one" in row.message  # type: ignore[attr-defined]


def test_a_postfast_export_asks_for_the_account_of_each_channel() -> None:
    with pytest.raises(InvalidParameterError) as caught:
        layout_rows(LAYOUTS["postfast"], _posts(), date_order=None, names={})
    message = str(caught.value)
    assert "\n" not in message
    assert "PostFast files name each post's account_id, which channelkit cannot know" in message
    assert "no account_id for eng, news; give --map ACCOUNT_ID=CHANNEL for each" in message


@pytest.mark.calendar
def test_a_date_in_words_is_refused_asking_for_the_date() -> None:
    # Publer's Date may be "a simple prompt in English, such as "next Friday at 2 PM""
    # (publer.com/blog "The Ultimate CSV Bulk Scheduler"): it means nothing without the
    # upload's day, so channelkit asks for the date.
    row = _read_one(["Date", "Text"], ["next Friday at 2 PM", "Hi there."], channel="news")
    assert row.status == "error"  # type: ignore[attr-defined]
    assert "'next Friday at 2 PM' is a date in words" in row.message  # type: ignore[attr-defined]
    assert "write the date itself (YYYY-MM-DD HH:MM)" in row.message  # type: ignore[attr-defined]


def test_the_social_planner_header_is_read_as_its_page_spells_it() -> None:
    # help.kyriossystems.com writes the header "postAtSpecificTime (yyyy-MM-dd HH:mm: ss)".
    header = ["postAtSpecificTime (yyyy-MM-dd HH:mm: ss)", "content", "link (OGmetaURL)"]
    sheet = read_sheet(
        as_csv([header, ["2031-03-04 09:00:00", "Hi there.", "https://x.example.com"]]),
        filename="f.csv",
        choices=Choices(channel="news"),
    )
    assert sheet.layout == "social-planner"


def test_a_postcron_file_is_recognised_by_its_documented_shape_alone() -> None:
    rows = [["Town hall on Thursday.", 2031, 3, 4, 9, 0, "", "https://x.example.com"]]
    sheet = read_sheet(as_csv(rows), filename="p.csv", choices=Choices(channel="news"))
    assert sheet.layout == "postcron"
    assert "read as a Postcron bulk file: message, year, month, day, hour, minute" in (
        sheet.reading or ""
    )


@pytest.mark.calendar
def test_load_spreadsheet_takes_the_choices_from_the_public_api(tmp_path: Path) -> None:
    import channelkit as ck

    path = tmp_path / "postcron.csv"
    sample = next(s for s in SAMPLES if s.name == "postcron")
    path.write_bytes(as_csv([sample.cells(post, "dmy") for post in POSTS]))
    plan = ck.publish.load_spreadsheet(path, tz=TZ, choices=ck.publish.Choices(channel="news"))
    assert plan.sheet.layout == "postcron"
    assert [row.request.channel_id for row in plan.rows if row.request] == ["news"] * len(POSTS)


@pytest.mark.calendar
def test_the_command_refuses_a_postfast_export_without_accounts_in_one_line(
    service: LocalService, admin_key: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("CHANNELKIT_API_KEY", "CHANNELKIT_BASE_URL", "CHANNELKIT_TZ"):
        monkeypatch.delenv(name, raising=False)
    sample = next(s for s in SAMPLES if s.name == "postfast")
    data = as_csv([list(sample.header or ()), *(sample.cells(post, "dmy") for post in POSTS)])
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        client.channels.create(name="Company News", slug="news")
        client.channels.create(name="Engineering", slug="eng")
        choices = Choices(names=ACCOUNTS)
        plan = load_spreadsheet(data, filename="postfast.csv", tz=TZ, choices=choices)
        assert plan.submit(client).counts() == {"created": len(POSTS)}
    path = tmp_path / "postfast.csv"
    base = ["calendar", "export", str(path), "--from", "2031-01-01", "--to", "2032-01-01"]
    args = [*base, "--tz", TZ, "--layout", "postfast"]
    service_args = ["--base-url", service.base_url, "--api-key", admin_key]
    refused = CliRunner().invoke(main, [*args, *service_args])
    assert refused.exit_code == 2, refused.output
    assert "no account_id for eng, news; give --map ACCOUNT_ID=CHANNEL for each" in refused.output
    errors = [line for line in refused.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "account_id" in errors[0], refused.output  # one line says it
    assert not path.exists()
    maps = [f"--map={account}={channel}" for account, channel in ACCOUNTS]
    done = CliRunner().invoke(main, [*args, *maps, *service_args])
    assert done.exit_code == 0, done.output
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[0] == ",".join(DOCUMENTED["postfast"][0] or [])
    assert lines[1].startswith(f"2031-03-04T08:00:00Z,{ACCOUNTS[0][0]},Town hall on Thursday.")


# community.oktopost.com "Importing Message Assets", its Field Reference in order: Network
# ("Mandatory. Type it exactly as written below, keep in mind capitalization: Twitter,
# Facebook, LinkedIn, Instagram"), Message (mandatory), LinkUrl, LinkTitle, ImageUrl,
# Description, Picture (optional); "save the file in UTF-8 encoded CSV format"; no time.
OKTOPOST = ["Network", "Message", "LinkUrl", "LinkTitle", "ImageUrl", "Description", "Picture"]


def test_the_oktopost_template_of_its_page_is_read_with_the_networks_written_as_it_says() -> None:
    rows = [
        OKTOPOST,
        ["LinkedIn", "Town hall on Thursday.", "https://x.example.com/hall", "Hall", "", "", ""],
        ["Twitter", "Release 4.2 is out! https://x.example.com/4.2", "", "", "", "", ""],
        ["Facebook", "Spring party.", "", "", "https://cdn.example.com/p.png", "Come!", ""],
    ]
    names = (("LinkedIn", "eng"), ("Twitter", "news"), ("Facebook", "news"))
    sheet = read_sheet(as_csv(rows), filename="o.csv", choices=Choices(names=names))
    assert sheet.layout == "oktopost"
    fields = [sheet.row_fields(row) for row in sheet.rows]
    assert [f["channel"] for f in fields] == ["eng", "news", "news"]
    assert fields[0]["body"] == "Town hall on Thursday.\n\n<https://x.example.com/hall>"
    # "If you are tweeting, make sure to include any links in this section"
    assert fields[1]["body"] == "Release 4.2 is out! https://x.example.com/4.2"
    assert fields[2]["cover_image_url"] == "https://cdn.example.com/p.png"
    assert all(not f.get("scheduled_at") for f in fields)  # times come from --slots
    assert "LinkTitle → ignored" in (sheet.reading or "")


def test_metricools_full_template_is_read_and_its_options_left_out_by_name() -> None:
    # As users' code writes it (Metricool's own page was not found: see metricool.toml).
    row = dict.fromkeys(METRICOOL_FULL, "")
    row |= {"Text": "Hi there.", "Date": "2031-03-04", "Time": "09:00:00", "Twitter/X": "yes"}
    row |= {"GBP": "FALSCH", "First Comment Text": "More below.", "Alt text picture 1": "alt"}
    sheet = read_sheet(
        as_csv([METRICOOL_FULL, list(row.values())]),
        filename="m.csv",
        choices=Choices(names=(("Twitter/X", "news"),)),
    )
    assert sheet.layout == "metricool"
    fields = sheet.row_fields(sheet.rows[0])
    assert fields["channel"] == "news" and fields["body"] == "Hi there."
    assert "First Comment Text → ignored" in (sheet.reading or "")
