"""Other tools' bulk files: recognised, translated into channelkit's rows, never guessed.

The files come from `fixtures.layout_corpus` (generated from declared posts): every layout
as CSV in three encodings and as XLSX, in both date orders where the tool allows them.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.errors import SpreadsheetError
from channelkit.publish.layouts.library import LAYOUTS
from channelkit.publish.layouts.read import Choices, derived_title
from channelkit.publish.sheets.placing import fill_times
from channelkit.publish.sheets.plan import Plan, load_spreadsheet
from channelkit.publish.sheets.spreadsheet import read_sheet
from fixtures.layout_corpus import (
    NAMES,
    POSTS,
    SAMPLES,
    TZ,
    CorpusFile,
    Sample,
    as_csv,
    as_xlsx,
    choices_for,
    corpus,
    expected,
    rows_of,
)

CORPUS = list(corpus())
PINNED = datetime(2031, 1, 6, 7, 0, tzinfo=UTC)  # "now" for filling slots


def _plan(file: CorpusFile, **choices: object) -> Plan:
    # The corpus's four posts hold one day above 12 among ambiguous days: too little to
    # settle the order (see test_date_order.py), so the user says the order they wrote.
    told = file.order if LAYOUTS[file.sample.layout].dates == "either" else None
    given = choices or choices_for(file.sample, told)
    return load_spreadsheet(file.data, filename=file.filename, tz=TZ, choices=Choices(**given))  # type: ignore[arg-type]


def _read(request: object) -> dict[str, object]:
    return {name: getattr(request, name) for name in expected(SAMPLES[0], POSTS[0])}


def test_the_corpus_covers_every_layout_encoding_and_order() -> None:
    assert {file.sample.layout for file in CORPUS} == set(LAYOUTS)
    kinds = {(file.sample.name, file.encoding, file.order) for file in CORPUS}
    for sample in SAMPLES:
        for order in sample.orders:
            for encoding in ("utf-8", "utf-8-sig", "cp1252", None):
                assert (sample.name, encoding, order) in kinds
    assert {"dmy", "mdy"} <= {file.order for file in CORPUS if file.sample.layout == "hootsuite"}


@pytest.mark.parametrize("file", CORPUS, ids=lambda file: file.id)
@pytest.mark.calendar
def test_every_file_is_recognised_and_every_row_read_as_declared(file: CorpusFile) -> None:
    plan = _plan(file)
    sheet = plan.sheet
    layout = LAYOUTS[file.sample.layout]
    assert sheet.layout == layout.key
    assert sheet.reading is not None
    assert sheet.reading.startswith(f"read as {layout.a_name} bulk file: ")
    if file.encoding == "cp1252":
        assert "Windows-1252" in sheet.reading
    assert len(plan.rows) == len(file.posts)
    for row, post in zip(plan.rows, file.posts, strict=True):
        want = expected(file.sample, post)
        if not file.sample.timed:  # no time column: only the time is missing (--slots)
            assert [error.field for error in row.errors] == ["scheduled_at"], row.message
            continue
        assert row.status == "ok", (row.number, row.message)
        assert _read(row.request) == want


@pytest.mark.calendar
def test_a_headerless_hootsuite_file_says_so_and_maps_each_column() -> None:
    file = next(f for f in CORPUS if f.id == "hootsuite-utf-8-dmy")
    reading = _plan(file).sheet.reading or ""
    assert reading.startswith(
        "read as a Hootsuite bulk file: date-time, message, link; no header row; "
    )
    assert "title derived from the message" in reading
    assert "dates read day first (--date-order dmy)" in reading


@pytest.mark.calendar
def test_headers_are_mapped_one_by_one_in_the_reading() -> None:
    file = next(f for f in CORPUS if f.id == "buffer-utf-8-dmy")
    reading = _plan(file).sheet.reading or ""
    assert reading.startswith(
        "read as a Buffer bulk file: Text → body, Image URL → cover_image_url, Tags → tags, "
        "Posting Time → scheduled_at; "
    )
    assert "channel news for every row (--channel)" in reading


# Derived from the declarations: a new layout whose date order the user picks is covered
# here, or turns the suite red when the corpus has no sample of it.
@pytest.mark.parametrize(
    "key", [key for key, layout in LAYOUTS.items() if layout.dates == "either"]
)
@pytest.mark.parametrize("order", ["dmy", "mdy"])
@pytest.mark.calendar
def test_unsettled_dates_are_refused_naming_both_readings(key: str, order: str) -> None:
    # The layout's samples written with A/B/YYYY dates (a tool may allow ISO dates too).
    samples = [s for s in SAMPLES if s.layout == key and set(s.orders) == {"dmy", "mdy"}]
    assert samples, f"the corpus has no file of the {key} layout with A/B/YYYY dates"
    for sample in samples:
        _refused_until_told(sample, order)


def _refused_until_told(sample: Sample, order: str) -> None:
    posts = tuple(post for post in POSTS if post.wall.day <= 12)  # nothing settles the column
    file = CorpusFile(sample, "csv", "utf-8", order, as_csv(rows_of(sample, posts, order)), posts)
    plan = _plan(file, **choices_for(sample))
    for row, post in zip(plan.rows, posts, strict=True):
        if post.wall.day == post.wall.month:  # 05/05: one date either way
            assert row.status == "ok"
            assert _read(row.request) == expected(sample, post)
            continue
        assert row.status == "error"
        text = row.message
        assert "could be" in text and "(day first) or" in text and "(month first)" in text
        assert f"{post.wall.day} {post.wall:%B %Y}" in text  # the true reading is named
        other = post.wall.replace(day=post.wall.month, month=post.wall.day)
        assert f"{other.day} {other:%B %Y}" in text  # and the other one
        assert "--date-order" in text
    # Said which order: every row read as declared.
    told = _plan(file, **choices_for(sample, order))
    for row, post in zip(told.rows, posts, strict=True):
        assert _read(row.request) == expected(sample, post)


@pytest.mark.calendar
def test_a_year_first_layout_refuses_a_slashed_date() -> None:
    rows = [["Text", "Posting Time"], ["Hi there", "03/04/2031 10:00"]]
    plan = load_spreadsheet(
        as_csv(rows), filename="b.csv", tz="UTC", choices=Choices(channel="news")
    )
    assert "Buffer writes dates year first" in plan.rows[0].message


@pytest.mark.parametrize(
    ("text", "wall"),
    [
        ("2031-02-03 10:00 AM", "10:00"),
        ("2031-02-03 12:05 am", "00:05"),
        ("2031-02-03 9:40pm", "21:40"),
        ("2031-02-03 12:00 PM", "12:00"),
        ("2031-02-03 21:30:15", "21:30:15"),
    ],
)
@pytest.mark.calendar
def test_twelve_hour_times_are_read(text: str, wall: str) -> None:
    rows = [["Text", "Posting Time"], ["Hi there", text]]
    plan = load_spreadsheet(
        as_csv(rows), filename="b.csv", tz="UTC", choices=Choices(channel="news")
    )
    request = plan.rows[0].request
    assert request is not None and request.scheduled_at is not None
    assert request.scheduled_at.strftime("%H:%M:%S").startswith(wall)


@pytest.mark.calendar
def test_a_thirteen_pm_time_is_an_error_not_a_guess() -> None:
    rows = [["Text", "Posting Time"], ["Hi there", "2031-02-03 13:00 PM"]]
    plan = load_spreadsheet(as_csv(rows), filename="b.csv", tz="UTC", choices=Choices(channel="n"))
    assert plan.rows[0].status == "error"


def test_a_missing_channel_is_refused_naming_the_names_found() -> None:
    file = next(f for f in CORPUS if f.id == "metricool-utf-8-dmy")
    with pytest.raises(SpreadsheetError) as caught:
        load_spreadsheet(file.data, filename=file.filename, tz=TZ)
    message = str(caught.value)
    assert "read as a Metricool bulk file naming Facebook, LinkedIn" in message
    assert "--map Facebook=CHANNEL --map LinkedIn=CHANNEL" in message
    with pytest.raises(SpreadsheetError, match="no channel for LinkedIn"):
        load_spreadsheet(file.data, filename=file.filename, tz=TZ, choices=Choices(names=NAMES[:1]))


def test_a_file_naming_no_channel_asks_for_one() -> None:
    file = next(f for f in CORPUS if f.id == "hootsuite-utf-8-dmy")
    with pytest.raises(SpreadsheetError, match="which names no channel: give the channel"):
        load_spreadsheet(file.data, filename=file.filename, tz=TZ)


@pytest.mark.calendar
def test_one_channel_for_the_file_overrides_the_names() -> None:
    file = next(f for f in CORPUS if f.id == "ayrshare-utf-8-dmy")
    plan = _plan(file, channel="all-hands")
    assert {row.request.channel_id for row in plan.rows if row.request} == {"all-hands"}


@pytest.mark.calendar
def test_a_row_naming_two_channels_is_refused() -> None:
    rows = [
        ["Text", "Date", "Time", "Facebook", "LinkedIn"],
        ["Both", "2031-02-03", "10:00", "TRUE", "TRUE"],
        ["One", "2031-02-03", "11:00", "TRUE", "FALSE"],
    ]
    plan = load_spreadsheet(as_csv(rows), filename="m.csv", tz=TZ, choices=Choices(names=NAMES))
    assert plan.rows[0].status == "error"
    assert "names 2 channels (Facebook → news, LinkedIn → eng)" in plan.rows[0].message
    assert plan.rows[1].status == "ok"


@pytest.mark.calendar
def test_a_video_column_with_a_value_is_an_error() -> None:
    rows = [
        ["text", "videoUrls", "postAtSpecificTime (yyyy-MM-dd HH:mm:ss)"],
        ["Watch", "https://v.example.com/a.mp4", "2031-02-03 10:00:00"],
    ]
    plan = load_spreadsheet(as_csv(rows), filename="s.csv", tz=TZ, choices=Choices(channel="n"))
    assert "has no video or GIF" in plan.rows[0].message


@pytest.mark.calendar
def test_oktopost_rows_take_their_times_from_slots() -> None:
    file = next(f for f in CORPUS if f.id == "oktopost-utf-8-dmy")
    sheet = read_sheet(file.data, filename=file.filename, choices=Choices(channel="news"))
    assert "no time column: give the times with --slots" in (sheet.reading or "")
    filled, done, missing, _ = fill_times(
        sheet, slots="mon-fri 09:00", tz=ZoneInfo(TZ), client=None, now=PINNED
    )
    assert missing == [] and len(done) == len(POSTS)
    plan = Plan(filled, tz=TZ)
    assert all(row.status == "ok" for row in plan.rows)
    walls = [row.request.local_time() for row in plan.rows if row.request]
    assert [f"{w:%a %H:%M}" for w in walls if w] == [
        "Mon 09:00",
        "Tue 09:00",
        "Wed 09:00",
        "Thu 09:00",
    ]


def test_an_unrecognised_file_keeps_its_messages_and_hints_each_known_column() -> None:
    rows = [["Message", "Posting Time", "Channel"], ["Hi", "2031-01-01 09:00", "news"]]
    with pytest.raises(SpreadsheetError) as caught:
        read_sheet(as_csv(rows), filename="x.csv")
    message = str(caught.value)
    assert "unknown column 'Message' (column A)" in message  # today's message stays
    assert "'Message' → body (in Oktopost, Publer, Sprout Social files)" in message
    assert "'Posting Time' → scheduled_at (in Buffer files)" in message


def test_a_channelkit_file_refuses_the_other_tools_options() -> None:
    rows = [["channel", "title", "body", "scheduled_at"], ["news", "T", "B", "2031-01-01 09:00"]]
    with pytest.raises(SpreadsheetError, match="is a channelkit posts file"):
        read_sheet(as_csv(rows), filename="p.csv", choices=Choices(channel="news"))


def test_a_channelkit_file_in_cp1252_is_still_refused_as_not_utf8() -> None:
    rows = [["channel", "title", "body", "scheduled_at"], ["news", "Café", "B", "2031-01-01 09:00"]]
    with pytest.raises(SpreadsheetError, match="is not UTF-8 text"):
        read_sheet(as_csv(rows, "cp1252"), filename="p.csv")


@pytest.mark.calendar
def test_an_xlsx_date_cell_is_a_real_date_whatever_the_order() -> None:
    rows: list[list[object]] = [[datetime(2031, 3, 4, 9, 0), "A real date", ""]]
    plan = load_spreadsheet(
        as_xlsx(rows), filename="h.xlsx", tz="UTC", choices=Choices(channel="n")
    )
    request = plan.rows[0].request
    assert request is not None and request.scheduled_at == datetime(2031, 3, 4, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("Town hall on Thursday. Bring questions.", "Town hall on Thursday."),
        ("First line\nSecond line", "First line"),
        ("\n\n  Leading blank lines  \nthen", "Leading blank lines"),
        ("Version 4.2 is out", "Version 4.2 is out"),
        ("word " * 80, ("word " * 80)[:199].rsplit(" ", 1)[0] + "…"),
    ],
)
def test_the_derived_title_is_the_first_sentence_cut_at_a_word(message: str, title: str) -> None:
    derived = derived_title(message)
    assert derived == title
    assert len(derived) <= 200


@pytest.mark.calendar
def test_the_command_says_how_it_read_the_file(tmp_path: Path) -> None:
    file = next(f for f in CORPUS if f.id == "hootsuite-utf-8-dmy")
    path = tmp_path / "plan.csv"
    path.write_bytes(file.data)
    told = ["--channel", "news", "--date-order", "dmy"]
    result = CliRunner().invoke(main, ["schedule", str(path), "--tz", TZ, *told])
    assert result.exit_code == 0, result.output
    assert "plan.csv: read as a Hootsuite bulk file: date-time, message, link; no header row" in (
        result.output
    )
    assert 'row 1: "Town hall on Thursday." to news' in result.output  # the derived title
    as_json = CliRunner().invoke(main, ["schedule", str(path), "--tz", TZ, *told, "--json"])
    summary = json.loads(as_json.output.strip().splitlines()[-1])
    assert summary["read_as"].startswith("read as a Hootsuite bulk file")
    missing = CliRunner().invoke(main, ["schedule", str(path), "--tz", TZ])
    assert missing.exit_code == 2
    assert "give the channel for the whole file with --channel" in missing.output
    ambiguous = CliRunner().invoke(main, ["schedule", str(path), "--tz", TZ, "--map", "Facebook"])
    assert ambiguous.exit_code == 2 and "is not NAME=CHANNEL" in ambiguous.output


def test_a_first_row_holding_a_post_is_said_to_be_no_header_row() -> None:
    rows = [["03/12/2031 09:00", "Town hall", "https://x.example.com", "extra"]]
    with pytest.raises(SpreadsheetError) as caught:
        read_sheet(as_csv(rows), filename="h.csv", choices=Choices(channel="news"))
    message = str(caught.value)
    assert message.startswith(
        "h.csv: row 1 starts with a date and time ('03/12/2031 09:00'): it looks like a post, "
        "not a header row; the files without one that channelkit reads have these columns "
        "(Hootsuite: date-time, message, link; Postcron: message, year, month, day, hour, "
        "minute, image, link)"
    )
    assert "unknown column '03/12/2031 09:00' (column A)" in message


# Excel's TRUE and FALSE function pages, support.microsoft.com (en-us "TRUE function",
# de-de "WAHR"/"FALSCH", fr-fr "VRAI"/"FAUX", es-es "Función VERDADERO"/"FALSO", nl-nl
# "WAAR, functie"/"ONWAAR, functie", it-it "VERO"/"FALSO", pt-br "Função VERDADEIRO").
EXCEL_BOOLEANS = [
    ("TRUE", "FALSE"),
    ("WAHR", "FALSCH"),
    ("VRAI", "FAUX"),
    ("VERDADERO", "FALSO"),
    ("WAAR", "ONWAAR"),
    ("VERO", "FALSO"),
    ("VERDADEIRO", "FALSO"),
    ("1", "0"),
    ("yes", "no"),
]
METRICOOL_HEADER = ["Text", "Date", "Time", "Facebook", "LinkedIn"]


@pytest.mark.parametrize(("true", "false"), EXCEL_BOOLEANS)
@pytest.mark.calendar
def test_network_columns_read_true_and_false_as_excel_writes_them(true: str, false: str) -> None:
    rows = [
        METRICOOL_HEADER,
        ["To news.", "2031-03-04", "09:00", true, false],
        ["To eng.", "2031-03-05", "09:00", false.lower(), true.lower()],
    ]
    for data, name in ((as_csv(rows), "m.csv"), (as_xlsx(rows), "m.xlsx")):
        plan = load_spreadsheet(data, filename=name, tz=TZ, choices=Choices(names=NAMES))
        assert [row.status for row in plan.rows] == ["ok", "ok"], plan.rows[0].message
        assert [row.request.channel_id for row in plan.rows if row.request] == ["news", "eng"]


@pytest.mark.calendar
def test_an_xlsx_boolean_cell_is_read_as_its_value() -> None:
    rows: list[list[object]] = [METRICOOL_HEADER, ["To eng.", "2031-03-04", "09:00", False, True]]
    plan = load_spreadsheet(as_xlsx(rows), filename="m.xlsx", tz=TZ, choices=Choices(names=NAMES))
    request = plan.rows[0].request
    assert request is not None and request.channel_id == "eng"


@pytest.mark.calendar
def test_an_unknown_boolean_is_refused_naming_the_cell_not_read_as_true() -> None:
    rows = [METRICOOL_HEADER, ["Hi.", "2031-03-04", "09:00", "ja", "FALSCH"]]
    plan = load_spreadsheet(as_csv(rows), filename="m.csv", tz=TZ, choices=Choices(names=NAMES))
    (row,) = plan.rows
    assert row.status == "error"
    assert "cell D2 (Facebook) holds 'ja', neither TRUE nor FALSE" in row.message


@pytest.mark.parametrize(
    ("message", "title"),
    [
        ("Q&A with Dr. Lee on Friday. Bring questions.", "Q&A with Dr. Lee on Friday."),
        ("Q&A with Dr.", "Q&A with Dr."),
        ("The U.S. team is here! Come along.", "The U.S. team is here!"),
        ("The U.S.", "The U.S."),
        (
            "Save the date: 1.5. Town hall at noon. Bring friends.",
            "Save the date: 1.5. Town hall at noon.",
        ),
        ("Save the date: 1.5.", "Save the date: 1.5."),
        ("Meet J. Smith, e.g. at lunch. Or later.", "Meet J. Smith, e.g. at lunch."),
        ('She said "Go." Then left.', 'She said "Go."'),
        ("Is it ready? Yes.", "Is it ready?"),
    ],
)
def test_the_derived_title_ends_at_a_sentence_not_an_abbreviation(message: str, title: str) -> None:
    assert derived_title(message) == title


@pytest.mark.parametrize(
    ("key", "reads"),
    [("ayrshare", "an Ayrshare"), ("oktopost", "an Oktopost"), ("hootsuite", "a Hootsuite")],
)
@pytest.mark.calendar
def test_names_read_with_their_article(key: str, reads: str) -> None:
    assert LAYOUTS[key].a_name == reads
    file = next(f for f in CORPUS if f.sample.layout == key and f.encoding == "utf-8")
    assert (_plan(file).sheet.reading or "").startswith(f"read as {reads} bulk file: ")


def test_a_title_row_above_a_layouts_header_gets_its_own_hint() -> None:
    rows = [["Spring campaign", "", "", ""], ["Text", "Image URL", "Tags", "Posting Time"]]
    rows.append(["Hi.", "", "", "2031-03-04 09:00"])
    with pytest.raises(SpreadsheetError) as caught:
        read_sheet(as_csv(rows), filename="b.csv", choices=Choices(channel="news"))
    first = str(caught.value).split("; ")[0]
    assert first == (
        "b.csv: row 1 holds only 'Spring campaign', a title above the header row: row 2 has "
        "the columns of a Buffer file"
    )


@pytest.mark.parametrize(
    "cell", ["03/04/31 10:00", "03.04.31", "3-4-31 9:00"], ids=["slash", "dot", "dash"]
)
@pytest.mark.calendar
def test_a_two_digit_year_gets_its_own_hint(cell: str) -> None:
    headerless = [[cell, "Town hall", ""]]
    with pytest.raises(SpreadsheetError) as caught:
        read_sheet(as_csv(headerless), filename="h.csv", choices=Choices(channel="news"))
    assert f"{cell!r} writes the year with two digits (31): write all four (2031?)" in str(
        caught.value
    )
    sprout = [["Date", "Time", "Message"], [cell.split()[0], "10:00", "Hi."]]
    plan = load_spreadsheet(as_csv(sprout), filename="s.csv", tz=TZ, choices=Choices(channel="n"))
    assert "writes the year with two digits (31)" in plan.rows[0].message
