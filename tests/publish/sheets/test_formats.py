"""Every file format one declaration: one loop reads a native posts file and another
tool's file alike; a file no format claims gets one refusal that ends with a layout file
drafted from its headers, which reads the file once its blanks are filled in."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner, Result

from channelkit.cli import main
from channelkit.client import Client
from channelkit.errors import InvalidParameterError, SpreadsheetError
from channelkit.publish.layouts.files import BLANK, parse_layout
from channelkit.publish.layouts.library import LAYOUTS
from channelkit.publish.layouts.read import Choices
from channelkit.publish.sheets.foreign import LayoutFormat
from channelkit.publish.sheets.formats import formats, read_table
from channelkit.publish.sheets.native import NATIVE
from channelkit.publish.sheets.sheet import CellTable
from channelkit.publish.sheets.spreadsheet import read_sheet
from channelkit.service import LocalService
from fixtures.layout_corpus import SCHEDULIN_FILE, SCHEDULIN_LAYOUT, as_csv

NATIVE_ROWS = [["channel", "title", "body", "scheduled_at"], ["news", "T", "B", "2031-03-04 09:00"]]
BUFFER_ROWS = [["Text", "Posting Time"], ["Hello there.", "2031-03-04 09:00"]]

# A file of a tool nobody declared (Loomly, Agorapulse, ... write such columns).
UNKNOWN_FILE = [
    ["Date", "Caption", "Profile", "post_link"],
    [
        "2031-03-04 09:00",
        "Town hall on Thursday. Bring questions.",
        "Acme",
        "https://x.example.com",
    ],
]


def _table(rows: list[list[object]]) -> CellTable:
    return CellTable("f.csv", "f.csv", "f.csv", tuple(rows[0]), tuple(enumerate(rows[1:], start=2)))


def test_the_formats_are_the_native_file_then_every_known_layout() -> None:
    every = formats(Choices())
    assert every[0] is NATIVE
    assert [kind.layout.key for kind in every[1:] if isinstance(kind, LayoutFormat)] == list(
        LAYOUTS
    )
    assert len(every) == 1 + len(LAYOUTS)


def test_a_native_file_and_another_tools_file_are_read_by_the_same_loop() -> None:
    native = read_table(_table(NATIVE_ROWS), None)
    buffer = read_table(_table(BUFFER_ROWS), Choices(channel="news"))
    assert native.layout is None and native.fields == ("channel", "title", "body", "scheduled_at")
    assert buffer.layout == "buffer" and buffer.reading is not None
    # Each format answers for itself: the native one claims only its own file.
    assert NATIVE.claim(_table(BUFFER_ROWS)) is None
    assert LayoutFormat(LAYOUTS["buffer"]).claim(_table(NATIVE_ROWS)) is None


def test_a_file_both_claim_alike_is_the_native_ones() -> None:
    # A layout whose headers are channelkit's own: the tie goes to the native format.
    twin = parse_layout(
        'name = "Twin"\ndates = "year-first"\n'
        '[[columns]]\nrole = "message"\nheaders = ["body"]\n'
        '[[columns]]\nrole = "title"\nheaders = ["title"]\n'
        '[[columns]]\nrole = "profile"\nheaders = ["channel"]\n'
        '[[columns]]\nrole = "when"\nheaders = ["scheduled_at"]\n',
        source="twin.toml",
        key="twin",
    )
    assert read_table(_table(NATIVE_ROWS), Choices(layouts=(twin,))).layout is None


def _refusal(rows: list[list[object]]) -> str:
    with pytest.raises(SpreadsheetError) as caught:
        read_sheet(as_csv(rows), filename="from-a-tool.csv")
    return str(caught.value)


def test_an_unknown_files_refusal_ends_with_a_drafted_layout_file() -> None:
    message = _refusal(UNKNOWN_FILE)
    first, _, draft = message.partition("\n\n")
    assert first.startswith("from-a-tool.csv: unknown column 'Caption' (column B): by its name")
    assert "'Profile' → channel (in Sprout Social files)" in first
    assert "Add a `channel` and a `title` column, or declare a layout" in first
    layout = parse_layout(draft.replace(f'"{BLANK}"', '"x"'), source="draft.toml", key="d")
    assert [(c.role, c.headers) for c in layout.columns] == [
        ("when", ("Date",)),
        ("message", ("Caption",)),
        ("profile", ("Profile",)),
        ("link", ("post_link",)),
    ]
    assert layout.channels == (("Acme", "x"),)  # each profile of the file is a blank
    with pytest.raises(InvalidParameterError, match=f'"{BLANK}" is a blank'):
        parse_layout(draft, source="draft.toml", key="d")


def test_a_posts_file_with_a_typo_gets_no_draft() -> None:
    message = _refusal([["channel", "Titel", "body", "scheduled_at"], ["n", "T", "B", "x"]])
    assert "did you mean 'title'?" in message and "declare a layout" not in message


@pytest.fixture
def live(service: LocalService, admin_key: str) -> Iterator[SimpleNamespace]:
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        client.channels.create(name="All hands")
        client.channels.create(name="Engineering")
        yield SimpleNamespace(
            client=client, args=["--base-url", service.base_url, "--api-key", admin_key]
        )


def _run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, [str(arg) for arg in args])


@pytest.mark.calendar
def test_a_layout_file_schedules_a_tool_channelkit_does_not_ship_end_to_end(
    tmp_path: Path, live: SimpleNamespace
) -> None:
    data, layout = tmp_path / "schedulin.csv", tmp_path / "schedulin.toml"
    data.write_bytes(as_csv(SCHEDULIN_FILE))
    layout.write_text(SCHEDULIN_LAYOUT, encoding="utf-8")
    refused = _run("schedule", data, "--tz", "Europe/Berlin", *live.args)
    assert refused.exit_code == 2 and "declare a layout" in refused.output
    sent = _run("schedule", data, "--layout-file", layout, "--tz", "UTC", "--submit", *live.args)
    assert sent.exit_code == 0, sent.output
    assert "read as a Schedulin bulk file: channel → channel, caption → body" in sent.output
    posts = sorted(live.client.posts.list(), key=lambda post: post.scheduled_at)
    slugs = {c.id: c.slug for c in live.client.channels.list()}
    assert [(slugs[p.channel_id], p.title, p.scheduled_at.isoformat()) for p in posts] == [
        ("all-hands", "Town hall on Thursday.", "2031-03-04T08:00:00+00:00"),
        ("engineering", "Release 4.2 is out!", "2031-03-05T14:30:00+00:00"),
    ]
    assert posts[0].cover_image_url == "https://cdn.example.com/hall.png"
    assert posts[0].body == "Town hall on Thursday. Bring your questions."


@pytest.mark.calendar
def test_the_drafted_layout_file_schedules_the_file_once_its_blanks_are_filled(
    tmp_path: Path, live: SimpleNamespace
) -> None:
    data = tmp_path / "from-a-tool.csv"
    data.write_bytes(as_csv(UNKNOWN_FILE))
    refused = _run("schedule", data, "--tz", "Europe/Berlin", *live.args)
    assert refused.exit_code == 2
    draft = refused.output.partition("\n\n")[2]
    filled = draft.replace(f'name = "{BLANK}"', 'name = "Loomly"')
    filled = filled.replace(f'"Acme" = "{BLANK}"', '"Acme" = "all-hands"')
    assert f'= "{BLANK}"' not in filled  # the blanks it names are all there were
    layout = tmp_path / "loomly.toml"
    layout.write_text(filled, encoding="utf-8")
    told = ["--layout-file", layout, "--tz", "Europe/Berlin", "--date-order", "dmy"]
    sent = _run("schedule", data, *told, "--submit", *live.args)
    assert sent.exit_code == 0, sent.output
    (post,) = live.client.posts.list()
    assert post.title == "Town hall on Thursday."
    assert post.body == "Town hall on Thursday. Bring questions.\n\n<https://x.example.com>"
    assert post.scheduled_at.isoformat() == "2031-03-04T08:00:00+00:00"
