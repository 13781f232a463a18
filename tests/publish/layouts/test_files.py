"""Layout files: the built-in layouts are such files, a team's folder adds its own, and a
mistake is refused naming the file, the key and what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest

from channelkit.errors import InvalidParameterError, SpreadsheetError
from channelkit.publish.layouts.files import layout_toml, load_layout, parse_layout
from channelkit.publish.layouts.library import BUILTIN, LAYOUTS, known_layouts
from channelkit.publish.layouts.read import Choices
from channelkit.publish.sheets.spreadsheet import read_sheet
from fixtures.layout_corpus import as_csv

BUILTIN_FILES = sorted(BUILTIN.glob("*.toml"))

# A small layout of a tool channelkit does not ship, as a team would write it.
TEAM = """\
name = "Team tool"
dates = "year-first"
title = "first line"

[[columns]]
role = "message"
headers = ["Copy"]
required = true

[[columns]]
role = "when"
headers = ["Go live"]
required = true

[[columns]]
role = "profile"
headers = ["Page"]

[channels]
"Acme Page" = "news"
"""
TEAM_FILE = [
    ["Copy", "Go live", "Page"],
    ["Town hall\nBring your questions.", "2031-03-04 09:00", "Acme Page"],
]


def test_the_built_in_layouts_are_the_files_of_the_builtin_folder() -> None:
    assert BUILTIN_FILES, "no built-in layout file shipped"
    assert list(LAYOUTS) == [path.stem for path in BUILTIN_FILES]
    assert [layout.key for layout in known_layouts()] == list(LAYOUTS)


@pytest.mark.parametrize("path", BUILTIN_FILES, ids=lambda path: path.stem)
def test_each_built_in_file_writes_back_as_it_reads(path: Path) -> None:
    layout = load_layout(path)
    assert layout_toml(layout) == path.read_text(encoding="utf-8")
    assert parse_layout(layout_toml(layout), source="again") == layout


def test_a_team_layout_reads_its_file_with_its_channels_and_title_rule() -> None:
    layout = parse_layout(TEAM, source="team.toml", key="team")
    sheet = read_sheet(as_csv(TEAM_FILE), filename="t.csv", choices=Choices(layouts=(layout,)))
    assert sheet.layout == "team"
    assert sheet.reading is not None and "channels by name: Acme Page → news" in sheet.reading
    row = sheet.row_fields(sheet.rows[0])
    assert row["channel"] == "news"
    assert row["title"] == "Town hall"  # "first line": the line, not a sentence
    assert row["scheduled_at"] == "2031-03-04 09:00"


def test_the_teams_folder_adds_its_layouts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = as_csv(TEAM_FILE)
    with pytest.raises(SpreadsheetError, match="declare a layout"):
        read_sheet(data, filename="t.csv")
    (tmp_path / "team.toml").write_text(TEAM, encoding="utf-8")
    monkeypatch.setenv("CHANNELKIT_LAYOUTS", str(tmp_path))
    assert [layout.key for layout in known_layouts()] == [*LAYOUTS, "team"]
    assert read_sheet(data, filename="t.csv").layout == "team"
    monkeypatch.setenv("CHANNELKIT_LAYOUTS", str(tmp_path / "nowhere"))
    with pytest.raises(InvalidParameterError, match="nowhere is not a folder"):
        known_layouts()


def _with(old: str, new: str) -> str:
    assert old in TEAM
    return TEAM.replace(old, new, 1)


MISTAKES = [
    ("not toml", "name = Team tool", "team.toml: not TOML"),
    (
        "unknown key",
        _with("title =", "titel ="),
        "team.toml: titel: unknown key; did you mean 'title'?",
    ),
    (
        "column key",
        _with("required = true", "requird = true"),
        "team.toml: columns[0].requird: unknown key; did you mean 'required'?",
    ),
    ("no name", _with('name = "Team tool"\n', ""), "team.toml: name: missing"),
    (
        "bad role",
        _with('role = "message"', 'role = "msg"'),
        "team.toml: columns[0].role: 'msg' is not a role; use one of when, date",
    ),
    (
        "bad dates",
        _with('dates = "year-first"', 'dates = "iso"'),
        "team.toml: dates: 'iso' is not one of year-first, either, cells, header, none",
    ),
    (
        "bad title",
        _with('title = "first line"', 'title = "headline"'),
        "team.toml: title: 'headline' is not one of first sentence, first line",
    ),
    ("blank", _with('"Team tool"', '"FILL IN"'), 'team.toml: name: "FILL IN" is a blank'),
    (
        "blank channel",
        _with('= "news"', '= "FILL IN"'),
        'team.toml: channels.Acme Page: "FILL IN" is a blank',
    ),
    (
        "not a bool",
        _with("required = true", 'required = "yes"'),
        "team.toml: columns[0].required: 'yes' is not true or false",
    ),
    (
        "no headers",
        _with('headers = ["Copy"]\n', ""),
        "team.toml: columns[0].headers: missing; the headers this column is written with",
    ),
    (
        "no message",
        _with('role = "message"', 'role = "title"'),
        'team.toml: columns: no column has role = "message"',
    ),
    (
        "no time",
        _with('role = "when"', 'role = "tags"'),
        "team.toml: dates: 'year-first', but no column holds the time",
    ),
    (
        "column out of place",
        'name = "X"\nheader = false\ndates = "none"\n[[columns]]\ncolumn = "B"\nrole = "message"\n',
        "team.toml: columns[0].column: 'B', but it is listed as column A",
    ),
]


@pytest.mark.parametrize(("text", "says"), [m[1:] for m in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_a_mistake_is_refused_naming_the_file_the_key_and_what_is_wrong(
    text: str, says: str
) -> None:
    with pytest.raises(InvalidParameterError) as caught:
        parse_layout(text, source="team.toml", key="team")
    assert caught.value.message.startswith(says), caught.value.message
    assert "\n" not in caught.value.message
