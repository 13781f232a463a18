"""Import → export → import with the local service: another tool's file, scheduled, written
back in the same layout (`calendar export --layout`), read again: nothing changes."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

from channelkit.cli import main
from channelkit.client import Client
from channelkit.publish.calendar.layout_export import export_layout
from channelkit.publish.layouts.files import load_layout
from channelkit.publish.layouts.library import LAYOUTS
from channelkit.publish.layouts.read import Choices
from channelkit.publish.sheets.plan import Plan, load_spreadsheet
from channelkit.service import LocalService
from fixtures.layout_corpus import BERLIN, TZ, CorpusFile, choices_for, corpus

pytestmark = pytest.mark.calendar

EXPORTED = [key for key, layout in LAYOUTS.items() if layout.exportable]
WINDOW = ("2031-01-01", "2032-01-01")  # the corpus's posts are all in 2031


@pytest.fixture
def live(
    service: LocalService, admin_key: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[SimpleNamespace]:
    for name in ("CHANNELKIT_API_KEY", "CHANNELKIT_BASE_URL", "CHANNELKIT_TZ"):
        monkeypatch.delenv(name, raising=False)  # only the flags given here count
    with Client(base_url=service.base_url, api_key=admin_key) as client:
        client.channels.create(name="Company News", slug="news")
        client.channels.create(name="Engineering", slug="eng")
        yield SimpleNamespace(
            client=client, args=["--base-url", service.base_url, "--api-key", admin_key]
        )


def _source(key: str) -> CorpusFile:
    return next(
        file
        for file in corpus()
        if file.sample.layout == key and file.encoding == "utf-8" and file.order == "dmy"
    )


def _sent(plan: Plan) -> list[str]:
    """What each row sends, in time order (an export lists posts by time)."""
    requests = [row.request for row in plan.rows if row.request is not None]
    assert len(requests) == len(plan.rows), [row.message for row in plan.rows]
    return sorted(
        (request.sent_json() for request in requests),
        key=lambda text: (text.split('"scheduled_at":')[1], text),
    )


@pytest.mark.parametrize("kind", ["csv", "xlsx"])
@pytest.mark.parametrize("key", EXPORTED)
def test_import_export_import_changes_nothing(
    live: SimpleNamespace, tmp_path: Path, key: str, kind: str
) -> None:
    if kind == "xlsx" and not LAYOUTS[key].has_header:
        pytest.skip(f"{LAYOUTS[key].name} bulk files are CSV only")
    source = _source(key)
    choices = Choices(**choices_for(source.sample, "dmy"))  # type: ignore[arg-type]
    first = load_spreadsheet(source.data, filename=source.filename, tz=TZ, choices=choices)
    outcome = first.submit(live.client)
    assert outcome.counts().get("created") == len(source.posts), outcome.counts()

    path = tmp_path / f"back.{kind}"
    written, count, drafts = export_layout(
        path, layout=key, start=WINDOW[0], end=WINDOW[1], tz=BERLIN, client=live.client,
        choices=Choices(names=source.sample.names, date_order="dmy"),
    )  # fmt: skip
    assert (written, count, drafts) == (path, len(source.posts), 0)

    again = load_spreadsheet(path, tz=TZ, choices=choices).check_against(live.client)
    assert again.sheet.layout == key
    assert _sent(again) == _sent(first.check_against(live.client))
    # The ledger knows every row: sending the exported file again creates nothing.
    assert [row.status for row in again.rows] == ["sent"] * len(source.posts)
    # And exporting again writes the same file.
    twice = tmp_path / f"twice.{kind}"
    export_layout(
        twice, layout=key, start=WINDOW[0], end=WINDOW[1], tz=BERLIN, client=live.client,
        choices=Choices(names=source.sample.names, date_order="dmy"),
    )  # fmt: skip
    if kind == "csv":
        assert twice.read_bytes() == path.read_bytes()


def test_the_command_exports_in_a_layout_and_refuses_an_unsettled_order(
    live: SimpleNamespace, tmp_path: Path
) -> None:
    source = _source("hootsuite")
    load_spreadsheet(
        source.data,
        filename=source.filename,
        tz=TZ,
        choices=Choices(channel="news", date_order="dmy"),
    ).submit(live.client)
    path = tmp_path / "hootsuite.csv"
    base = ["calendar", "export", str(path), "--from", WINDOW[0], "--to", WINDOW[1], "--tz", TZ]
    refused = CliRunner().invoke(main, [*base, "--layout", "hootsuite", *live.args])
    assert refused.exit_code == 2, refused.output
    assert "say which with --date-order dmy or --date-order mdy" in refused.output
    assert not path.exists()
    done = CliRunner().invoke(
        main, [*base, "--layout", "hootsuite", "--date-order", "mdy", *live.args]
    )
    assert done.exit_code == 0, done.output
    assert f"wrote 4 posts to {path} as a Hootsuite file" in done.output
    first_line = path.read_text(encoding="utf-8").splitlines()[0]
    assert first_line.startswith("03/04/2031 09:00,Town hall on Thursday.")  # month first
    checked = CliRunner().invoke(
        main,
        ["schedule", str(path), "--tz", TZ, "--channel", "news", "--date-order", "mdy"],
    )
    assert checked.exit_code == 0, checked.output


def test_oktopost_cannot_be_written_back(live: SimpleNamespace, tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        [
            "calendar", "export", str(tmp_path / "o.csv"), "--from", WINDOW[0], "--to",
            WINDOW[1], "--layout", "oktopost", *live.args,
        ],
    )  # fmt: skip
    assert result.exit_code == 2
    assert "Oktopost files have no time column" in result.output


def test_a_layout_file_exports_with_its_channel_names_and_reads_back(
    live: SimpleNamespace, tmp_path: Path
) -> None:
    layout = tmp_path / "team.toml"
    layout.write_text(
        'name = "Team tool"\ndates = "year-first"\n'
        '[[columns]]\nrole = "message"\nheaders = ["Copy"]\nrequired = true\n'
        '[[columns]]\nrole = "when"\nheaders = ["Go live"]\nrequired = true\n'
        '[[columns]]\nrole = "profile"\nheaders = ["Page"]\n'
        '[channels]\n"News page" = "news"\n"Eng page" = "eng"\n',
        encoding="utf-8",
    )
    source = _source("sprout")
    first = load_spreadsheet(
        source.data,
        filename=source.filename,
        tz=TZ,
        choices=Choices(**choices_for(source.sample, "dmy")),
    )
    first.submit(live.client)
    path = tmp_path / "team.csv"
    base = ["calendar", "export", str(path), "--from", WINDOW[0], "--to", WINDOW[1], "--tz", TZ]
    unknown = CliRunner().invoke(main, [*base, "--layout", "team", *live.args])
    assert (
        unknown.exit_code == 2
        and "'team' is not a layout; use one of ayrshare, buffer" in unknown.output
    )
    done = CliRunner().invoke(main, [*base, "--layout-file", str(layout), *live.args])
    assert done.exit_code == 0, done.output
    assert f"wrote 4 posts to {path} as a Team tool file" in done.output
    header, *rows = csv.reader(io.StringIO(path.read_text(encoding="utf-8"), newline=""))
    assert header == ["Copy", "Go live", "Page"]
    assert {row[2] for row in rows} == {"News page", "Eng page"}
    again = load_spreadsheet(
        path, tz=TZ, choices=Choices(layouts=(load_layout(layout),))
    )  # the names go back to their channels by the same file

    def posts(plan: Plan) -> set[tuple[str, str, str, object]]:
        return {
            (r.title, r.body, r.scheduled_at.isoformat(), r.channel_id)
            for r in (row.request for row in plan.rows)
            if r is not None
        }

    slugs = {c.id: c.slug for c in live.client.channels.list()}
    sent = {(t, b, at, slugs.get(str(c), c)) for t, b, at, c in posts(first)}
    assert len(again.rows) == 4 and posts(again) == sent  # no image or tag column: those stay
